{#-
    Whether one member's set applies in the current Apply cycle: its apply_set_status row says
    APPLIED (STOPPED, GAP and WAITING change no target). Read once per invocation.
    Argument: target_table — the member's target.
-#}
{% macro lakerep_member_applies(target_table) %}
    {%- set member = lakerep_member(target_table) -%}
    {%- for row in lakerep_set_statuses() if row.apply_qual == member.apply_qual and row.set_name == member.set_name -%}
        {{ return(row.status == 'APPLIED') }}
    {%- endfor -%}
    {{ return(false) }}
{% endmacro %}
