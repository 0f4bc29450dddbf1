{#- A row image (JSON text) as a map of column to text; null when it is absent or no object. -#}
{% macro lakerep_image_values(image_column) -%}
    from_json({{ image_column }}, 'map<string,string>')
{%- endmacro %}
