{#-
    Whether stg_source_snapshot_checked has anything to judge this cycle: a landed snapshot row,
    or a Debezium snapshot read, in a landing batch above the staged one (lakerep_snapshot_batches).
    One query on a lake without Debezium events; with them, a second whose filter is on the
    events' own landing_batch, so Delta reads only the newest files. Either way a cycle without a
    new unload costs a small query, not a validation of every unload held (they are never pruned).
    True before the model is built as a table (first build, or a lake whose model is still a view).
-#}
{% macro lakerep_snapshots_landed() %}
    {%- if not is_incremental() -%}
        {{ return(true) }}
    {%- endif -%}
    {%- set batches = lakerep_snapshot_batches() -%}
    {%- if batches.landed > batches.staged -%}
        {{ return(true) }}
    {%- endif -%}
    {%- set events = lakerep_debezium_events_relation() -%}
    {%- if events is none -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set query -%}
        select count(*) > 0 as landed from (
            select 1 from ({{ lakerep_debezium_events(events) }}) as events
            where landing_batch > {{ batches.staged }} and event.op = 'r'
            limit 1
        ) as new_reads
    {%- endset -%}
    {{ return(run_query(query).rows[0][0]) }}
{% endmacro %}
