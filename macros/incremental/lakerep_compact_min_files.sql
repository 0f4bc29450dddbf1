{#-
    Var compact_min_files as an integer: the number of files at which a cycle that prunes
    compacts a growing table (lakerep_compact_small_files). It must be a whole number, 2 or more,
    given as an integer or a string of digits (as --vars may give it). Anything else is a compile
    error naming the var and its value, never what Jinja's int filter makes of it (0 for "abc":
    every table rewritten in every prune).
-#}
{% macro lakerep_compact_min_files() %}
    {%- set value = var('compact_min_files') -%}
    {%- set whole = value is integer or (value is string and modules.re.fullmatch('[0-9]+', value)) -%}
    {%- if not whole or (value | int) < 2 -%}
        {{ exceptions.raise_compiler_error(
            'var compact_min_files must be a whole number of files, 2 or more, not ' ~ tojson(value)
        ) }}
    {%- endif -%}
    {{ return(value | int) }}
{% endmacro %}
