{{
    config(
        materialized='incremental',
        incremental_strategy='append',
        on_schema_change='fail',
    )
}}

{#-
    The commit record of each completed capture cycle, written last, one row per (cycle,
    registered source): the cycle's figures, and the source's restart token pair after it, which
    is the CDC session's state (capture_state). RESTART1 is the first change to the source of
    the oldest UOW still in flight, else the highest position read; RESTART2 the highest commit
    read, the register's synchpoint (UOWs committed at or before it are fully processed). A cycle cut off before these rows
    are written is finished by the next invocation.
-#}

{%- set window = lakerep_capture_window() %}
{#- Refs every CD and CCD: these rows are written only after all of them. #}
{%- set registered_models = lakerep_registered_models() %}

with

capture_window as (
    select * from {{ ref('capture_window') }}
    where cycle_number = {{ window.cycle_number }}
),

global_record as (
    select
        SYNCHPOINT as capture_synchpoint,
        SYNCHTIME as capture_synchtime
    from {{ ref('register') }}
    where GLOBAL_RECORD = 'Y'
),

in_flight as (
    select
        UOWID,
        SEQ
    from {{ ref('warm_start') }}
),

resync as (
    select min(SEQ) as resync_position from in_flight
),

log_read as (
    select max(log_position) as highest_position_read
    from {{ ref('stg_source_log') }}
    where {{ lakerep_in_session_read(window) }}
),

previous_cycle as (
    {{ lakerep_last_capture_cycle() }}
),

uows_committed as (
    select count(*) as uows_committed from {{ ref('uow') }}
    where {{ lakerep_in_session_read(window, position='IBMSNAP_COMMITSEQ') }}
),

-- A table with nothing in the cycle (lakerep_reads_table_this_cycle) has no row read and no
-- UOW in flight: its row is literals, and its CD table is not touched.
per_source as (
    select
        cast(null as string) as source_owner,
        cast(null as string) as source_table,
        cast(null as bigint) as row_changes,
        cast(null as string) as in_flight_restart1
    where false
    {%- for entry in registered_models if not lakerep_reads_table_this_cycle(entry.source_owner, entry.source_table) %}
        union all
        select
            '{{ entry.source_owner }}' as source_owner,
            '{{ entry.source_table }}' as source_table,
            cast(0 as bigint) as row_changes,
            cast(null as string) as in_flight_restart1
    {%- endfor %}
    {%- for entry in registered_models if lakerep_reads_table_this_cycle(entry.source_owner, entry.source_table) %}
        union all
        select
            '{{ entry.source_owner }}' as source_owner,
            '{{ entry.source_table }}' as source_table,
            (
                select count(*) from {{ entry.cd }}
                where {{ lakerep_in_source_read(window, entry, position='IBMSNAP_INTENTSEQ') }}
            ) as row_changes,
            (
                select min(cd.IBMSNAP_INTENTSEQ)
                from {{ entry.cd }} as cd
                inner join in_flight on cd.IBMSNAP_UOWID = in_flight.UOWID
                where cd.IBMSNAP_INTENTSEQ >= (select resync.resync_position from resync)
            ) as in_flight_restart1
    {%- endfor %}
),

cycle_rows as (
    select
        capture_window.cycle_number,
        capture_window.session_name,
        capture_window.run_id,
        capture_window.after_batch,
        capture_window.up_to_batch,
        capture_window.source_owner,
        capture_window.source_table,
        coalesce(
            per_source.in_flight_restart1,
            greatest(log_read.highest_position_read, previous_cycle.highest_position_read, capture_window.restart1)
        ) as restart1,
        greatest(global_record.capture_synchpoint, capture_window.restart2) as restart2,
        greatest(log_read.highest_position_read, previous_cycle.highest_position_read)
            as highest_position_read,
        global_record.capture_synchpoint as synchpoint,
        global_record.capture_synchtime as synchtime,
        resync.resync_position,
        sum(per_source.row_changes) over () as row_changes,
        uows_committed.uows_committed,
        current_timestamp() as completed_at
    from capture_window
    inner join per_source
        on
            capture_window.source_owner = per_source.source_owner
            and capture_window.source_table = per_source.source_table
    cross join global_record
    cross join resync
    cross join log_read
    cross join previous_cycle
    cross join uows_committed
)

select * from cycle_rows
