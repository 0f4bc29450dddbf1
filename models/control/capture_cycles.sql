{{
    config(
        materialized='incremental',
        incremental_strategy='append',
        on_schema_change='fail',
    )
}}

{#-
    One row per completed capture cycle, written last: the cycle's commit record. The next
    cycle's window starts after up_to_batch and reads CD rows from resync_position. A cycle cut
    off before this row is written is read again whole by the next run.
-#}

{%- set window = lakerep_capture_window() %}
{#- Refs every CD and CCD: this row is written only after all of them. #}
{%- set registered_models = lakerep_registered_models() %}

with

capture_window as (
    select * from {{ ref('capture_window') }}
),

global_record as (
    select
        SYNCHPOINT as capture_synchpoint,
        SYNCHTIME as capture_synchtime
    from {{ ref('register') }}
    where GLOBAL_RECORD = 'Y'
),

resync as (
    select min(SEQ) as resync_position from {{ ref('warm_start') }}
),

uows_committed as (
    select count(*) as uows_committed from {{ ref('uow') }}
    where {{ lakerep_in_capture_window(window) }}
),

row_changes as (
    select sum(cd_changes) as row_changes
    from (
        {% for entry in registered_models %}
            select count(*) as cd_changes from {{ entry.cd }}
            where
                {{ lakerep_in_capture_window(window) }}
            {{ 'union all' if not loop.last }}
        {% endfor %}
    ) as per_table
),

cycle_row as (
    select
        capture_window.cycle_number,
        capture_window.after_batch,
        capture_window.up_to_batch,
        global_record.capture_synchpoint as synchpoint,
        global_record.capture_synchtime as synchtime,
        resync.resync_position,
        coalesce(row_changes.row_changes, 0) as row_changes,
        uows_committed.uows_committed,
        current_timestamp() as completed_at
    from capture_window
    cross join global_record
    cross join resync
    cross join row_changes
    cross join uows_committed
)

select * from cycle_row
