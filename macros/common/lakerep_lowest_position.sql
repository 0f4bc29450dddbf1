{#- The lowest log position: below every real one. -#}
{% macro lakerep_lowest_position() -%}
    00000000000000000000
{%- endmacro %}
