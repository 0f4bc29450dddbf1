{#-
    What may have something to write this cycle: decided before a per-table model sends any
    statement (_lakerep_writes_this_cycle), and by the control models that read every table or
    member (so a cycle costs what its changes cost, not what is registered: issue 21). The
    relations are resolved by name, not ref: the models that ask do not all ref them, and they
    all run after them in the DAG.
-#}


{#-
    What the capture cycle reads of each registered table, read once per invocation: one row
    per table and kind (source, lowest_position, in_cycle). A table is in the cycle (in_cycle,
    lowest_position the lowest of these) with a log record of its that the cycle reads
    (lakerep_in_session_read, the union of every source's read), or one at or above the previous
    resync position whose UOW commits in the records the cycle reads (a change of a UOW still
    open when the previous cycle ended, which commits now: the same bound
    lakerep_committed_changes reads), or a snapshot row landed in the window (a complete CCD
    takes it, at the unload start position). A UOW that stays open keeps no table in the cycle:
    its changes are in CD already, and nothing of it reaches a CCD or a member before its commit
    is read. But its table keeps a row, not in the cycle (lowest_position null), with any change
    at or above the previous resync position: its RESTART1 may be such a UOW's first change
    (capture_cycles). A cycle that reads again from restart tokens keeps every change at or above
    the previous resync position in the cycle. None when a relation it reads is not built.
-#}
{% macro lakerep_cycle_reads() %}
    {%- set window = lakerep_cycle_window() -%}
    {%- set log = lakerep_control_relation('stg_source_log', schema='staging') -%}
    {%- set snapshots = lakerep_control_relation('stg_source_snapshot', schema='staging') -%}
    {%- if window is none or log is none or snapshots is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set since_resync = 'log_position >= ' ~ lakerep_string_literal(window.previous_resync_position) -%}
    {%- set in_cycle -%}
        (
            {{ lakerep_in_session_read(window) }}
            or (
                {{ since_resync }}
                {%- if window.get('reread_from') is none %}
                and uow_id in (
                    select uow_id from {{ log }}
                    where record_type = 'C' and {{ lakerep_in_session_read(window) }}
                )
                {%- endif %}
            )
        )
    {%- endset -%}
    {%- set query -%}
        select
            source,
            min(case when in_cycle then log_position end) as lowest_position,
            bool_or(in_cycle) as in_cycle
        from (
            -- in_cycle once per record: its commit subquery is one join, not one per use
            select
                concat(source_owner, '.', source_table) as source,
                log_position,
                {{ in_cycle }} as in_cycle
            from {{ log }}
            where is_registered_table and ({{ lakerep_in_session_read(window) }} or {{ since_resync }})
        ) as records
        group by source
        union all
        select
            concat(source_owner, '.', source_table) as source,
            min(unload_start_position) as lowest_position,
            true as in_cycle
        from {{ snapshots }}
        where {{ lakerep_in_capture_window(window) }}
        group by source_owner, source_table
    {%- endset -%}
    {{ return(lakerep_rows_once(query)) }}
{% endmacro %}
