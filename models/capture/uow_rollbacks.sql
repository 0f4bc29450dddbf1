{{
    config(
        materialized='incremental',
        incremental_strategy='merge',
        unique_key='IBMSNAP_UOWID',
        on_schema_change='fail',
        pre_hook="{{ lakerep_discard_on_cold_start() }}",
    )
}}

{#-
    UOWs that ended with a rollback: their CD rows never reach a CCD and are pruned by
    matching IBMSNAP_UOWID here.
-#}

{%- set window = lakerep_capture_window() %}

with

rollbacks as (
    select * from {{ ref('stg_source_log') }}
    where
        record_type = 'R'
        and {{ lakerep_in_session_read(window) }}
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
