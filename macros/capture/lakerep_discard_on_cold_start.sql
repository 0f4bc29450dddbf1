{#-
    Pre-hook of the CD and UOW tables: a cold start (SPEC §4) discards their rows before the
    cycle reads the log again from the restart tokens. Otherwise it renders nothing, and dbt
    sends no statement for it.
-#}
{% macro lakerep_discard_on_cold_start() %}
    {%- if is_incremental() and lakerep_capture_window().cold_start -%}
        delete from {{ this }}
    {%- endif -%}
{% endmacro %}
