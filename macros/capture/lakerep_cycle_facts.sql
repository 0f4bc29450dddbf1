{#-
    The lake's highest numbers as they stand, as a dict (lakerep_highest_numbers: from Delta's
    statistics; none for a table not there yet, or empty): last_cycle (capture_cycles: every
    commit of a cycle writes rows of one cycle number, its cycle row among them), highest_decided
    (restart_decisions), judged_log_cycle and judged_log_batch (int_log_records_judged),
    judged_snapshot_cycle and judged_snapshot_batch (int_snapshot_rows_judged), landed_log,
    landed_snapshot and landed_events (the landing tables). Every relation is read by name: the
    models that ask run before some are written.
-#}
{% macro lakerep_cycle_facts() %}
    {{ return(lakerep_highest_numbers([
        (lakerep_control_relation('capture_cycles'), [('last_cycle', 'cycle_number')]),
        (lakerep_control_relation('restart_decisions'), [('highest_decided', 'cycle_number')]),
        (lakerep_control_relation('int_log_records_judged', schema='staging'),
            [('judged_log_cycle', 'capture_cycle'), ('judged_log_batch', 'landing_batch')]),
        (lakerep_control_relation('int_snapshot_rows_judged', schema='staging'),
            [('judged_snapshot_cycle', 'capture_cycle'), ('judged_snapshot_batch', 'landing_batch')]),
        (source('lakerep_raw', 'source_log'), [('landed_log', 'landing_batch')]),
        (source('lakerep_raw', 'source_snapshot'), [('landed_snapshot', 'landing_batch')]),
        (lakerep_debezium_events_relation(), [('landed_events', 'landing_batch')]),
    ])) }}
{% endmacro %}
