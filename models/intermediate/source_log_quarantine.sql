{{ config(materialized='view', lakerep_built='declaration') }}

{#-
    Landed log records that failed validation, verbatim, with the reason. Nothing is dropped.
    A view: int_log_records_judged keeps every verdict, so a copy would cost a Delta write every
    cycle for nothing (issue 21); Delta's null counts skip the files without a quarantined record.
-#}

with

checked as (
    select * from {{ ref('int_log_records_judged') }}
    where quarantine_reason is not null
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
