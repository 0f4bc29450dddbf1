{{
    config(
        materialized='incremental',
        lakerep_stats_columns=['landing_batch', 'capture_cycle', 'snapshot_id', 'source_owner', 'source_table', 'quarantine_reason'],
    )
}}

{#-
    Every landed row of an unload (SPEC §2.5), verbatim, with the verdict of validation:
    quarantine_reason is null for a valid row. A snapshot is taken in whole or not at all: when
    one of its rows fails, or its rows disagree on the unload window, every row of it is held
    back, so a refresh never loads a partial unload. A snapshot is judged per landing batch (one
    landing of it), which also lets a filter on landing_batch reach the landing table.
    int_snapshot_rows_valid has the valid rows, source_snapshot_quarantine the others. Each
    valid row carries its key (row_key, as int_log_records_judged computes it), and its image the
    declared mapping of the values Spark's types cannot hold (lakerep_declared_values).
    Judged once, when it lands, by the capture cycle that reads it first (capture_cycle,
    capture_run_id, as int_log_records_judged: lakerep_snapshot_judging), so the cycles read
    verdicts instead of parsing every unload ever landed.
-#}

{%- set judging = lakerep_snapshot_judging() %}
{%- do lakerep_write_as(
    'append', txn={'app_id': 'lakerep-judge-snapshots', 'version': judging.cycle_number}
) if judging.judges else lakerep_write_as('skip', reason=judging.reason) %}

-- depends_on: {{ ref('stg_lakerep_raw__source_snapshot') }}
-- depends_on: {{ ref('stg_lakerep_raw__debezium_snapshot') }}

with

unloaded as (
    {{ lakerep_new_snapshot_rows(judging.after_batch, judging.get("up_to_batch")) }}
),

images as (
    select
        *,
        {{ lakerep_image_values('row_image') }} as landed_values,
        count(*) over (partition by snapshot_id, landing_batch) as rows_in_landing,
        {{ lakerep_registration_lookup() }}
    from unloaded
),

parsed as (
    select
        *,
        coalesce(declared_values, landed_values) as row_values
    from (select *, {{ lakerep_declared_values('landed_values') }} as declared_values from images)
),

row_checked as (
    select
        *,
        coalesce(mapping_reason, {{ lakerep_snapshot_quarantine_reason() }}) as row_reason
    from parsed
),

snapshot_checked as (
    select
        *,
        count_if(row_reason is not null) over snapshot_landing > 0 as has_rejected_rows,
        min(upper(unload_start_position)) over snapshot_landing
        < max(upper(unload_start_position)) over snapshot_landing
        or min(upper(unload_end_position)) over snapshot_landing
        < max(upper(unload_end_position)) over snapshot_landing as window_differs
    from row_checked
    window snapshot_landing as (partition by snapshot_id, landing_batch)
),

verdicts as (
    select
        snapshot_id,
        source_owner,
        source_table,
        unload_start_position,
        unload_end_position,
        row_image,
        declared_values,
        landing_batch,
        landed_at,
        coalesce(
            row_reason,
            case
                when window_differs then 'unload_window_differs'
                when has_rejected_rows then 'snapshot_incomplete'
            end
        ) as quarantine_reason,
        {{ lakerep_row_key('row_values') }} as row_key
    from snapshot_checked
),

judged as (
    select
        snapshot_id,
        source_owner,
        source_table,
        unload_start_position,
        unload_end_position,
        case
            when quarantine_reason is null and declared_values is not null then to_json(declared_values)
            else row_image
        end as row_image,
        landing_batch,
        landed_at,
        quarantine_reason,
        case when quarantine_reason is null then row_key end as row_key,
        cast({{ judging.cycle_number }} as bigint) as capture_cycle,
        {{ lakerep_string_literal(judging.run_id) }} as capture_run_id
    from verdicts
)

select * from judged
