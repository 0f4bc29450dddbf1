{#-
    A member's plan row of the Apply cycle now running, as apply_changes wrote it (its set's
    status, rows_to_write), or none when apply_changes holds no row of this cycle (it had nothing
    to write: the targets have nothing either). Read once per invocation for every member: the
    models that ask run after apply_changes.
    Argument: target_table — the member's target.
-#}
{% macro lakerep_member_cycle(target_table) %}
    {#- Both refs are rendered at parse time too: they make the caller depend on the models. -#}
    {%- set changes = ref('apply_changes') -%}
    {%- set plans = lakerep_current_plan_rows() -%}
    {%- if not execute -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set cycle = plans | map(attribute='apply_cycle') | max if plans else none -%}
    {%- set rows = lakerep_rows_once('select * from ' ~ changes ~ " where row_action = 'plan'") -%}
    {%- for row in rows if row.target_table == target_table and row.apply_cycle == cycle -%}
        {{ return(row) }}
    {%- endfor -%}
    {{ return(none) }}
{% endmacro %}
