{{ config(materialized='view', lakerep_built='declaration') }}

{#-
    The pruning control table (IBMSNAP_PRUNCNTL, SPEC §3): one row per subscription member with
    the SYNCHPOINT/SYNCHTIME it has reached: the synchpoint of the last cycle its set applied.
    SYNCHPOINT 0 means the member needs a full refresh (never copied, or `lakerep refresh`
    asked for one, from the moment it asks, as DB2 does). A view over apply_plan
    and the refresh markers, so it always agrees with the trail and no cycle writes it
    (issue 21: rebuilding it as a table cost every cycle about 3 s). Pruning reads it.
-#}

with

members as (
    select * from {{ ref('subscription_members') }}
),

applied as (
    select * from {{ ref('apply_plan') }}
    where set_status = 'APPLIED' and action in ('MIRROR', 'REFRESH', 'EXTERNAL_REFRESH')
),

member_state as (
    select
        target_table,
        max_by(to_synchpoint, apply_cycle) as synchpoint,
        max_by(to_synchtime, apply_cycle) as synchtime
    from applied
    group by target_table
),

pending_markers as (
    {{ lakerep_pending_markers('applied') }}
),

-- SYNCHPOINT 0: never copied, or a full refresh is asked for and not yet done.
needs_refresh as (
    select
        members.target_table,
        member_state.synchpoint is null or coalesce(pending_markers.kind = 'refresh', false) as needs_refresh
    from members
    left join member_state on members.target_table = member_state.target_table
    left join pending_markers on members.target_table = pending_markers.target_table
),

pruning_rows as (
    select
        'lakerep' as TARGET_SERVER,
        members.target_owner as TARGET_OWNER,
        members.target_table as TARGET_TABLE,
        case when not needs_refresh.needs_refresh then member_state.synchtime end as SYNCHTIME,
        case
            when needs_refresh.needs_refresh then '{{ lakerep_lowest_position() }}'
            else member_state.synchpoint
        end as SYNCHPOINT,
        members.source_owner as SOURCE_OWNER,
        members.source_table as SOURCE_TABLE,
        cast(0 as smallint) as SOURCE_VIEW_QUAL,
        members.apply_qual as APPLY_QUAL,
        members.set_name as SET_NAME,
        'lakerep' as CNTL_SERVER,
        members.structure_code as TARGET_STRUCTURE,
        'lakerep' as CNTL_ALIAS
    from members
    inner join needs_refresh on members.target_table = needs_refresh.target_table
    left join member_state on members.target_table = member_state.target_table
)

select * from pruning_rows
