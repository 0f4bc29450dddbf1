{{
    config(
        materialized='incremental',
        incremental_strategy='append',
        on_schema_change='append_new_columns',
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
{%- set resync_position = lakerep_oldest_in_flight_seq(ref('warm_start')) %}
{%- set in_flight_since_resync = (
    ' or IBMSNAP_INTENTSEQ >= ' ~ lakerep_string_literal(resync_position) if resync_position is not none else ''
) %}

with

capture_window as (
    select * from {{ ref('capture_window') }}
    where cycle_number = {{ window.cycle_number }}
),

global_record as (
    select
        SYNCHPOINT as capture_synchpoint,
        SYNCHTIME as capture_synchtime
    from {{ ref('capture_register') }}
    where GLOBAL_RECORD = 'Y'
),

in_flight as (
    select
        UOWID,
        SEQ
    from {{ ref('warm_start') }}
),

-- The begin of the oldest UOW still in flight (warm_start, written earlier in this cycle).
resync as (
    select {{ lakerep_string_literal(resync_position) }} as resync_position
),

log_read as (
    select
        max(log_position) as highest_position_read,
        max(log_timestamp) as log_end_time
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

-- The CD rows each table with something in the cycle (lakerep_reads_table_this_cycle) wrote in
-- it, and those of UOWs still in flight, in one scan of its CD table. A table out of the cycle
-- with a change at or above the previous resync position is scanned too: a UOW still open may
-- have made it, and its first change is the table's RESTART1. Any other table has no row read
-- and no UOW in flight: it has no row here (0 row changes), and its CD table is not touched.
cd_rows_in_cycle as (
    select
        cast(null as string) as source_owner,
        cast(null as string) as source_table,
        cast(null as string) as IBMSNAP_UOWID,
        cast(null as string) as IBMSNAP_INTENTSEQ,
        false as read_this_cycle
    where false
    {%- for entry in registered_models
        if lakerep_reads_table_this_cycle(entry.source_owner, entry.source_table, in_flight=true) %}
        {%- set read_this_cycle = lakerep_in_source_read(window, entry, position='IBMSNAP_INTENTSEQ') %}
        union all
        select
            {{ lakerep_string_literal(entry.source_owner) }} as source_owner,
            {{ lakerep_string_literal(entry.source_table) }} as source_table,
            IBMSNAP_UOWID,
            IBMSNAP_INTENTSEQ,
            {{ read_this_cycle }} as read_this_cycle
        from {{ entry.cd }}
        where {{ read_this_cycle }}{{ in_flight_since_resync }}
    {%- endfor %}
),

per_source as (
    select
        cd_rows_in_cycle.source_owner,
        cd_rows_in_cycle.source_table,
        count_if(cd_rows_in_cycle.read_this_cycle) as row_changes,
        min(
            case
                when in_flight.UOWID is not null and cd_rows_in_cycle.IBMSNAP_INTENTSEQ >= resync.resync_position
                    then cd_rows_in_cycle.IBMSNAP_INTENTSEQ
            end
        ) as in_flight_restart1
    from cd_rows_in_cycle
    cross join resync
    left join in_flight on cd_rows_in_cycle.IBMSNAP_UOWID = in_flight.UOWID
    group by cd_rows_in_cycle.source_owner, cd_rows_in_cycle.source_table
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
        coalesce(sum(per_source.row_changes) over (), 0) as row_changes,
        uows_committed.uows_committed,
        current_timestamp() as completed_at,
        log_read.log_end_time,
        -- Capture's lag: how far its synchpoint is behind the newest record the cycle read.
        cast(
            (unix_micros(log_read.log_end_time) - unix_micros(global_record.capture_synchtime)) / 1000000
            as double
        ) as lag_seconds
    from capture_window
    left join per_source
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
