{{
    config(
        materialized='incremental',
        incremental_strategy='merge',
        unique_key='IBMSNAP_COMMITSEQ',
        lakerep_merge_floor='IBMSNAP_COMMITSEQ',
        lakerep_rows_never_change=true,
        lakerep_idempotent_append='session',
        on_schema_change='fail',
        pre_hook="{{ lakerep_discard_on_cold_start() }}",
    )
}}

{#-
    The unit-of-work table (IBMSNAP_UOW): one row per committed UOW that changed a registered
    table, from its commit record. Rolled-back UOWs never appear (see uow_rollbacks).
-#}

{%- set window = lakerep_capture_window() %}

with

log_records as (
    select * from {{ ref('stg_source_log') }}
),

commits as (
    select * from log_records
    where
        record_type = 'C'
        and {{ lakerep_in_session_read(window) }}
),

uows_with_registered_changes as (
    select distinct uow_id from log_records
    where
        is_registered_table
        and (
            {{ lakerep_in_session_read(window) }}
            or log_position >= {{ lakerep_string_literal(window.previous_resync_position) }}
        )
),

uow_rows as (
    select
        commits.uow_id as IBMSNAP_UOWID,
        commits.log_position as IBMSNAP_COMMITSEQ,
        commits.log_timestamp as IBMSNAP_LOGMARKER,
        coalesce(commits.auth_token, '') as IBMSNAP_AUTHTKN,
        coalesce(commits.auth_id, '') as IBMSNAP_AUTHID,
        '0' as IBMSNAP_REJ_CODE,
        '' as IBMSNAP_APPLY_QUAL,
        commits.landing_batch
    from commits
    inner join uows_with_registered_changes
        on commits.uow_id = uows_with_registered_changes.uow_id
)

select * from uow_rows
