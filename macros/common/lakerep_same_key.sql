{#- SQL predicate: two parsed row images have the same key. -#}
{% macro lakerep_same_key(left_row, right_row, registration) -%}
    {%- set comparisons = [] -%}
    {%- for key in registration.key_columns -%}
        {%- do comparisons.append(left_row ~ '.`' ~ key ~ '` <=> ' ~ right_row ~ '.`' ~ key ~ '`') -%}
    {%- endfor -%}
    {{ comparisons | join(' and ') if comparisons else 'true' }}
{%- endmacro %}
