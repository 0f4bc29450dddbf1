{{ config(materialized='view', lakerep_built='declaration') }}

{#-
    Rows of unloaded source tables (SPEC §2.5), one per source row, with the log positions at
    which the unload started and ended: the valid snapshots only (int_snapshot_rows_judged),
    each row with its key. Complete CCDs and refresh read this.
-#}

with

judged as (
    select * from {{ ref('int_snapshot_rows_judged') }}
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
        row_key,
        landing_batch,
        landed_at,
        capture_cycle
    from judged
)

select * from snapshot_rows
