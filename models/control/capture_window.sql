{{ config(materialized='table') }}

{#-
    What this capture cycle reads: the landing batches (of log records and of snapshots, which
    share one numbering) after those of the last completed cycle, up to the highest one now. A cycle cut off before capture_cycles recorded it is
    read again whole by the next one; every capture model merges, so nothing doubles.
-#}

with

staged_batches as (
    select landing_batch from {{ ref('stg_source_log_checked') }}
    union all
    select landing_batch from {{ ref('stg_source_snapshot') }}
),

staged as (
    select coalesce(max(landing_batch), 0) as highest_batch
    from staged_batches
),

last_cycle as (
    {{ lakerep_last_capture_cycle() }}
),

capture_window as (
    select
        coalesce(last_cycle.cycle_number, 0) + 1 as cycle_number,
        coalesce(last_cycle.up_to_batch, 0) as after_batch,
        greatest(staged.highest_batch, coalesce(last_cycle.up_to_batch, 0)) as up_to_batch,
        coalesce(last_cycle.resync_position, '00000000000000000000') as previous_resync_position
    from staged
    cross join last_cycle
)

select * from capture_window
