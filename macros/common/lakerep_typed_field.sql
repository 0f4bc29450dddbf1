{#- One field of a parsed row image, cast to its registered type. -#}
{% macro lakerep_typed_field(row, column) -%}
    cast({{ row }}.`{{ column.name }}` as {{ column.data_type }})
{%- endmacro %}
