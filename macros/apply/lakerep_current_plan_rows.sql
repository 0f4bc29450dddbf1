{#-
    apply_plan's rows of the current cycle, read once per invocation: every model that asks runs
    after apply_plan. Empty at parse time.
-#}
{% macro lakerep_current_plan_rows() %}
    {#- Rendered at parse time too: its ref() makes the caller depend on apply_plan. -#}
    {%- set sql = lakerep_current_plan() -%}
    {{ return(lakerep_rows_once(sql) if execute else []) }}
{% endmacro %}
