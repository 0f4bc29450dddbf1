{{
    config(
        materialized='incremental',
        incremental_strategy='insert_overwrite',
        on_schema_change='fail',
    )
}}

{#-
    The warm-start table (IBMSNAP_WARM_START): Capture's resynchronisation point at the end of
    the cycle. One row per UOW that changed a registered table and is still open (in flight),
    SEQ = its first change; with none open, one row with no UOW whose SEQ is the highest
    position read. The lowest SEQ is where reading restarts. Rewritten whole every cycle, so the
    old rows are gone once a (warm) start has completed its cycle; a cold start keeps none.
-#}

{%- set window = lakerep_capture_window() %}

with

log_records as (
    select * from {{ ref('stg_source_log') }}
    where {{ lakerep_in_session_read(window) }}
),

previously_open as (
    {{ lakerep_rows_already_held([
        ['UOWID', 'uow_id', 'string'],
        ['SEQ', 'seq', 'string'],
        ['AUTHTKN', 'auth_token', 'string'],
        ['AUTHID', 'auth_id', 'string'],
        ['UOWTIME', 'uow_time', 'timestamp'],
    ], where='false' if window.cold_start else 'UOWID is not null') }}
),

newly_changed as (
    select
        uow_id,
        log_position as seq,
        auth_token,
        auth_id,
        log_timestamp as uow_time
    from log_records
    where is_registered_table
),

candidates as (
    -- Each UOW's first change: from the rows held (open at the last cycle) and the records read.
    select
        uow_id,
        min(seq) as seq,
        min_by(auth_token, seq) as auth_token,
        min_by(auth_id, seq) as auth_id,
        min(uow_time) as uow_time
    from (
        select * from previously_open
        union all
        select * from newly_changed
    ) as either_side
    group by uow_id
),

ended as (
    select distinct uow_id from log_records
    where record_type in ('C', 'R')
),

in_flight as (
    select candidates.* from candidates
    left anti join ended on candidates.uow_id = ended.uow_id
),

highest_read as (
    select
        greatest(
            coalesce(max(log_position), '00000000000000000000'),
            {{ lakerep_string_literal(window.previous_resync_position) }}
        ) as seq
    from log_records
),

warm_start_rows as (
    select
        seq as SEQ,
        uow_id as UOWID,
        auth_token as AUTHTKN,
        auth_id as AUTHID,
        'Y' as CAPTURED,
        uow_time as UOWTIME
    from in_flight
    union all
    select
        highest_read.seq as SEQ,
        cast(null as string) as UOWID,
        cast(null as string) as AUTHTKN,
        cast(null as string) as AUTHID,
        'Y' as CAPTURED,
        cast(null as timestamp) as UOWTIME
    from highest_read
    where not exists (select 1 from in_flight)
)

select * from warm_start_rows
