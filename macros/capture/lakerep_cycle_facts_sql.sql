{#-
    SQL of the lake's highest numbers as they stand, a row per table, each a bare max() over the
    whole table, which Delta answers from its file statistics without reading a file (a filter, a
    coalesce or a max_by around it would read them): last_cycle (capture_cycles: every commit of
    a cycle writes rows of one cycle number, its cycle row among them), highest_decided
    (restart_decisions), judged_log_cycle and judged_log_batch (int_log_records_judged),
    judged_snapshot_cycle and judged_snapshot_batch (int_snapshot_rows_judged), landed_log,
    landed_snapshot and landed_events (the landing tables). Rows of (fact, value, second_fact,
    second_value), null for a table not there yet, or empty. One branch per table of a union,
    not a scalar subquery per fact in one row: Spark runs each subquery as jobs of its own,
    about twice the jobs and the seconds of the union. Every relation is read by name: the
    models that ask run before some are written.
-#}
{% macro lakerep_cycle_facts_sql() %}
    {%- set tables = [
        (lakerep_control_relation('capture_cycles'), [('last_cycle', 'cycle_number')]),
        (lakerep_control_relation('restart_decisions'), [('highest_decided', 'cycle_number')]),
        (lakerep_control_relation('int_log_records_judged', schema='staging'),
            [('judged_log_cycle', 'capture_cycle'), ('judged_log_batch', 'landing_batch')]),
        (lakerep_control_relation('int_snapshot_rows_judged', schema='staging'),
            [('judged_snapshot_cycle', 'capture_cycle'), ('judged_snapshot_batch', 'landing_batch')]),
        (source('lakerep_raw', 'source_log'), [('landed_log', 'landing_batch')]),
        (source('lakerep_raw', 'source_snapshot'), [('landed_snapshot', 'landing_batch')]),
        (lakerep_debezium_events_relation(), [('landed_events', 'landing_batch')]),
    ] -%}
    {%- for relation, facts in tables %}
        {%- set second = facts[1] if facts | length > 1 else none %}
        select
            {{ lakerep_string_literal(facts[0][0]) }} as fact,
            {{ 'max(' ~ facts[0][1] ~ ')' if relation is not none else 'cast(null as bigint)' }} as value,
            {{ lakerep_string_literal(second[0]) if second else 'cast(null as string)' }} as second_fact,
            {{ 'max(' ~ second[1] ~ ')' if second and relation is not none else 'cast(null as bigint)' }} as second_value
        {%- if relation is not none %}
        from {{ relation }}
        {%- endif %}
        {{ 'union all' if not loop.last }}
    {%- endfor %}
{% endmacro %}
