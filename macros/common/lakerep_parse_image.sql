{#- A row image (JSON text) parsed into a struct of the registered columns, all as text. -#}
{% macro lakerep_parse_image(image_column, registration) -%}
    {%- set fields = [] -%}
    {%- for column in registration.columns -%}
        {%- do fields.append('`' ~ column.name ~ '` string') -%}
    {%- endfor -%}
    from_json({{ image_column }}, '{{ fields | join(", ") }}')
{%- endmacro %}
