{#-
    A var that counts minutes (retention_limit, lag_limit), as an integer: a whole number from 0
    to what a timedelta holds (lakerep_whole_number_var), so that "abc" is never 0 minutes (every
    retained change pruned, every warm start refused). 0 while dbt parses, before the bound is
    computed (`modules` is not there when sqlfluff renders a model).
    Argument: name — the var.
-#}
{% macro lakerep_whole_minutes_var(name) %}
    {%- if not execute -%}
        {{ return(0) }}
    {%- endif -%}
    {%- set most = modules.datetime.timedelta.max // modules.datetime.timedelta(minutes=1) -%}
    {{ return(lakerep_whole_number_var(name, 'minutes', 0, most)) }}
{% endmacro %}
