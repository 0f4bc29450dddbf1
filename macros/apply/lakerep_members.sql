{#-
    The subscription members (SPEC §2.4): a list of dicts with apply_qual, set_name,
    on_operational_error, source_owner, source_table, target_table, target_structure
    (user_copy, point_in_time or ccd), structure_code, listed_columns (the names the member
    lists, or none), columns (the registration's columns the target holds: those listed, or
    all, as the source evolves) and the source's registration. The declaration is
    subscriptions.yml; `lakerep scaffold` turns it into lakerep_member_declarations()
    (macros/generated/).
-#}
{% macro lakerep_members() %}
    {%- set members = [] -%}
    {%- for declared in lakerep_member_declarations() -%}
        {%- set member = declared.copy() -%}
        {%- set registration = lakerep_registration(declared.source_owner, declared.source_table) -%}
        {%- set listed = declared.listed_columns -%}
        {%- set columns = registration.columns if listed is none
            else registration.columns | selectattr('name', 'in', listed) | list -%}
        {%- do member.update({'registration': registration, 'columns': columns}) -%}
        {%- do members.append(member) -%}
    {%- endfor -%}
    {{ return(members) }}
{% endmacro %}
