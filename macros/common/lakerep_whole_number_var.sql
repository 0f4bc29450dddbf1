{#-
    A var that counts something (minutes, files), as an integer. It must be a whole number from
    `least` to `most` (no upper bound when none), given as an integer or a string of digits (as
    --vars may give it). Anything else is a compile error naming the var and its value, never what
    Jinja's int filter makes of it (0 for "abc"). Not read while dbt parses (0 then): the models
    and macros that ask use it only when they run.
    Arguments: name — the var; unit — what it counts, for the error; least, most — its bounds.
-#}
{% macro lakerep_whole_number_var(name, unit, least=0, most=none) %}
    {%- if not execute -%}
        {{ return(0) }}
    {%- endif -%}
    {%- set value = var(name) -%}
    {%- set whole = value is integer or (value is string and modules.re.fullmatch('[0-9]+', value)) -%}
    {%- if not whole or (value | int) < least or (most is not none and (value | int) > most) -%}
        {%- set bounds = ' from ' ~ least ~ ' to ' ~ most if most is not none else ', ' ~ least ~ ' or more' -%}
        {{ exceptions.raise_compiler_error(
            'var ' ~ name ~ ' must be a whole number of ' ~ unit ~ bounds ~ ', not ' ~ tojson(value)
        ) }}
    {%- endif -%}
    {{ return(value | int) }}
{% endmacro %}
