{#- SQL predicate: a log record is read by this cycle, for any source (the session reads the log once). -#}
{% macro lakerep_in_session_read(window, batch='landing_batch', position='log_position') -%}
    {%- if window.get('reread_from') is none -%}
        {{ lakerep_in_capture_window(window, batch) }}
    {%- else -%}
        ({{ lakerep_in_capture_window(window, batch) }} or {{ lakerep_read_from(window, window.reread_from, batch, position) }})
    {%- endif -%}
{%- endmacro %}
