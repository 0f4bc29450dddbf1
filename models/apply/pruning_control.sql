{{ config(materialized='table') }}

{#-
    The pruning control table (IBMSNAP_PRUNCNTL, SPEC §3): one row per subscription member with
    the SYNCHPOINT/SYNCHTIME it has reached: the synchpoint of the last cycle its set applied.
    SYNCHPOINT 0 means the member needs a full refresh (never copied, or `lakerep refresh`
    asked for one). Rebuilt every run from apply_plan and apply_trail, so it always agrees with
    the trail. Pruning reads it.
-#}

with

members as (
    select * from {{ ref('subscription_members') }}
),

applied as (
    select
        plan.target_table,
        max_by(plan.to_synchpoint, plan.apply_cycle) as synchpoint,
        max_by(plan.to_synchtime, plan.apply_cycle) as synchtime
    from {{ ref('apply_plan') }} as plan
    inner join {{ ref('apply_trail') }} as trail
        on
            plan.apply_cycle = trail.apply_cycle
            and plan.apply_qual = trail.apply_qual
            and plan.set_name = trail.set_name
    where trail.status = 'APPLIED' and plan.action in ('MIRROR', 'REFRESH', 'EXTERNAL_REFRESH')
    group by plan.target_table
),

refresh_requests as (
    select
        target_table,
        max(marked_at) as requested_at
    from {{ source('lakerep_raw', 'refresh_markers') }}
    where kind = 'refresh'
    group by target_table
),

served_requests as (
    select
        plan.target_table,
        max(markers.marked_at) as served_at
    from {{ ref('apply_plan') }} as plan
    inner join {{ ref('apply_trail') }} as trail
        on
            plan.apply_cycle = trail.apply_cycle
            and plan.apply_qual = trail.apply_qual
            and plan.set_name = trail.set_name
    inner join {{ source('lakerep_raw', 'refresh_markers') }} as markers on plan.marker_id = markers.marker_id
    where trail.status = 'APPLIED'
    group by plan.target_table
),

pruning_rows as (
    select
        'lakerep' as TARGET_SERVER,
        members.target_owner as TARGET_OWNER,
        members.target_table as TARGET_TABLE,
        case
            when applied.synchpoint is null then cast(null as timestamp)
            when refresh_requests.requested_at > coalesce(served_requests.served_at, timestamp '1900-01-01') then null
            else applied.synchtime
        end as SYNCHTIME,
        case
            when applied.synchpoint is null then '{{ lakerep_lowest_position() }}'
            when refresh_requests.requested_at > coalesce(served_requests.served_at, timestamp '1900-01-01')
                then '{{ lakerep_lowest_position() }}'
            else applied.synchpoint
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
    left join applied on members.target_table = applied.target_table
    left join refresh_requests on members.target_table = refresh_requests.target_table
    left join served_requests on members.target_table = served_requests.target_table
)

select * from pruning_rows
