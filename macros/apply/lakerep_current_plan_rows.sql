{#-
    apply_cycle_plan's rows (the plan of the Apply cycle now running), read once per invocation:
    every model that asks runs after Capture, and nothing the plan reads changes before the cycle
    commits. Empty at parse time.
-#}
{% macro lakerep_current_plan_rows() %}
    {#- Rendered at parse time too: its ref() makes the caller depend on apply_cycle_plan. -#}
    {%- set sql = 'select * from ' ~ ref('apply_cycle_plan') -%}
    {{ return(lakerep_rows_once(sql) if execute else []) }}
{% endmacro %}
