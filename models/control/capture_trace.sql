{{ config(materialized='view', lakerep_built='declaration') }}

{#-
    The trace table (IBMSNAP_TRACE): one row per event. A run's restart decision per source
    (WARM, COLD, or ERROR when the start was refused) and a CAPTURE row per completed cycle.
    A view: restart_decisions and capture_cycles keep every event it shows, so a cycle writes
    nothing here (issue 21). A refused start shows its ERROR rows at once.
-#}

with

decisions as (
    select * from {{ ref('restart_decisions') }}
),

cycles as (
    select
        cycle_number,
        run_id,
        after_batch,
        up_to_batch,
        row_changes,
        uows_committed,
        synchpoint,
        resync_position,
        completed_at
    from {{ ref('capture_cycles') }}
    where record_kind = 'cycle'
),

decision_rows as (
    select
        case
            when refusal is not null then 'ERROR'
            when cold_start then 'COLD'
            else 'WARM'
        end as OPERATION,
        decided_at as TRACE_TIME,
        coalesce(refusal, message) as DESCRIPTION,
        cast(null as bigint) as CYCLE,
        run_id as RUN_ID
    from decisions
),

cycle_rows as (
    select
        'CAPTURE' as OPERATION,
        completed_at as TRACE_TIME,
        concat(
            'ASN0104I lakerep capture cycle ', cycle_number,
            ' read landing batches ', after_batch + 1, '-', up_to_batch,
            ': ', row_changes, ' row changes, ', uows_committed, ' UOWs committed; synchpoint ',
            coalesce(synchpoint, 'none'), ', restart position ', coalesce(resync_position, 'none')
        ) as DESCRIPTION,
        cycle_number as CYCLE,
        run_id as RUN_ID
    from cycles
),

trace_rows as (
    select * from decision_rows
    union all
    select * from cycle_rows
)

select * from trace_rows
