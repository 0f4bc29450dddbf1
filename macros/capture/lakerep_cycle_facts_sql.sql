{#-
    SQL of one row of the lake's highest numbers as they stand, each a bare max() over a whole
    table, which Delta answers from its file statistics without reading a file (a filter, a
    coalesce or a max_by around it would read them): last_cycle (capture_cycles: every commit of
    a cycle writes rows of one cycle number, its cycle row among them), highest_decided
    (restart_decisions), judged_log_cycle and judged_log_batch (int_log_records_judged),
    judged_snapshot_cycle and judged_snapshot_batch (int_snapshot_rows_judged), landed_log,
    landed_snapshot and landed_events (the landing tables). Null for a table not there yet, or
    empty. Every relation is read by name: the models that ask run before some are written.
-#}
{% macro lakerep_cycle_facts_sql() %}
    {%- set tables = [
        ('last_cycle', lakerep_control_relation('capture_cycles'), 'cycle_number'),
        ('highest_decided', lakerep_control_relation('restart_decisions'), 'cycle_number'),
        ('judged_log_cycle', lakerep_control_relation('int_log_records_judged', schema='staging'), 'capture_cycle'),
        ('judged_log_batch', lakerep_control_relation('int_log_records_judged', schema='staging'), 'landing_batch'),
        ('judged_snapshot_cycle', lakerep_control_relation('int_snapshot_rows_judged', schema='staging'), 'capture_cycle'),
        ('judged_snapshot_batch', lakerep_control_relation('int_snapshot_rows_judged', schema='staging'), 'landing_batch'),
        ('landed_log', source('lakerep_raw', 'source_log'), 'landing_batch'),
        ('landed_snapshot', source('lakerep_raw', 'source_snapshot'), 'landing_batch'),
        ('landed_events', lakerep_debezium_events_relation(), 'landing_batch'),
    ] -%}
    select
    {%- for name, relation, column in tables %}
        {%- if relation is not none %}
            (select max({{ column }}) from {{ relation }}) as {{ name }}{{ ',' if not loop.last }}
        {%- else %}
            cast(null as bigint) as {{ name }}{{ ',' if not loop.last }}
        {%- endif %}
    {%- endfor %}
{% endmacro %}
