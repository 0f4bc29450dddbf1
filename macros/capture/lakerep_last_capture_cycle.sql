{#-
    SQL of one row: the last completed capture cycle (cycle_number, up_to_batch,
    highest_position_read from capture_cycles), or a row of nulls before the first.
    capture_cycles is read by name, not ref: it is written at the end of the cycle that
    capture_window starts, and a ref would close a loop in the DAG.
-#}
{% macro lakerep_last_capture_cycle() %}
    {%- set cycles = lakerep_control_relation('capture_cycles') -%}
    {%- if cycles is not none %}
        select
            max(cycle_number) as cycle_number,
            max_by(up_to_batch, cycle_number) as up_to_batch,
            max(highest_position_read) as highest_position_read
        from {{ cycles }}
    {%- else %}
        select
            cast(null as bigint) as cycle_number,
            cast(null as bigint) as up_to_batch,
            cast(null as string) as highest_position_read
    {%- endif %}
{% endmacro %}
