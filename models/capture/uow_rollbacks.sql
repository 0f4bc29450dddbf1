{{ config(materialized='view') }}

{#-
    UOWs that ended with a rollback: their CD rows never reach a CCD and are pruned by
    matching IBMSNAP_UOWID here. A view over the valid log, which validation lets end a UOW
    once (issue 21: a stored copy cost a Delta merge every cycle, and a cold start gains nothing
    from forgetting a rollback).
-#}

with

rollbacks as (
    select * from {{ ref('stg_source_log') }}
    where record_type = 'R'
),

rollback_rows as (
    select
        uow_id as IBMSNAP_UOWID,
        log_position as rollback_position,
        log_timestamp as rollback_time,
        landing_batch
    from rollbacks
)

select * from rollback_rows
