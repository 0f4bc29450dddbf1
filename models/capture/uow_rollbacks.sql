{{ config(materialized='view', lakerep_built='declaration') }}

{#-
    UOWs that ended with a rollback: their CD rows never reach a CCD and are pruned by
    matching IBMSNAP_UOWID here. A view over the valid log, which validation lets end a UOW
    once (a stored copy would cost a write every cycle, and a cold start gains nothing from
    forgetting a rollback).
-#}

with

rollbacks as (
    select * from {{ ref('int_log_records_valid') }}
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
