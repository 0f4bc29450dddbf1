{#-
    SQL predicate: a log record is read by this cycle for a source that reads again from
    `reread_from` (every landed batch, at or above that position), or, with reread_from none,
    in the new batches only.
-#}
{% macro lakerep_read_from(window, reread_from, batch='landing_batch', position='log_position') -%}
    {%- if reread_from is none -%}
        {{ lakerep_in_capture_window(window, batch) }}
    {%- else -%}
        ({{ batch }} <= {{ window.up_to_batch }} and {{ position }} >= {{ lakerep_string_literal(reread_from) }})
    {%- endif -%}
{%- endmacro %}
