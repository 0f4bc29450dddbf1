{{ config(materialized='view') }}

{#-
    The warm-start table (IBMSNAP_WARM_START): Capture's resynchronisation point at the end of
    the latest completed capture cycle. One row per UOW that changed a registered table and was
    still open (in flight) then, SEQ = its first change; with none open, one row with no UOW
    whose SEQ is the highest position read. The lowest SEQ is where reading restarts. A view:
    the cycle keeps these UOWs in its commit record (capture_cycles.in_flight_uows, each on the
    row of the source it first changed), so a cycle writes them with no Delta commit of their own.
-#}

with

latest_cycle as (
    select * from (
        select
            *,
            max(cycle_number) over () as last_cycle_number
        from {{ ref('capture_cycles') }}
    ) as cycles
    where cycle_number = last_cycle_number
),

in_flight as (
    select
        uow.SEQ,
        uow.UOWID,
        uow.AUTHTKN,
        uow.AUTHID,
        'Y' as CAPTURED,
        uow.UOWTIME
    from latest_cycle
        lateral view explode(latest_cycle.in_flight_uows) uows as uow
),

position_only as (
    select
        min(resync_position) as SEQ,
        cast(null as string) as UOWID,
        cast(null as string) as AUTHTKN,
        cast(null as string) as AUTHID,
        'Y' as CAPTURED,
        cast(null as timestamp) as UOWTIME
    from latest_cycle
    having min(resync_position) is not null and count_if(size(in_flight_uows) > 0) = 0
)

select * from in_flight
union all
select * from position_only
