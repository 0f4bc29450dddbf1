{#- Built by every cycle: its SQL holds the run's token file overrides and session. -#}
{{ config(materialized='view') }}

{#-
    What a CDC session's restart decision starts from (SPEC §4): one row per registered source
    with the token file's explicit override for it, the special override, the session's state
    and the bounds of the source log. No rows for recover (it uses the state); restart_decisions
    also decides nothing while a cycle an earlier invocation opened waits to be finished.
-#}

{%- set run = lakerep_run() %}

with

sources as (
    {{ lakerep_registered_sources() }}
),

overrides as (
    select
        cast(null as string) as scope,
        cast(null as string) as source_owner,
        cast(null as string) as source_table,
        cast(null as string) as restart1,
        cast(null as string) as restart2
    where false
    {%- for override in run.overrides %}
        union all
        select
            {{ lakerep_string_literal(override.scope) }},
            {{ lakerep_string_literal(override.source_owner) }},
            {{ lakerep_string_literal(override.source_table) }},
            {{ lakerep_string_literal(override.restart1) }},
            {{ lakerep_string_literal(override.restart2) }}
    {%- endfor %}
),

special as (
    select
        restart1,
        restart2
    from overrides
    where scope = 'special'
),

state as (
    {{ lakerep_capture_state(run.session_name) }}
),

log_bounds as (
    select * from {{ ref('int_log_bounds') }}
),

candidates as (
    select
        {{ lakerep_string_literal(run.session_name) }} as session_name,
        {{ lakerep_string_literal(run.run_id) }} as run_id,
        {{ lakerep_string_literal(run.start_type) }} as start_type,
        sources.source_owner,
        sources.source_table,
        explicit.restart1 as explicit_restart1,
        explicit.restart2 as explicit_restart2,
        special.restart1 as special_restart1,
        special.restart2 as special_restart2,
        state.restart1 as state_restart1,
        state.restart2 as state_restart2,
        log_bounds.log_oldest_position,
        log_bounds.log_end_position
    from sources
    left join overrides as explicit
        on
            explicit.scope = 'explicit'
            and sources.source_owner = explicit.source_owner
            and sources.source_table = explicit.source_table
    left join special on true
    left join state
        on
            sources.source_owner = state.source_owner
            and sources.source_table = state.source_table
    cross join log_bounds
    where {{ 'false' if run.start_type == 'recover' else 'true' }}
)

select * from candidates
