{#- True when the text is absent or a JSON object (an array, scalar or garbage is not). -#}
{% macro lakerep_is_json_object_or_null(column) -%}
    ({{ column }} is null or (left(ltrim({{ column }}), 1) = '{' and from_json({{ column }}, 'map<string,string>') is not null))
{%- endmacro %}
