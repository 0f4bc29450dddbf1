{{
    config(
        materialized='incremental',
        incremental_strategy='append',
        on_schema_change='fail',
        lakerep_file_skipping=false,
    )
}}

{#-
    The Apply cycle's plan (SPEC §5): one row per subscription member per cycle, appended after
    Capture's cycle has committed and before any target is touched. It decides what each member
    does, and every set is brought to one commit position, the global SYNCHPOINT:
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
    off after touching targets). A cycle is committed by its apply_trail rows; members advance
    only with an APPLIED trail row of their set.
-#}

{%- set trail = lakerep_control_relation('apply_trail', schema='apply') %}

with

members as (
    select * from {{ ref('subscription_members') }}
),

capture_cycle as (
    select max(cycle_number) as capture_cycle from {{ ref('capture_cycles') }}
),

set_synchpoint as (
    select
        coalesce(SYNCHPOINT, '{{ lakerep_lowest_position() }}') as to_synchpoint,
        SYNCHTIME as to_synchtime
    from {{ ref('register') }}
    where GLOBAL_RECORD = 'Y'
),

sources as (
    select
        SOURCE_OWNER as source_owner,
        SOURCE_TABLE as source_table,
        coalesce(CD_OLD_SYNCHPOINT, '{{ lakerep_lowest_position() }}') as cd_old_synchpoint
    from {{ ref('register') }}
    where GLOBAL_RECORD = 'N'
),

previous_plans as (
    {{ lakerep_rows_already_held([
        ['apply_cycle', 'apply_cycle', 'bigint'],
        ['apply_qual', 'apply_qual', 'string'],
        ['set_name', 'set_name', 'string'],
        ['target_table', 'target_table', 'string'],
        ['action', 'action', 'string'],
        ['to_synchpoint', 'to_synchpoint', 'string'],
        ['refresh_start', 'refresh_start', 'string'],
        ['refresh_end', 'refresh_end', 'string'],
        ['mitigate_through', 'mitigate_through', 'string'],
        ['marker_id', 'marker_id', 'string'],
    ]) }}
),

committed_sets as (
    {% if trail is not none %}
        select
            apply_cycle,
            apply_qual,
            set_name,
            status
        from {{ trail }}
    {% else %}
        select
            cast(null as bigint) as apply_cycle,
            cast(null as string) as apply_qual,
            cast(null as string) as set_name,
            cast(null as string) as status
        where false
    {% endif %}
),

last_cycle as (
    select coalesce(max(apply_cycle), 0) as apply_cycle from previous_plans
),

-- The last cycle wrote targets but no trail: its changes may be in the targets already.
cut_off as (
    select max(previous_plans.to_synchpoint) as cut_off_synchpoint
    from previous_plans
    inner join last_cycle on previous_plans.apply_cycle = last_cycle.apply_cycle
    where
        previous_plans.action in ('MIRROR', 'REFRESH', 'EXTERNAL_REFRESH')
        and not exists (
            select 1 from committed_sets
            where committed_sets.apply_cycle = last_cycle.apply_cycle
        )
),

applied as (
    {{ lakerep_applied_plans('previous_plans', 'committed_sets') }}
),

member_state as (
    select
        target_table,
        max_by(to_synchpoint, apply_cycle) as synchpoint,
        max_by(refresh_start, apply_cycle) as refresh_start,
        max_by(refresh_end, apply_cycle) as refresh_end,
        max(mitigate_through) as mitigate_through
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
    from {{ ref('stg_source_snapshot') }}
    group by snapshot_id, source_owner, source_table
),

member_inputs as (
    select
        members.*,
        member_state.synchpoint,
        member_state.refresh_start as held_refresh_start,
        member_state.refresh_end as held_refresh_end,
        member_state.mitigate_through as held_mitigate_through,
        sources.cd_old_synchpoint,
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
                    ': pruned past the member, or a Capture cold start)'
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
            cut_off.cut_off_synchpoint
        ) as mitigate_through,
        case when member_actions.action in ('REFRESH', 'EXTERNAL_REFRESH') then member_actions.marker_id end
            as marker_id
    from member_actions
    cross join last_cycle
    cross join capture_cycle
    cross join set_synchpoint
    cross join cut_off
),

plan_rows as (
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
)

select * from plan_rows
