{#-
    Whether stg_source_snapshot_checked has anything to judge this cycle (lakerep_snapshot_batches):
    a snapshot row landed above the highest batch it holds, or a Debezium snapshot read landed
    above both that batch and the last batch a capture cycle read. One query on a lake without
    Debezium events; with them, two more (that last batch, then the new reads, filtered on the
    events' own landing_batch, so Delta reads only the files landed since the last cycle).
    Either way a cycle without a new unload costs a small query, not a validation of every unload
    held (they are never pruned). A read passed over here (a cycle that read past it without this
    model, `dbt run -s capture_window`) is judged late, with the next unload, never lost: the
    model takes everything above the highest batch it holds. True before the model is built as a
    table (first build, or a lake whose model is still a view).
-#}
{% macro lakerep_snapshots_landed() %}
    {%- if not is_incremental() -%}
        {{ return(true) }}
    {%- endif -%}
    {%- set batches = lakerep_snapshot_batches() -%}
    {%- if batches.landed > batches.judged -%}
        {{ return(true) }}
    {%- endif -%}
    {%- set events = lakerep_debezium_events_relation() -%}
    {%- if events is none -%}
        {{ return(false) }}
    {%- endif -%}
    {#- The last batch a capture cycle read: that cycle had judged every unload landed by then.
        Read here, before capture_window is written in the cycle, never through
        lakerep_capture_window's memo. -#}
    {%- set window = lakerep_control_relation('capture_window') -%}
    {%- set read = run_query('select coalesce(max(up_to_batch), -1) from ' ~ window).rows[0][0] | int
        if window is not none else -1 -%}
    {%- set query -%}
        select count(*) > 0 as landed from (
            select 1 from ({{ lakerep_debezium_events(events) }}) as events
            where landing_batch > {{ [batches.judged, read] | max }} and event.op = 'r'
            limit 1
        ) as new_reads
    {%- endset -%}
    {{ return(run_query(query).rows[0][0]) }}
{% endmacro %}
