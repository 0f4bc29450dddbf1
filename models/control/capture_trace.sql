{{
    config(
        materialized='incremental',
        incremental_strategy='append',
        on_schema_change='fail',
    )
}}

{#-
    The trace table (IBMSNAP_TRACE): one row per event. A run's restart decision per source
    (WARM, COLD, or ERROR when the start was refused) and a CAPTURE row per completed cycle.
    A refused start stops the run before this model; its ERROR rows come with the next run.
-#}

with

new_decisions as (
    select * from {{ ref('restart_decisions') }}
    {% if is_incremental() %}
        where run_id not in (
            select traced.RUN_ID from {{ this }} as traced
            where traced.OPERATION != 'CAPTURE'
        )
    {% endif %}
),

new_cycles as (
    select distinct
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
    {% if is_incremental() %}
        where cycle_number > (select coalesce(max(traced.CYCLE), 0) from {{ this }} as traced)
    {% endif %}
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
    from new_decisions
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
    from new_cycles
),

trace_rows as (
    select * from decision_rows
    union all
    select * from cycle_rows
)

select * from trace_rows
