{#- A Jinja value as a Spark SQL string literal (backslash and quote escaped), or a typed null. -#}
{% macro lakerep_string_literal(value) -%}
    {%- if value is none -%}
        cast(null as string)
    {%- else -%}
        '{{ value | replace("\\", "\\\\") | replace("'", "\\'") }}'
    {%- endif -%}
{%- endmacro %}
