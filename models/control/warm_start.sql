{{ config(materialized='view', lakerep_built='declaration') }}

{#-
    The warm-start table (IBMSNAP_WARM_START, SPEC §3): Capture's resynchronisation point at the
    end of the latest completed capture cycle (capture_cycles). One row per UOW that changed a
    registered table and is still open (in flight), SEQ = its first change; with none open, one
    row with no UOW whose SEQ is the highest position read (the cycle's resync position). The lowest SEQ is where reading
    restarts. Each cycle commits its own rows, so the old ones are gone from here once a (warm)
    start has completed its cycle; a cold start keeps none.
-#}

with

latest as (
    select cycles.* from {{ ref('capture_cycles') }} as cycles
    where cycles.cycle_number = (
        select max(completed.cycle_number) from {{ ref('capture_cycles') }} as completed
        where completed.record_kind = 'cycle'
    )
),

in_flight as (
    select
        min(seq) as SEQ,
        uow_id as UOWID,
        min_by(auth_token, seq) as AUTHTKN,
        min_by(auth_id, seq) as AUTHID,
        'Y' as CAPTURED,
        min(uow_time) as UOWTIME
    from latest
    where record_kind = 'in_flight'
    group by uow_id
),

nothing_in_flight as (
    select
        resync_position as SEQ,
        cast(null as string) as UOWID,
        cast(null as string) as AUTHTKN,
        cast(null as string) as AUTHID,
        'Y' as CAPTURED,
        cast(null as timestamp) as UOWTIME
    from latest
    where record_kind = 'cycle' and not exists (select 1 from in_flight)
),

warm_start_rows as (
    select * from in_flight
    union all
    select * from nothing_in_flight
)

select * from warm_start_rows
