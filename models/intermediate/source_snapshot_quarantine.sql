{{ config(materialized='view', lakerep_built='declaration') }}

{#-
    Landed rows of unloads that failed validation, verbatim, with the reason; nothing is dropped.
    Land the snapshot again, corrected, to use it.
-#}

with

checked as (
    select * from {{ ref('int_snapshot_rows_judged') }}
    where quarantine_reason is not null
),

quarantined as (
    select
        landing_batch,
        snapshot_id,
        quarantine_reason,
        source_owner,
        source_table,
        unload_start_position,
        unload_end_position,
        row_image,
        landed_at
    from checked
)

select * from quarantined
