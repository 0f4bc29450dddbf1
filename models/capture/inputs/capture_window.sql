{#- Built by every cycle: its SQL holds the run (vars) and which of the tables it reads exist. -#}
{{ config(materialized='view') }}

{#-
    The window of the capture cycle this invocation runs, one row per registered source: which
    cycle (the one after the last completed), which run opened it (lakerep_cycle_opener), the
    landing batches it reads (after_batch < landing_batch <= up_to_batch: what the cycle judged
    when it began), where the previous cycle left Capture (previous_resync_position: the begin of
    the oldest UOW still open then, seed 002), and each source's restart tokens: on the first
    cycle of a run, the run's restart decision for the cycle; then the session's state. A source
    whose decided tokens differ from its state reads again, from its RESTART1, what earlier
    batches hold (reread_from); a cold start reads everything again. A cycle an earlier
    invocation opened and left without its commit record is finished with its own window: the
    same batches and tokens, so it writes nothing twice. Every capture model reads these rows as
    literals, once per invocation (lakerep_capture_window). A refused restart stops here.
-#}

{%- set run = lakerep_run() %}
{%- set lowest = lakerep_lowest_position() %}
{%- do lakerep_stop_if_refused(run) %}
{%- set cycles = lakerep_control_relation('capture_cycles') %}
{%- set captured = lakerep_control_relation('captured_log', schema='capture') %}
{%- set probes = captured is not none and execute and lakerep_cycle_opener().last_cycle == 0 %}

with

opener as (
    -- As literals: the opener as this invocation found it (lakerep_cycle_opener). Its SQL names
    -- the control tables in scalar subqueries that Spark would run again at every reference.
    {%- if execute %}
        {%- set found = lakerep_cycle_opener() %}
        select
            cast({{ found.cycle_number }} as bigint) as cycle_number,
            cast({{ found.last_cycle }} as bigint) as last_cycle,
            cast({{ found.after_batch }} as bigint) as after_batch,
            {{ lakerep_string_literal(found.run_id) }} as run_id,
            {{ lakerep_string_literal(found.session_name) }} as session_name,
            {{ lakerep_string_literal(found.start_type) }} as start_type
    {%- else %}
        -- (parsing: no lake to ask)
        select
            cast(null as bigint) as cycle_number,
            cast(null as bigint) as last_cycle,
            cast(null as bigint) as after_batch,
            cast(null as string) as run_id,
            cast(null as string) as session_name,
            cast(null as string) as start_type
    {%- endif %}
),

judged as (
    -- The highest landing batch judged: of this cycle's, or an earlier one's (each aggregate is
    -- answered from Delta's file statistics).
    select greatest(
        (select max(landing_batch) from {{ ref('int_log_records_judged') }}),
        (select max(landing_batch) from {{ ref('int_snapshot_rows_judged') }})
    ) as highest_batch
),

previous_cycle as (
    {%- if cycles is not none %}
        select
            cycles.record_kind,
            cycles.highest_position_read,
            cycles.synchpoint,
            cycles.synchtime,
            cycles.resync_position,
            cycles.seq
        from {{ cycles }} as cycles
        inner join opener on cycles.cycle_number = opener.last_cycle
        where
            cycles.record_kind in ('cycle', 'in_flight')
            {%- if execute %}
                -- the same, as a literal Delta can skip files by
                and cycles.cycle_number = {{ lakerep_cycle_opener().last_cycle }}
            {%- endif %}
    {%- else %}
        select
            cast(null as string) as record_kind,
            cast(null as string) as highest_position_read,
            cast(null as string) as synchpoint,
            cast(null as timestamp) as synchtime,
            cast(null as string) as resync_position,
            cast(null as string) as seq
        where false
    {%- endif %}
),

previous as (
    -- What the last cycle left, from one read of its rows, and where this cycle resynchronises
    -- (seed 002), in its order: the warm-start rows of the last cycle (its UOWs in flight, else
    -- the row without a UOW: its resync position), the register's SYNCHPOINT (the cycle's), the
    -- UOW table's highest commit, the CD tables' highest position; else the lowest position.
    select
        case
            when in_flight_seq is not null then in_flight_seq
            when resync_position is not null then resync_position
            when synchpoint is not null then synchpoint
            {%- if probes %}
                when highest_commit is not null then highest_commit
                when highest_change is not null then highest_change
            {%- endif %}
            else '{{ lowest }}'
        end as resync_position,
        case
            when in_flight_seq is not null or resync_position is not null then 'warm start table'
            when synchpoint is not null then 'register'
            {%- if probes %}
                when highest_commit is not null then 'uow table'
                when highest_change is not null then 'cd tables'
            {%- endif %}
            else 'none'
        end as resync_source,
        previous_highest_position,
        synchpoint as previous_synchpoint,
        previous_synchtime
    from (
        select
            min(case when record_kind = 'in_flight' then seq end) as in_flight_seq,
            max(case when record_kind = 'cycle' then resync_position end) as resync_position,
            max(case when record_kind = 'cycle' then synchpoint end) as synchpoint,
            max(case when record_kind = 'cycle' then highest_position_read end) as previous_highest_position,
            max(case when record_kind = 'cycle' then synchtime end) as previous_synchtime
        from previous_cycle
    ) as last_rows
    {%- if probes %}
        -- Probed only on a lake with no cycle completed: a statement over the captured log otherwise.
        cross join (
            select
                max(case when IBMSNAP_OPERATION = 'C' then IBMSNAP_INTENTSEQ end) as highest_commit,
                max(IBMSNAP_INTENTSEQ) as highest_change
            from {{ captured }}
        ) as probed
    {%- endif %}
),

decisions as (
    -- The cycle's decision: the opener's, or a later one this run made for it (a cold start
    -- opens a cycle anew; a run after a refusal decides again): the latest of the two runs'.
    select *
    from (
        select
            restart_decisions.*,
            max_by(restart_decisions.run_id, restart_decisions.decided_at) over () as deciding_run
        from {{ ref('restart_decisions') }} as restart_decisions
        inner join opener
            on
                restart_decisions.cycle_number = opener.cycle_number
                and restart_decisions.run_id in (opener.run_id, {{ lakerep_string_literal(run.run_id) }})
        {%- if execute %}
            where restart_decisions.cycle_number = {{ lakerep_cycle_opener().cycle_number }}
        {%- endif %}
    ) as cycle_decisions
    where run_id = deciding_run
),

decided as (
    select
        coalesce(max(cold_start), false) as cold_start,
        count(*) > 0 as decided
    from decisions
),

sources as (
    {{ lakerep_registered_sources() }}
),

state as (
    -- The opener's session only (the join below asks for no other).
    {{ lakerep_capture_state(lakerep_cycle_opener().session_name if execute else none) }}
),

window_rows as (
    select
        opener.cycle_number,
        opener.last_cycle,
        opener.session_name,
        opener.run_id,
        opener.start_type,
        opener.after_batch,
        greatest(opener.after_batch, coalesce(judged.highest_batch, 0)) as up_to_batch,
        previous.resync_position as previous_resync_position,
        previous.resync_source,
        previous.previous_highest_position,
        previous.previous_synchpoint,
        previous.previous_synchtime,
        decided.cold_start,
        decided.decided,
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
    from opener
    cross join judged
    cross join previous
    cross join decided
    cross join sources
    left join decisions
        on
            sources.source_owner = decisions.source_owner
            and sources.source_table = decisions.source_table
    left join state
        on
            opener.session_name = state.session_name
            and sources.source_owner = state.source_owner
            and sources.source_table = state.source_table
)

select * from window_rows
