{#- The capture window (lakerep_capture_window), or none before capture_window is built. -#}
{% macro lakerep_cycle_window() %}
    {%- set relation = lakerep_control_relation('capture_window') -%}
    {{ return(lakerep_capture_window(relation) if relation is not none else none) }}
{% endmacro %}
