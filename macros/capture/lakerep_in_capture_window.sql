{#- SQL predicate: the landing batch column is one of the cycle's new batches. -#}
{% macro lakerep_in_capture_window(window, column='landing_batch') -%}
    ({{ column }} > {{ window.after_batch }} and {{ column }} <= {{ window.up_to_batch }})
{%- endmacro %}
