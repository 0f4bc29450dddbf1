{{ config(materialized='view', lakerep_built='declaration') }}

{#-
    The operator's view of each subscription set (`lakerep status`): its latest committed Apply
    cycle from apply_trail (status, synchpoint), the refreshes its members still wait for (the
    pending markers, by the rule apply_cycle_plan plans with: lakerep_pending_markers) and its
    exceptions. A view over what Apply keeps, so it costs a cycle nothing to write.
-#}

with

members as (
    select
        apply_qual,
        set_name,
        target_table
    from {{ ref('subscription_members') }}
),

trail as (
    select * from {{ ref('apply_trail') }}
),

applied as (
    select * from {{ ref('apply_plan') }}
    where set_status = 'APPLIED' and action in ('MIRROR', 'REFRESH', 'EXTERNAL_REFRESH')
),

pending_markers as (
    {{ lakerep_pending_markers('applied') }}
),

latest_trail as (
    select
        apply_qual,
        set_name,
        max(apply_cycle) as apply_cycle,
        max_by(status, apply_cycle) as status,
        max_by(synchpoint, apply_cycle) as synchpoint,
        max_by(synchtime, apply_cycle) as synchtime,
        max_by(description, apply_cycle) as description,
        max_by(completed_at, apply_cycle) as completed_at
    from trail
    group by apply_qual, set_name
),

exceptions as (
    select
        apply_qual,
        set_name,
        count(*) as exceptions
    from {{ ref('apply_exceptions') }}
    group by apply_qual, set_name
),

pending as (
    select
        members.apply_qual,
        members.set_name,
        count_if(pending_markers.kind = 'refresh') as pending_refreshes,
        count_if(pending_markers.kind = 'external') as pending_external_refreshes,
        array_sort(collect_list(
            case
                when pending_markers.kind is not null
                    then concat(members.target_table, ' (', pending_markers.kind, ')')
            end
        )) as pending_members
    from members
    left join pending_markers on members.target_table = pending_markers.target_table
    group by members.apply_qual, members.set_name
)

select
    pending.apply_qual,
    pending.set_name,
    latest_trail.apply_cycle,
    latest_trail.status,
    latest_trail.synchpoint,
    latest_trail.synchtime,
    latest_trail.description,
    latest_trail.completed_at,
    pending.pending_refreshes,
    pending.pending_external_refreshes,
    pending.pending_members,
    coalesce(exceptions.exceptions, 0) as exceptions
from pending
left join latest_trail
    on pending.apply_qual = latest_trail.apply_qual and pending.set_name = latest_trail.set_name
left join exceptions
    on pending.apply_qual = exceptions.apply_qual and pending.set_name = exceptions.set_name
