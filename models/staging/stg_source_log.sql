{{ config(materialized='view') }}

{#-
    The staging contract of the source log (SPEC §2.1): valid records only, typed. Capture
    reads this, never the landing table. Quarantined records are in source_log_quarantine.
-#}

with

checked as (
    select * from {{ ref('stg_source_log_checked') }}
    where quarantine_reason is null
),

typed as (
    select
        normalized_position as log_position,
        uow_id,
        record_type,
        source_owner,
        source_table,
        {{ lakerep_parse_log_timestamp('log_timestamp') }} as log_timestamp,
        auth_id,
        auth_token,
        before_image,
        after_image,
        is_registered_table,
        landing_batch,
        landed_at
    from checked
)

select * from typed
