{{ config(materialized='incremental') }}

{#-
    The restart decisions (SPEC §3, §4): one row per (CDC session, source, run), made once, before
    the run's first cycle: the tokens each source starts from and the rule that chose them
    (lakerep_restart_rule). warm switches to a cold start when a restart point is no longer in
    the source log; warmns refuses instead, and warm and warmns refuse a restart point more than
    LAG_LIMIT minutes behind the end of the log. A refusal stops the run (capture_window). Each
    decision names the capture cycle it opens (cycle_number), which reads from its tokens. None is
    made while a cycle an earlier invocation opened waits to be finished (this invocation
    finishes it with that window, lakerep_cycle_opener_sql; the run decides in its next cycle),
    unless the start is cold (a cold start opens the cycle anew) or the cycle's decision was a
    refusal (the run decides again, and its decision is the one the window takes).
-#}

{%- set run = lakerep_run() %}
{%- set deferred = run.start_type == 'recover' or (
    run.start_type != 'cold' and execute and lakerep_cycle_opener().already_opened
    and not lakerep_cycle_opener().refused
) %}
{%- if lakerep_run_has_decided(run) %}
    {%- do lakerep_write_as('skip', reason='the run has decided') %}
{%- elif deferred %}
    {%- do lakerep_write_as('skip', reason='no decision due: a recover run, or a cycle opened earlier is finished first') %}
{%- endif %}
{%- set lag_limit_minutes = lakerep_whole_minutes_var('lag_limit') %}

with

candidates as (
    -- A literal filter, so the later cycles of a run that has decided read neither log; decided
    -- as the invocation began (the cycle's first writes follow in it).
    select * from {{ ref('restart_candidates') }}
    where {{ 'false' if lakerep_run_has_decided(run) or deferred else 'true' }}
),

session_wide as (
    select
        *,
        -- Oldest available: the oldest pair already assigned (explicit, else state).
        min(
            case
                when explicit_restart1 is not null then concat(explicit_restart1, explicit_restart2)
                else concat(state_restart1, state_restart2)
            end
        ) over (partition by session_name) as oldest_available,
        -- Oldest supplied: the oldest explicit pair.
        min(concat(explicit_restart1, explicit_restart2)) over (partition by session_name) as oldest_supplied,
        max(state_restart1 is not null) over (partition by session_name) as session_has_state
    from candidates
),

ruled as (
    select
        *,
        {{ lakerep_restart_rule("start_type != 'cold'") }} as warm_rule,
        {{ lakerep_restart_rule('false') }} as cold_rule
    from session_wide
),

tokens as (
    select
        *,
        {{ lakerep_restart_token('warm_rule', 'restart1') }} as warm_restart1,
        {{ lakerep_restart_token('warm_rule', 'restart2') }} as warm_restart2,
        {{ lakerep_restart_token('cold_rule', 'restart1') }} as cold_restart1,
        {{ lakerep_restart_token('cold_rule', 'restart2') }} as cold_restart2
    from ruled
),

pruned as (
    select
        *,
        coalesce(warm_restart1 < log_oldest_position, false) as restart_point_pruned,
        max(coalesce(warm_restart1 < log_oldest_position, false))
            over (partition by session_name) as session_restart_pruned
    from tokens
),

switched as (
    select
        *,
        start_type = 'cold' or (start_type = 'warm' and session_restart_pruned) as cold_start,
        start_type = 'warm' and session_restart_pruned as automatic_cold_start
    from pruned
),

decided as (
    select
        *,
        case when automatic_cold_start then 'automatic cold start' else warm_rule end as restart_rule,
        case
            when automatic_cold_start then greatest(cold_restart1, coalesce(log_oldest_position, cold_restart1))
            else warm_restart1
        end as restart1,
        case when automatic_cold_start then cold_restart2 else warm_restart2 end as restart2
    from switched
),

log_records as (
    select
        log_position,
        log_timestamp
    from {{ ref('int_log_records_valid') }}
),

restart_points as (
    -- The restart points a warm start reads from, ascending, as one row: the log is never joined
    -- with the sources by position, which would cost its records times the registered tables.
    select array_sort(collect_set(restart1)) as points
    from decided
    where start_type in ('warm', 'warmns') and not cold_start
),

log_by_point as (
    -- Each record lies between two neighbouring restart points: bucket b holds those at or after
    -- the b-th point and before the next (0: before every point).
    select
        log_records.log_position,
        log_records.log_timestamp,
        size(filter(restart_points.points, point -> point <= log_records.log_position)) as bucket
    from log_records
    cross join restart_points
),

first_per_bucket as (
    select
        bucket,
        min_by(log_timestamp, log_position) as first_time
    from log_by_point
    where bucket > 0
    group by bucket
),

point_times as (
    -- A point's first record is its own bucket's, else that of the next bucket holding one.
    select
        points.restart1,
        first(first_per_bucket.first_time, true) over (
            order by points.point_index rows between current row and unbounded following
        ) as restart_time
    from (select posexplode(points) as (point_index, restart1) from restart_points) as points
    left join first_per_bucket on points.point_index + 1 = first_per_bucket.bucket
),

restart_times as (
    -- Source time of the first record at or after each restart point, for LAG_LIMIT.
    select
        decided.source_owner,
        decided.source_table,
        point_times.restart_time
    from decided
    inner join point_times on decided.restart1 = point_times.restart1
    where decided.start_type in ('warm', 'warmns') and not decided.cold_start
),

log_end as (
    select max(log_timestamp) as log_end_time from log_records
),

skip_windows as (
    -- One row: the pairs with RESTART1 after RESTART2 that a token file or override supplied.
    select
        collect_list(named_struct(
            'source_owner', source_owner, 'source_table', source_table, 'restart1', restart1, 'restart2', restart2
        )) as windows
    from decided
    where
        restart1 > restart2
        and restart_rule in ('explicit override', 'special override', 'oldest supplied')
),

commits_in_windows as (
    select
        commits.uow_id,
        commits.log_position,
        explode(filter(
            skip_windows.windows,
            pair -> pair.restart2 < commits.log_position and pair.restart1 > commits.log_position
        )) as pair
    from {{ ref('int_log_records_valid') }} as commits
    cross join skip_windows
    where commits.record_type = 'C'
),

skipped_uows as (
    -- A token file's pair with RESTART1 after RESTART2 (the state's own pair is so when no UOW
    -- was in flight) is refused when a UOW that changed the source commits between the two:
    -- reading from RESTART1 would never see it, and RESTART2 does not say it was processed.
    select
        commits.pair.source_owner,
        commits.pair.source_table,
        count(distinct commits.uow_id) as uows,
        min(commits.log_position) as first_commit
    from commits_in_windows as commits
    inner join {{ ref('int_log_records_valid') }} as changes
        on
            commits.uow_id = changes.uow_id
            and commits.pair.source_owner = changes.source_owner
            and commits.pair.source_table = changes.source_table
            and changes.record_type in ('I', 'U', 'D')
    group by commits.pair.source_owner, commits.pair.source_table
),

lagged as (
    select
        decided.*,
        restart_times.restart_time,
        skipped_uows.uows as skipped_uows,
        skipped_uows.first_commit as first_skipped_commit,
        cast(
            floor((unix_timestamp(log_end.log_end_time) - unix_timestamp(restart_times.restart_time)) / 60)
            as bigint
        ) as lag_minutes
    from decided
    left join restart_times
        on
            decided.source_owner = restart_times.source_owner
            and decided.source_table = restart_times.source_table
    cross join log_end
    left join skipped_uows
        on
            decided.source_owner = skipped_uows.source_owner
            and decided.source_table = skipped_uows.source_table
),

decision_rows as (
    select
        cast({{ lakerep_cycle_opener().cycle_number if execute else 0 }} as bigint) as cycle_number,
        session_name,
        run_id,
        start_type,
        source_owner,
        source_table,
        restart1,
        restart2,
        restart_rule,
        cold_start,
        state_restart1,
        state_restart2,
        case
            when start_type = 'warmns' and restart_point_pruned
                then
                    concat(
                        'ASN0122E session ', session_name, ' cannot warm start: the restart point of ',
                        source_owner, '.', source_table, ' (RESTART1 ', warm_restart1,
                        ') is no longer in the source log, whose oldest position is ', log_oldest_position,
                        '; warmns never switches to a cold start. Start with --start cold (re-reads the log',
                        ' from its oldest position and discards the CD and UOW rows), or restore the pruned log'
                    )
            when skipped_uows > 0
                then
                    concat(
                        'ASN0124E session ', session_name, ' cannot start: the restart tokens of ', source_owner,
                        '.', source_table, ' (', restart_rule, ') have RESTART1 ', restart1, ' after RESTART2 ',
                        restart2, ', and ', skipped_uows, ' UOWs that changed it commit between the two (the first',
                        ' at ', first_skipped_commit, '): they would be skipped. Give a RESTART1 at or before',
                        ' their begin'
                    )
            when lag_minutes > {{ lag_limit_minutes }} then concat(
                'ASN0123E session ', session_name, ' cannot warm start: the restart point of ',
                source_owner, '.', source_table, ' (RESTART1 ', restart1, ', ', restart_time,
                ') is ', lag_minutes, ' minutes behind the end of the log, more than LAG_LIMIT (',
                {{ lag_limit_minutes }}, ' minutes). Start with --start cold, or raise lag_limit',
                ' (--vars "lag_limit: N")'
            )
        end as refusal,
        case
            when automatic_cold_start and restart_point_pruned
                then
                    concat(
                        'ASN0102W the restart point of ', source_owner, '.', source_table, ' (RESTART1 ',
                        warm_restart1, ') is no longer in the source log (oldest position ', log_oldest_position,
                        '): automatic cold start, reading from RESTART1 ', restart1, ', RESTART2 ', restart2
                    )
            else concat(
                'ASN0100I ', upper(start_type), ' start of session ', session_name, ': ', source_owner, '.',
                source_table, ' restarts at RESTART1 ', restart1, ', RESTART2 ', restart2, ' (', restart_rule, ')'
            )
        end as message,
        current_timestamp() as decided_at
    from lagged
)

select * from decision_rows
