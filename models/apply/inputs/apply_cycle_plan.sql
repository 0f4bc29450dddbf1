{#- Built by every cycle: which of the tables it reads exist decides its SQL. -#}
{{ config(materialized='view') }}

{#-
    The plan of the Apply cycle now running (SPEC §5): one row per subscription member, read
    after Capture's cycle has committed and before any target is touched (apply_changes writes
    it with the cycle's changes; apply_cycles keeps it with the trail). It decides what each
    member does, and every set is brought to one commit position, the global SYNCHPOINT:
      MIRROR            changes committed after the member's synchpoint;
      REFRESH           SYNCHPOINT 0 (a new member, or `lakerep refresh`) or a gap (changes
                        after its synchpoint are gone: CD_OLD_SYNCHPOINT passed it by pruning or
                        a Capture cold start): load the newest source snapshot that starts at or
                        after CD_OLD_SYNCHPOINT and ends by the set's synchpoint, then mirror;
      EXTERNAL_REFRESH  a refresh window marked by `lakerep mark-external-refresh`: mirror from it;
                        a window that starts before CD_OLD_SYNCHPOINT (a prune or a Capture cold
                        start after the marking) cannot be made consistent: the member needs a
                        refresh like a gap;
      GAP_ERROR         a refresh is needed but the source has DISABLE_REFRESH: the set stops;
      WAIT              a refresh is needed and no snapshot fits yet: the set waits.
    Changes committed at or before the refresh start are discarded; up to mitigate_through they
    pass the error-mitigation filter (the refresh end, or the synchpoint of a cycle that was cut
    off after touching targets: apply_changes holds its plan and apply_cycles no commit of it). A
    cycle is committed by its apply_cycles rows; members advance only with an APPLIED set.
-#}

{%- set history = lakerep_apply_history() %}
{%- set committed, changes, facts = history.committed, history.changes, history.get('facts') %}
{#- The highest committed Apply cycle, as a literal when the facts have it. #}
{%- set committed_cycle = (
    (facts.committed_cycle if facts.committed_cycle is not none else 0) if facts
    else '(select coalesce(max(apply_cycle), 0) from ' ~ committed ~ ')'
) if committed is not none else 0 %}

with

members as (
    select * from {{ ref('subscription_members') }}
),

capture_cycle as (
    {%- if facts %}
        select cast({{ facts.capture_cycle if facts.capture_cycle is not none else 'null' }} as bigint) as capture_cycle
    {%- else %}
        select max(cycle_number) as capture_cycle from {{ ref('capture_cycles') }}
        where record_kind = 'cycle'
    {%- endif %}
),

register_rows as (
    -- As literals when the facts have them: the register view reads capture_cycles in scalar
    -- subqueries, which Spark would run again at each of its references here.
    {%- if facts %}
        {{- lakerep_literal_rows([
            ('global_record', 'string'), ('source_owner', 'string'), ('source_table', 'string'),
            ('synchpoint', 'string'), ('synchtime', 'timestamp'), ('cd_old_synchpoint', 'string'),
            ('cd_new_synchpoint', 'string'),
        ], facts.register) }}
    {%- else %}
        select
            GLOBAL_RECORD,
            SOURCE_OWNER,
            SOURCE_TABLE,
            SYNCHPOINT,
            SYNCHTIME,
            CD_OLD_SYNCHPOINT,
            CD_NEW_SYNCHPOINT
        from {{ ref('register') }}
    {%- endif %}
),

set_synchpoint as (
    select
        coalesce(SYNCHPOINT, '{{ lakerep_lowest_position() }}') as to_synchpoint,
        SYNCHTIME as to_synchtime
    from register_rows
    where GLOBAL_RECORD = 'Y'
),

sources as (
    select
        SOURCE_OWNER as source_owner,
        SOURCE_TABLE as source_table,
        coalesce(CD_OLD_SYNCHPOINT, '{{ lakerep_lowest_position() }}') as cd_old_synchpoint,
        CD_NEW_SYNCHPOINT as cd_new_synchpoint
    from register_rows
    where GLOBAL_RECORD = 'N'
),

applied as (
    -- The plans that took effect: a member's row of a committed cycle whose set applied.
    {%- if committed is not none %}
        select
            apply_cycle,
            target_table,
            to_synchpoint,
            refresh_start,
            refresh_end,
            mitigate_through,
            marker_id
        from {{ committed }}
        where
            record_kind = 'member'
            and status = 'APPLIED'
            and action in ('MIRROR', 'REFRESH', 'EXTERNAL_REFRESH')
    {%- else %}
        select
            cast(null as bigint) as apply_cycle,
            cast(null as string) as target_table,
            cast(null as string) as to_synchpoint,
            cast(null as string) as refresh_start,
            cast(null as string) as refresh_end,
            cast(null as string) as mitigate_through,
            cast(null as string) as marker_id
        where false
    {%- endif %}
),

last_cycle as (
    -- The last Apply cycle that planned: committed, or cut off with its plan in apply_changes.
    select greatest(
        cast({{ committed_cycle }} as bigint),
        {%- if changes is not none and facts %}
            cast({{ facts.changes_cycle if facts.changes_cycle is not none else 0 }} as bigint)
        {%- elif changes is not none %}
            coalesce((select max(apply_cycle) from {{ changes }}), 0)
        {%- else %}
            cast(0 as bigint)
        {%- endif %}
    ) as apply_cycle
),

-- The last cycle planned (its plan in apply_changes) but committed nothing: the targets of its
-- applying sets may hold its changes already (a set that stopped or waited touched none).
cut_off_members as (
    {%- if changes is not none %}
        select
            changes.target_table,
            max(changes.to_synchpoint) as cut_off_synchpoint
        from {{ changes }} as changes
        where
            changes.row_action = 'plan'
            and changes.set_status = 'APPLIED'
            and changes.action in ('MIRROR', 'REFRESH', 'EXTERNAL_REFRESH')
            {%- if committed is not none %}
                and changes.apply_cycle > {{ committed_cycle }}
            {%- endif %}
        group by changes.target_table
    {%- else %}
        select
            cast(null as string) as target_table,
            cast(null as string) as cut_off_synchpoint
        where false
    {%- endif %}
),

cut_off as (
    select max(cut_off_synchpoint) as cut_off_synchpoint from cut_off_members
),

mitigations as (
    -- Up to where a member's changes may already be in its target, by every committed cycle's
    -- plan, applied or not: a cut-off cycle's mark outlives a retry that waited or stopped.
    {%- if committed is not none %}
        select
            target_table,
            max(mitigate_through) as mitigate_through
        from {{ committed }}
        where record_kind = 'member'
        group by target_table
    {%- else %}
        select
            cast(null as string) as target_table,
            cast(null as string) as mitigate_through
        where false
    {%- endif %}
),

member_state as (
    select
        target_table,
        max_by(to_synchpoint, apply_cycle) as synchpoint,
        max_by(refresh_start, apply_cycle) as refresh_start,
        max_by(refresh_end, apply_cycle) as refresh_end
    from applied
    group by target_table
),

pending_markers as (
    {{ lakerep_pending_markers('applied') }}
),

snapshots as (
    select
        snapshot_id,
        source_owner,
        source_table,
        min(unload_start_position) as unload_start_position,
        min(unload_end_position) as unload_end_position
    from {{ ref('int_snapshot_rows_valid') }}
    group by snapshot_id, source_owner, source_table
),

member_inputs as (
    select
        members.*,
        member_state.synchpoint,
        member_state.refresh_start as held_refresh_start,
        member_state.refresh_end as held_refresh_end,
        mitigations.mitigate_through as held_mitigate_through,
        cut_off_members.cut_off_synchpoint,
        sources.cd_old_synchpoint,
        sources.cd_new_synchpoint,
        pending_markers.marker_id,
        pending_markers.kind as marker_kind,
        pending_markers.refresh_start as marker_start,
        pending_markers.refresh_end as marker_end,
        -- Changes between an external window's start and CD_OLD_SYNCHPOINT are gone.
        coalesce(
            pending_markers.kind = 'external' and pending_markers.refresh_start < sources.cd_old_synchpoint, false
        ) as marker_window_gone
    from members
    left join member_state on members.target_table = member_state.target_table
    left join mitigations on members.target_table = mitigations.target_table
    left join cut_off_members on members.target_table = cut_off_members.target_table
    left join sources
        on members.source_owner = sources.source_owner and members.source_table = sources.source_table
    left join pending_markers on members.target_table = pending_markers.target_table
),

member_needs as (
    select
        member_inputs.*,
        case
            when marker_window_gone
                then concat(
                    'external refresh ', marker_id, ' from ', marker_start, ' starts before CD_OLD_SYNCHPOINT ',
                    cd_old_synchpoint,
                    ': the changes that make its unload consistent are gone (pruned, or a Capture cold start)'
                )
            when synchpoint is null then 'SYNCHPOINT 0: the member has never been copied'
            when marker_kind = 'refresh' then concat('full refresh requested by marker ', marker_id)
            when synchpoint < cd_old_synchpoint
                then concat(
                    'gap: changes committed after SYNCHPOINT ', synchpoint,
                    ' are gone from the CD and UOW tables (CD_OLD_SYNCHPOINT ', cd_old_synchpoint,
                    ': pruned past the member, a Capture cold start, or a transaction held back whole',
                    ' for a quarantined record)'
                )
        end as refresh_reason
    from member_inputs
),

-- From the members and their sources, not member_needs: Spark would plan the member state
-- (apply_plan's and apply_trail's history) once more for it.
fitting_snapshots as (
    select
        members.target_table,
        max_by(snapshots.snapshot_id, snapshots.unload_start_position) as snapshot_id,
        max(snapshots.unload_start_position) as unload_start_position,
        max_by(snapshots.unload_end_position, snapshots.unload_start_position) as unload_end_position
    from members
    inner join sources
        on members.source_owner = sources.source_owner and members.source_table = sources.source_table
    cross join set_synchpoint
    inner join snapshots
        on
            members.source_owner = snapshots.source_owner
            and members.source_table = snapshots.source_table
            and sources.cd_old_synchpoint <= snapshots.unload_start_position
            and set_synchpoint.to_synchpoint >= snapshots.unload_end_position
    group by members.target_table
),

member_actions as (
    select
        member_needs.*,
        fitting_snapshots.snapshot_id as fitting_snapshot_id,
        fitting_snapshots.unload_start_position as snapshot_start,
        fitting_snapshots.unload_end_position as snapshot_end,
        case
            when member_needs.marker_kind = 'external' and not member_needs.marker_window_gone then 'EXTERNAL_REFRESH'
            when member_needs.refresh_reason is null then 'MIRROR'
            when member_needs.disable_refresh then 'GAP_ERROR'
            when fitting_snapshots.snapshot_id is null then 'WAIT'
            else 'REFRESH'
        end as action
    from member_needs
    left join fitting_snapshots on member_needs.target_table = fitting_snapshots.target_table
),

planned as (
    select
        last_cycle.apply_cycle + 1 as apply_cycle,
        capture_cycle.capture_cycle,
        current_timestamp() as planned_at,
        member_actions.apply_qual,
        member_actions.set_name,
        member_actions.on_operational_error,
        member_actions.source_owner,
        member_actions.source_table,
        member_actions.target_table,
        member_actions.target_structure,
        member_actions.action,
        case member_actions.action
            when 'EXTERNAL_REFRESH'
                then concat(
                    'external refresh ', member_actions.marker_id, ' from ', member_actions.marker_start,
                    ' to ', member_actions.marker_end
                )
            when
                'REFRESH'
                then
                    concat(
                        member_actions.refresh_reason,
                        '; full refresh from snapshot ',
                        member_actions.fitting_snapshot_id
                    )
            when 'GAP_ERROR'
                then concat(
                    member_actions.refresh_reason, '; DISABLE_REFRESH is set for ', member_actions.source_owner, '.',
                    member_actions.source_table,
                    ': refresh the target by other means and run lakerep mark-external-refresh'
                )
            when 'WAIT'
                then concat(
                    member_actions.refresh_reason, '; waiting for a source snapshot that starts at or after ',
                    member_actions.cd_old_synchpoint, ' and ends by ', set_synchpoint.to_synchpoint
                )
        end as reason,
        member_actions.cd_new_synchpoint,
        member_actions.synchpoint as from_synchpoint,
        set_synchpoint.to_synchpoint,
        set_synchpoint.to_synchtime,
        case member_actions.action
            when 'REFRESH' then member_actions.snapshot_start
            when 'EXTERNAL_REFRESH' then member_actions.marker_start
            -- An external refresh can start past the synchpoint its cycle reached: discard up to it.
            else greatest(
                coalesce(member_actions.synchpoint, '{{ lakerep_lowest_position() }}'),
                coalesce(member_actions.held_refresh_start, '{{ lakerep_lowest_position() }}')
            )
        end as fetch_after,
        case when member_actions.action = 'REFRESH' then member_actions.fitting_snapshot_id end as snapshot_id,
        case member_actions.action
            when 'REFRESH' then member_actions.snapshot_start
            when 'EXTERNAL_REFRESH' then member_actions.marker_start
            else member_actions.held_refresh_start
        end as refresh_start,
        case member_actions.action
            when 'REFRESH' then member_actions.snapshot_end
            when 'EXTERNAL_REFRESH' then member_actions.marker_end
            else member_actions.held_refresh_end
        end as refresh_end,
        greatest(
            member_actions.held_mitigate_through,
            case member_actions.action
                when 'REFRESH' then member_actions.snapshot_end
                when 'EXTERNAL_REFRESH' then member_actions.marker_end
            end,
            member_actions.cut_off_synchpoint
        ) as mitigate_through,
        case when member_actions.action in ('REFRESH', 'EXTERNAL_REFRESH') then member_actions.marker_id end
            as marker_id
    from member_actions
    cross join last_cycle
    cross join capture_cycle
    cross join set_synchpoint
    cross join cut_off
),

with_set_action as (
    select
        planned.*,
        case
            when
                bool_or(planned.action = 'GAP_ERROR') over (partition by planned.apply_qual, planned.set_name)
                then 'GAP'
            when bool_or(planned.action = 'WAIT') over (partition by planned.apply_qual, planned.set_name) then 'WAIT'
            else 'APPLY'
        end as set_action
    from planned
),

last_committed as (
    -- The members' rows of the last committed Apply cycle: a plan like them, with nothing to
    -- fetch, changes nothing (the cycle writes nothing: apply_changes).
    {%- if committed is not none %}
        select target_table, action, set_action, to_synchpoint
        from {{ committed }}
        where
            record_kind = 'member'
            and apply_cycle = {{ committed_cycle }}
    {%- else %}
        select
            cast(null as string) as target_table,
            cast(null as string) as action,
            cast(null as string) as set_action,
            cast(null as string) as to_synchpoint
        where false
    {%- endif %}
),

plan_rows as (
    select
        with_set_action.*,
        last_committed.target_table is null
        or not (last_committed.action <=> with_set_action.action)
        or not (last_committed.set_action <=> with_set_action.set_action)
        or not (last_committed.to_synchpoint <=> with_set_action.to_synchpoint)
        or cut_off.cut_off_synchpoint is not null as plan_changed
    from with_set_action
    left join last_committed on with_set_action.target_table = last_committed.target_table
    cross join cut_off
)

select * from plan_rows
