{#- SQL predicate: a log record is read by this cycle for one registered source. -#}
{% macro lakerep_in_source_read(window, registration, batch='landing_batch', position='log_position') -%}
    {{ lakerep_read_from(window, lakerep_source_window(window, registration).reread_from, batch, position) }}
{%- endmacro %}
