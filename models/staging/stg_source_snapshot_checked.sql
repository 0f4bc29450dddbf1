{{
    config(
        materialized='incremental',
        incremental_strategy='append',
        on_schema_change='fail',
        lakerep_writes_if='snapshots_landed',
    )
}}

{#-
    Every landed row of an unload (SPEC §2.5), verbatim, with the verdict of validation:
    quarantine_reason is null for a valid row. A snapshot is taken in whole or not at all: when
    one of its rows fails, or its rows disagree on the unload window, every row of it is held
    back, so a refresh never loads a partial unload. A snapshot is judged per landing batch (one
    landing of it), which also lets a filter on landing_batch reach the landing table.
    stg_source_snapshot has the valid rows, source_snapshot_quarantine the others.
    Judged once, when it lands: appended in the cycles with a new unload (lakerep_snapshots_landed),
    so the cycles read verdicts instead of parsing every unload ever landed (issue 21), as
    stg_source_log_checked holds the log's.
-#}

{%- set judged_batch = lakerep_snapshot_batches().judged %}

-- depends_on: {{ ref('stg_debezium_snapshot') }}

with

unloaded as (
    {#- Debezium's snapshot reads join once `lakerep land` has made their table (ADR 0009). -#}
    select
        *,
        cast(null as string) as mapping_reason
    from {{ source('lakerep_raw', 'source_snapshot') }}
    where landing_batch > {{ judged_batch }}
    {%- if lakerep_debezium_events_relation() is not none %}
        union all
        select
            snapshot_id,
            source_owner,
            source_table,
            unload_start_position,
            unload_end_position,
            row_image,
            landing_batch,
            landed_at,
            mapping_reason
        from {{ ref('stg_debezium_snapshot') }}
        where landing_batch > {{ judged_batch }}
    {%- endif %}
),

parsed as (
    select
        *,
        {{ lakerep_image_values('row_image') }} as row_values,
        count(*) over (partition by snapshot_id, landing_batch) as rows_in_landing,
        {{ lakerep_registration_lookup() }}
    from unloaded
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
        landing_batch,
        landed_at,
        coalesce(
            row_reason,
            case
                when window_differs then 'unload_window_differs'
                when has_rejected_rows then 'snapshot_incomplete'
            end
        ) as quarantine_reason
    from snapshot_checked
)

select * from verdicts
