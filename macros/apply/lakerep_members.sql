{#-
    The subscription members (SPEC §2.4): a list of dicts with apply_qual, set_name,
    on_operational_error, source_owner, source_table, target_table, target_structure
    (user_copy, point_in_time or ccd), structure_code and the source's registration. The
    declaration is subscriptions.yml; `lakerep scaffold` turns it into
    lakerep_member_declarations() (macros/generated/).
-#}
{% macro lakerep_members() %}
    {%- set members = [] -%}
    {%- for declared in lakerep_member_declarations() -%}
        {%- set member = declared.copy() -%}
        {%- do member.update({'registration': lakerep_registration(declared.source_owner, declared.source_table)}) -%}
        {%- do members.append(member) -%}
    {%- endfor -%}
    {{ return(members) }}
{% endmacro %}
