{{
    config(
        materialized='incremental',
        lakerep_stats_columns=['record_kind', 'cycle_number', 'session_name', 'run_id', 'source_owner', 'source_table'],
    )
}}

{#-
    The control state of every completed capture cycle, written last, in one commit: the
    cycle's commit record (ADR 0011). Its rows (record_kind):
      cycle      one per cycle: the landing batches read, the figures (row changes, UOWs
                 committed), Capture's synchpoint (the last commit read), where the cycle
                 resynchronised (previous_resync_position, and which table said so:
                 resync_source) and where the next one does (resync_position: the begin of the
                 oldest UOW still in flight, else the highest position read, seed 002);
      source     one per registered source: its restart token pair after the cycle, which is the
                 CDC session's state (capture_state): RESTART1 the first change to the source of
                 a UOW still in flight, else the highest position read; RESTART2 the highest
                 commit read; and what Capture keeps of its register row: CD_NEW_SYNCHPOINT, the
                 commit position of the latest committed change captured, and CD_OLD_SYNCHPOINT,
                 the commit position after which every committed change is still captured as far
                 as Capture knows (the source's RESTART2 when first read; on a cold start, the
                 synchpoint Capture had reached; the commit of a UOW held back whole that
                 touched it, lakerep_held_records); pruning raises it too (register);
      in_flight  one per (UOW still open, source it changed): its first change to the source
                 (seq), the warm-start table's rows (warm_start).
    The views capture_state, register and warm_start show the latest cycle's rows; the history
    stays. A cycle with nothing to read that opens no run writes nothing (an idle `dbt run`).
-#}

{%- set window = lakerep_capture_window() %}
{%- set lowest = lakerep_lowest_position() %}
{%- set empty = window.up_to_batch <= window.after_batch and window.reread_from is none and not window.cold_start %}
{%- if empty and not window.decided and window.start_type != 'recover' %}
    {%- do lakerep_write_as('skip', reason='nothing read and no restart decided') %}
{%- endif %}
{#- A source's CD_OLD_SYNCHPOINT: as it was (its RESTART2 when first read); on a cold start, the
    synchpoint Capture had reached counts too. -#}
{%- set cd_old_synchpoint = (
    'greatest(placed.previous_cd_old_synchpoint, ' ~ lakerep_string_literal(window.previous_synchpoint)
    ~ ', placed.window_restart2)'
) if window.cold_start else 'coalesce(placed.previous_cd_old_synchpoint, placed.window_restart2)' %}
{#- The previous cycles' rows are this table's own (`this`, so unit tests can give them). -#}
{%- set previous = is_incremental() and window.last_cycle > 0 %}

-- depends_on: {{ ref('capture_window') }}
-- depends_on: {{ ref('captured_log') }}
-- depends_on: {{ ref('ccd_rows') }}

with

capture_window as (
    -- One row per source, as literals (lakerep_capture_window_rows): no view planned again.
    {{ lakerep_capture_window_rows(window) }}
),

records as (
    select
        log_position,
        uow_id,
        record_type,
        source_owner,
        source_table,
        log_timestamp,
        auth_id,
        auth_token,
        is_registered_table
    from {{ ref('int_log_records_valid') }}
    where {{ lakerep_in_session_read(window) }}
),

log_read as (
    select
        max(log_position) as highest_position_read,
        max(log_timestamp) as log_end_time,
        max(case when record_type = 'C' then log_position end) as commit_read,
        max_by(log_timestamp, case when record_type = 'C' then log_position end) as commit_time
    from records
),

previous_sources as (
    {%- if previous %}
        select
            source_owner,
            source_table,
            cd_old_synchpoint,
            cd_new_synchpoint
        from {{ this }}
        where cycle_number = {{ window.last_cycle }} and record_kind = 'source'
    {%- else %}
        select
            cast(null as string) as source_owner,
            cast(null as string) as source_table,
            cast(null as string) as cd_old_synchpoint,
            cast(null as string) as cd_new_synchpoint
        where false
    {%- endif %}
),

capture_window_synchtime as (
    select max(previous_synchtime) as previous_synchtime from capture_window
),

synchpoint_read as (
    -- greatest() skips nulls: the first cycle has no previous synchpoint, an empty window none.
    select
        greatest(log_read.commit_read, {{ lakerep_string_literal(window.previous_synchpoint) }}) as synchpoint,
        case
            when
                {{ lakerep_string_literal(window.previous_synchpoint) }} is null
                or log_read.commit_read > {{ lakerep_string_literal(window.previous_synchpoint) }}
                then log_read.commit_time
            else capture_window_synchtime.previous_synchtime
        end as synchtime,
        greatest(
            log_read.highest_position_read, {{ lakerep_string_literal(window.previous_highest_position) }}
        ) as highest_position_read,
        log_read.highest_position_read as highest_in_read,
        log_read.log_end_time
    from log_read
    cross join capture_window_synchtime
),

synchpoint as (
    -- With the source time up to which every committed transaction is captured: the newest
    -- record read (a transaction still open then had not committed at the source either), else,
    -- with nothing read, the synchpoint's commit time.
    select
        *,
        coalesce(log_end_time, synchtime) as applied_through_time
    from synchpoint_read
),

new_changes as (
    select
        uow_id,
        source_owner,
        source_table,
        min(log_position) as seq,
        min_by(auth_token, log_position) as auth_token,
        min_by(auth_id, log_position) as auth_id,
        min(log_timestamp) as uow_time
    from records
    where is_registered_table
    group by uow_id, source_owner, source_table
),

ended as (
    select distinct uow_id from records
    where record_type in ('C', 'R')
),

held_records as (
    {{ lakerep_held_records(window) }}
),

held_commits as (
    -- The commits read of UOWs held back whole (captured_log wrote none of their rows).
    select
        records.uow_id,
        records.log_position as commit_position
    from records
    left semi join held_records on records.uow_id = held_records.uow_id
    where records.record_type = 'C'
),

held_per_source as (
    -- Each registered table a held UOW touched, in any record of it: its members cannot move past
    -- the UOW's commit without it, so CD_OLD_SYNCHPOINT rises there and they are in a gap.
    select
        touched.source_owner,
        touched.source_table,
        max(held_commits.commit_position) as held_through
    from (
        select
            uow_id,
            source_owner,
            source_table
        from new_changes
        union all
        select
            uow_id,
            source_owner,
            source_table
        from ({{ lakerep_in_flight_uows(window, this if previous else none) }})
        union all
        select
            uow_id,
            source_owner,
            source_table
        from held_records
    ) as touched
    inner join held_commits on touched.uow_id = held_commits.uow_id
    group by touched.source_owner, touched.source_table
),

in_flight as (
    select
        either_side.uow_id,
        either_side.source_owner,
        either_side.source_table,
        min(either_side.seq) as seq,
        min_by(either_side.auth_token, either_side.seq) as auth_token,
        min_by(either_side.auth_id, either_side.seq) as auth_id,
        min(either_side.uow_time) as uow_time
    from (
        {{ lakerep_in_flight_uows(window, this if previous else none) }}
        union all
        select * from new_changes
    ) as either_side
    left anti join ended on either_side.uow_id = ended.uow_id
    group by either_side.uow_id, either_side.source_owner, either_side.source_table
),

captured as (
    select
        count_if(IBMSNAP_OPERATION != 'C') as row_changes,
        count_if(IBMSNAP_OPERATION = 'C') as uows_committed
    from {{ ref('captured_log') }}
    where capture_cycle = {{ window.cycle_number }}
),

committed_per_source as (
    -- The newest commit of each source's changes in the CCD rows this cycle wrote (a snapshot
    -- row's position is its unload's start, never a commit: IBMSNAP_INTENTSEQ = IBMSNAP_COMMITSEQ).
    select
        source_owner,
        source_table,
        max(IBMSNAP_COMMITSEQ) as newest_commitseq
    from {{ ref('ccd_rows') }}
    where capture_cycle = {{ window.cycle_number }} and IBMSNAP_INTENTSEQ != IBMSNAP_COMMITSEQ
    group by source_owner, source_table
),

-- The commit record's rows without the cycle's figures (one of each kind, each with what it
-- needs), which join the figures once at the end: Spark would compute them again for each kind.
detail_rows as (
    select
        'cycle' as record_kind,
        cast(null as string) as source_owner,
        cast(null as string) as source_table,
        cast(null as string) as window_restart1,
        cast(null as string) as window_restart2,
        cast(null as string) as restart_rule,
        cast(null as string) as reread_from,
        cast(null as string) as previous_cd_old_synchpoint,
        cast(null as string) as previous_cd_new_synchpoint,
        cast(null as string) as newest_commitseq,
        cast(null as string) as held_through,
        cast(null as string) as uow_id,
        cast(null as string) as seq,
        cast(null as string) as auth_token,
        cast(null as string) as auth_id,
        cast(null as timestamp) as uow_time
    union all
    select
        'source' as record_kind,
        capture_window.source_owner,
        capture_window.source_table,
        capture_window.restart1 as window_restart1,
        capture_window.restart2 as window_restart2,
        capture_window.restart_rule,
        capture_window.reread_from,
        previous_sources.cd_old_synchpoint as previous_cd_old_synchpoint,
        previous_sources.cd_new_synchpoint as previous_cd_new_synchpoint,
        committed_per_source.newest_commitseq,
        held_per_source.held_through,
        cast(null as string) as uow_id,
        cast(null as string) as seq,
        cast(null as string) as auth_token,
        cast(null as string) as auth_id,
        cast(null as timestamp) as uow_time
    from capture_window
    left join previous_sources
        on
            capture_window.source_owner = previous_sources.source_owner
            and capture_window.source_table = previous_sources.source_table
    left join committed_per_source
        on
            capture_window.source_owner = committed_per_source.source_owner
            and capture_window.source_table = committed_per_source.source_table
    left join held_per_source
        on
            capture_window.source_owner = held_per_source.source_owner
            and capture_window.source_table = held_per_source.source_table
    union all
    select
        'in_flight' as record_kind,
        in_flight.source_owner,
        in_flight.source_table,
        cast(null as string) as window_restart1,
        cast(null as string) as window_restart2,
        cast(null as string) as restart_rule,
        cast(null as string) as reread_from,
        cast(null as string) as previous_cd_old_synchpoint,
        cast(null as string) as previous_cd_new_synchpoint,
        cast(null as string) as newest_commitseq,
        cast(null as string) as held_through,
        in_flight.uow_id,
        in_flight.seq,
        in_flight.auth_token,
        in_flight.auth_id,
        in_flight.uow_time
    from in_flight
),

placed as (
    select
        *,
        -- The begin of the oldest UOW in flight, and of each source's (seq is an in_flight row's).
        min(seq) over () as oldest_in_flight,
        min(seq) over (partition by source_owner, source_table) as in_flight_restart1
    from detail_rows
),

cycle_facts as (
    select
        synchpoint.highest_position_read,
        synchpoint.synchpoint,
        synchpoint.synchtime,
        synchpoint.highest_in_read,
        captured.row_changes,
        captured.uows_committed,
        synchpoint.log_end_time,
        synchpoint.applied_through_time
    from synchpoint
    cross join captured
),

cycle_records as (
    select
        placed.record_kind,
        cast({{ window.cycle_number }} as bigint) as cycle_number,
        {{ lakerep_string_literal(window.session_name) }} as session_name,
        {{ lakerep_string_literal(window.run_id) }} as run_id,
        {{ lakerep_string_literal(window.start_type) }} as start_type,
        cast({{ window.after_batch }} as bigint) as after_batch,
        cast({{ window.up_to_batch }} as bigint) as up_to_batch,
        cycle_facts.highest_position_read,
        cycle_facts.synchpoint,
        cycle_facts.synchtime,
        -- Where the next cycle resynchronises (seed 002): the begin of the oldest UOW in flight,
        -- else the highest position read.
        coalesce(
            placed.oldest_in_flight,
            greatest(
                coalesce(cycle_facts.highest_in_read, '{{ lowest }}'),
                {{ lakerep_string_literal(window.previous_resync_position) }}
            )
        ) as resync_position,
        {{ lakerep_string_literal(window.previous_resync_position) }} as previous_resync_position,
        {{ lakerep_string_literal(window.resync_source) }} as resync_source,
        cycle_facts.row_changes,
        cycle_facts.uows_committed,
        current_timestamp() as completed_at,
        cycle_facts.log_end_time,
        cycle_facts.applied_through_time,
        -- The replica's staleness when Capture committed (the runner's cycle line measures it again
        -- when Apply is done).
        cast(
            (unix_micros(current_timestamp()) - unix_micros(cycle_facts.applied_through_time)) / 1000000 as double
        ) as lag_seconds,
        placed.source_owner,
        placed.source_table,
        case
            when placed.record_kind = 'source'
                then
                    coalesce(
                        placed.in_flight_restart1,
                        greatest(cycle_facts.highest_position_read, placed.window_restart1)
                    )
        end as restart1,
        case
            when placed.record_kind = 'source'
                then
                    greatest(cycle_facts.synchpoint, placed.window_restart2)
        end as restart2,
        placed.restart_rule,
        placed.reread_from,
        case
            when placed.record_kind = 'source'
                then greatest({{ cd_old_synchpoint }}, placed.held_through)
        end as cd_old_synchpoint,
        case
            when placed.record_kind = 'source'
                then
                    greatest(placed.previous_cd_new_synchpoint, placed.newest_commitseq)
        end as cd_new_synchpoint,
        placed.uow_id,
        placed.seq,
        placed.auth_token,
        placed.auth_id,
        placed.uow_time
    from placed
    cross join cycle_facts
)

select * from cycle_records
