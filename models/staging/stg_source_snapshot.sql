{{ config(materialized='view') }}

{#-
    Rows of unloaded source tables (SPEC §2.5), one per source row, with the log positions at
    which the unload started and ended: the valid snapshots only (stg_source_snapshot_checked).
    Complete CCDs and refresh read this.
-#}

with

checked as (
    select * from {{ ref('stg_source_snapshot_checked') }}
    where quarantine_reason is null
),

snapshot_rows as (
    select
        snapshot_id,
        source_owner,
        source_table,
        {{ lakerep_normalize_position('unload_start_position') }} as unload_start_position,
        {{ lakerep_normalize_position('unload_end_position') }} as unload_end_position,
        row_image,
        landing_batch,
        landed_at
    from checked
)

select * from snapshot_rows
