{#- A log position in the stored form: 20 upper-case hex digits, so string order is log order. -#}
{% macro lakerep_normalize_position(column) -%}
    upper({{ column }})
{%- endmacro %}
