{{
    config(
        materialized='incremental',
        incremental_strategy='append',
        on_schema_change='fail',
        lakerep_file_skipping=false,
    )
}}

{#-
    The capture cycles' windows, one row per (cycle, registered source); the cycle now running is
    the highest cycle_number, and every capture model reads its rows (lakerep_capture_window).
    A new cycle reads the landing batches after those of the last completed cycle (for recover:
    none). Each source reads them from its restart tokens: on the first cycle of a run, the
    run's restart decision; then the session's state. A source whose decided tokens differ from
    its state also reads again, from its RESTART1, what earlier batches hold (reread_from).
    While the last cycle is cut off (no commit record in capture_cycles), no row is added: this
    invocation finishes that cycle with its own window (recovery), except on a cold start.
    A refused restart stops here.
-#}

{%- set run = lakerep_run() %}
{%- set lowest = lakerep_lowest_position() %}
{%- do lakerep_stop_if_refused(run) %}

with

staged_batches as (
    select landing_batch from {{ ref('stg_source_log_checked') }}
    union all
    select landing_batch from {{ ref('stg_source_snapshot_checked') }}
),

staged as (
    select coalesce(max(landing_batch), 0) as highest_batch
    from staged_batches
),

last_cycle as (
    {{ lakerep_last_capture_cycle() }}
),

last_window as (
    {%- if is_incremental() %}
        select max(cycle_number) as cycle_number from {{ this }}
    {%- else %}
        select cast(null as bigint) as cycle_number
    {%- endif %}
),

resync as (
    {{ lakerep_resync_position() }}
),

run_started as (
    {%- if is_incremental() %}
        select count(*) > 0 as started from {{ this }}
        where
            run_id = {{ lakerep_string_literal(run.run_id) }}
            and session_name = {{ lakerep_string_literal(run.session_name) }}
    {%- else %}
        select false as started
    {%- endif %}
),

decisions as (
    select restart_decisions.*
    from {{ ref('restart_decisions') }} as restart_decisions
    cross join run_started
    where
        restart_decisions.session_name = {{ lakerep_string_literal(run.session_name) }}
        and restart_decisions.run_id = {{ lakerep_string_literal(run.run_id) }}
        and not run_started.started
),

new_cycle as (
    select
        coalesce(last_window.cycle_number, 0) + 1 as cycle_number,
        {{ lakerep_string_literal(run.session_name) }} as session_name,
        {{ lakerep_string_literal(run.run_id) }} as run_id,
        {{ lakerep_string_literal(run.start_type) }} as start_type,
        coalesce(last_cycle.up_to_batch, 0) as after_batch,
        {%- if run.start_type == 'recover' %}
            coalesce(last_cycle.up_to_batch, 0) as up_to_batch,
        {%- else %}
            greatest(staged.highest_batch, coalesce(last_cycle.up_to_batch, 0)) as up_to_batch,
        {%- endif %}
        resync.resync_position as previous_resync_position,
        resync.resync_source,
        coalesce((select max(decisions.cold_start) from decisions), false) as cold_start
    from staged
    cross join last_cycle
    cross join last_window
    cross join resync
    -- While the last window has no commit record the cycle was cut off, and this invocation
    -- finishes it; a cold start does no recovery: it begins a new cycle.
    where
        {{ 'true' if run.start_type == 'cold' else 'false' }}
        or coalesce(last_window.cycle_number, 0) <= coalesce(last_cycle.cycle_number, 0)
),

sources as (
    {{ lakerep_registered_sources() }}
),

state as (
    {{ lakerep_capture_state(run.session_name) }}
),

window_rows as (
    select
        new_cycle.*,
        sources.source_owner,
        sources.source_table,
        coalesce(decisions.restart1, state.restart1, '{{ lowest }}') as restart1,
        coalesce(decisions.restart2, state.restart2, '{{ lowest }}') as restart2,
        case
            when
                decisions.cold_start
                or state.restart1 is null
                or decisions.restart1 != state.restart1
                or decisions.restart2 != state.restart2
                then decisions.restart1
        end as reread_from,
        coalesce(decisions.restart_rule, 'state') as restart_rule
    from new_cycle
    cross join sources
    left join decisions
        on
            sources.source_owner = decisions.source_owner
            and sources.source_table = decisions.source_table
    left join state
        on
            sources.source_owner = state.source_owner
            and sources.source_table = state.source_table
)

select * from window_rows
