{#-
    A var that counts minutes (retention_limit, lag_limit), as an integer. It must be a whole
    number from 0 to what a timedelta holds: an integer, or a string of digits (as --vars may give
    it). Anything else is a compile error naming the var and its value, never what Jinja's int
    filter makes of it (0 for "abc": every retained change pruned, every warm start refused).
    Not read while dbt parses (0 then): the models that ask use it only when they run.
    Argument: name — the var.
-#}
{% macro lakerep_whole_minutes_var(name) %}
    {%- if not execute -%}
        {{ return(0) }}
    {%- endif -%}
    {%- set value = var(name) -%}
    {%- set most = modules.datetime.timedelta.max // modules.datetime.timedelta(minutes=1) -%}
    {%- set whole = value is integer or (value is string and modules.re.fullmatch('[0-9]+', value)) -%}
    {%- if not whole or (value | int) < 0 or (value | int) > most -%}
        {{ exceptions.raise_compiler_error(
            'var ' ~ name ~ ' must be a whole number of minutes from 0 to ' ~ most ~ ', not ' ~ tojson(value)
        ) }}
    {%- endif -%}
    {{ return(value | int) }}
{% endmacro %}
