{{
    config(
        materialized='incremental',
        lakerep_stats_columns=['apply_cycle', 'target_table', 'row_action'],
    )
}}

{#-
    Every member's part of the Apply cycle now running (SPEC §5), in one table (ADR 0011), before
    any target is touched: one plan row per member (row_action 'plan': apply_cycle_plan's
    decision, and its set's status for the cycle), and the rows each member with work does to its
    target (lakerep_member_changes: inserts, updates, deletes, loads, appends, each with its row
    image and key). The set's status: GAP (a member needs a refresh its source's DISABLE_REFRESH
    forbids), WAITING (a member waits for a source snapshot), STOPPED (an operational error
    outside a refresh window, in a set whose policy is stop), else APPLIED; targets are written
    only in an APPLIED cycle. The table holds the current cycle only: each cycle replaces it. A
    member has work when its plan loads a snapshot or a refresh window, or it mirrors in an
    applying set and its source has a change committed after what the member fetched (the
    register's CD_NEW_SYNCHPOINT): the others read nothing. A cycle in which no member has work
    and no plan differs from the last committed one (apply_cycle_plan's plan_changed: nothing
    captured since, no refresh asked) writes nothing.
-#}

{%- set plans = lakerep_current_plan_rows() %}
{%- set members = lakerep_members() %}
{%- set working = [] %}
{%- for member in members %}
    {%- for plan in plans if plan.target_table == member.target_table and lakerep_plan_has_work(plan) %}
        {%- do working.append({'member': member, 'plan': plan}) %}
    {%- endfor %}
{%- endfor %}
{%- if execute and not working and not (plans | selectattr('plan_changed') | list) %}
    {%- do lakerep_write_as('skip', reason='no member can change since the last Apply cycle') %}
{%- else %}
    {%- do lakerep_write_as('overwrite') %}
{%- endif %}

-- depends_on: {{ ref('apply_cycle_plan') }}
-- depends_on: {{ ref('captured_log') }}
-- depends_on: {{ ref('int_snapshot_rows_valid') }}

with

plan as (
    -- The plan rows as literals (read once per invocation): no view planned again.
    {{ lakerep_plan_rows_sql(plans) }}
),

member_changes as (
    select
        cast(null as string) as target_table,
        cast(null as string) as row_action,
        cast(null as string) as first_operation,
        cast(null as int) as change_count,
        cast(null as boolean) as reworked,
        cast(null as string) as operational_error,
        cast(null as string) as first_change,
        cast(null as string) as IBMSNAP_COMMITSEQ,
        cast(null as string) as IBMSNAP_INTENTSEQ,
        cast(null as string) as IBMSNAP_OPERATION,
        cast(null as timestamp) as IBMSNAP_LOGMARKER,
        cast(null as string) as row_key,
        cast(null as string) as row_image
    where false
    {%- for work in working %}
        union all
        {{ lakerep_member_changes(work.member, work.plan) }}
    {%- endfor %}
),

-- The plan rows and the change rows in one union, so the members' changes are read once: each
-- row's member and set figures come from windows over it, not from aggregates joined back.
member_and_plan_rows as (
    select
        plan.apply_cycle,
        plan.target_table,
        plan.apply_qual,
        plan.set_name,
        'plan' as row_action,
        cast(null as string) as first_operation,
        cast(null as int) as change_count,
        cast(null as boolean) as reworked,
        cast(null as string) as operational_error,
        cast(null as string) as first_change,
        cast(null as string) as IBMSNAP_COMMITSEQ,
        cast(null as string) as IBMSNAP_INTENTSEQ,
        cast(null as string) as IBMSNAP_OPERATION,
        cast(null as timestamp) as IBMSNAP_LOGMARKER,
        cast(null as string) as row_key,
        cast(null as string) as row_image,
        plan.capture_cycle,
        plan.planned_at,
        plan.on_operational_error,
        plan.source_owner,
        plan.source_table,
        plan.target_structure,
        plan.action,
        plan.reason,
        plan.from_synchpoint,
        plan.to_synchpoint,
        plan.to_synchtime,
        plan.fetch_after,
        plan.snapshot_id,
        plan.refresh_start,
        plan.refresh_end,
        plan.mitigate_through,
        plan.marker_id,
        plan.set_action
    from plan
    union all
    select
        plan.apply_cycle,
        member_changes.target_table,
        plan.apply_qual,
        plan.set_name,
        member_changes.row_action,
        member_changes.first_operation,
        member_changes.change_count,
        member_changes.reworked,
        member_changes.operational_error,
        member_changes.first_change,
        member_changes.IBMSNAP_COMMITSEQ,
        member_changes.IBMSNAP_INTENTSEQ,
        member_changes.IBMSNAP_OPERATION,
        member_changes.IBMSNAP_LOGMARKER,
        member_changes.row_key,
        member_changes.row_image,
        cast(null as bigint) as capture_cycle,
        cast(null as timestamp) as planned_at,
        cast(null as string) as on_operational_error,
        cast(null as string) as source_owner,
        cast(null as string) as source_table,
        cast(null as string) as target_structure,
        cast(null as string) as action,
        cast(null as string) as reason,
        cast(null as string) as from_synchpoint,
        cast(null as string) as to_synchpoint,
        cast(null as timestamp) as to_synchtime,
        cast(null as string) as fetch_after,
        cast(null as string) as snapshot_id,
        cast(null as string) as refresh_start,
        cast(null as string) as refresh_end,
        cast(null as string) as mitigate_through,
        cast(null as string) as marker_id,
        cast(null as string) as set_action
    from member_changes
    inner join plan on member_changes.target_table = plan.target_table
),

-- The set's status and the member's figures go on its plan rows; the change rows carry none.
cycle_rows as (
    select
        *,
        case
            when row_action != 'plan' then null
            when max(set_action) over set_rows = 'GAP' then 'GAP'
            when max(set_action) over set_rows = 'WAIT' then 'WAITING'
            when
                max(on_operational_error) over set_rows = 'stop'
                and count(operational_error) over set_rows > 0
                then 'STOPPED'
            else 'APPLIED'
        end as set_status,
        case when row_action = 'plan' then count(operational_error) over member_rows end as operational_errors,
        case
            when row_action = 'plan'
                then count_if(row_action in ('insert', 'update', 'delete', 'load', 'append')) over member_rows
        end as rows_to_write
    from member_and_plan_rows
    window
        member_rows as (partition by target_table),
        set_rows as (partition by apply_qual, set_name)
)

select * from cycle_rows
