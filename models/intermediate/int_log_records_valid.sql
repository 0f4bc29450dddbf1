{{ config(materialized='view', lakerep_built='declaration') }}

{#-
    The staging contract of the source log (SPEC §2.1): the valid records, typed, one per log
    position, with what validation computed of them (int_log_records_judged): whether the table
    is registered, the key of the row changed, the cycle that judged the record. Capture reads
    this, never the landing table. The quarantined records are in source_log_quarantine.
-#}

with

judged as (
    select * from {{ ref('int_log_records_judged') }}
    where quarantine_reason is null
),

typed as (
    select
        normalized_position as log_position,
        uow_id,
        record_type,
        source_owner,
        source_table,
        parsed_timestamp as log_timestamp,
        auth_id,
        auth_token,
        before_image,
        after_image,
        is_registered_table,
        row_key,
        prior_key,
        uow_quarantine_reason,
        landing_batch,
        landed_at,
        capture_cycle
    from judged
)

select * from typed
