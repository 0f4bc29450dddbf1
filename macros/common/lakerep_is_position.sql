{#-
    True when the text is a log position: exactly 20 hex digits, in either case. The length is
    checked apart because `$` in a Java pattern also matches before a final line break.
-#}
{% macro lakerep_is_position(column) -%}
    coalesce(length({{ column }}) = 20 and {{ column }} rlike '^[0-9A-Fa-f]{20}$', false)
{%- endmacro %}
