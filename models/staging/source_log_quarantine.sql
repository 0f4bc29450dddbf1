{{
    config(
        materialized='incremental',
        incremental_strategy='append',
        on_schema_change='fail',
    )
}}

{#- Landed log records that failed validation, verbatim, with the reason. Nothing is dropped. -#}

with

checked as (
    select * from {{ ref('stg_source_log_checked') }}
    where
        quarantine_reason is not null
        and {{ lakerep_new_landing_batches() }}
),

quarantined as (
    select
        landing_batch,
        log_position,
        quarantine_reason,
        uow_id,
        record_type,
        source_owner,
        source_table,
        log_timestamp,
        auth_id,
        auth_token,
        before_image,
        after_image,
        landed_at
    from checked
)

select * from quarantined
