{{ config(materialized='view') }}

{#-
    The Apply status of each subscription set in the current cycle (SPEC §5): GAP (a member
    needs a refresh its source's DISABLE_REFRESH forbids), WAITING (a member waits for a source
    snapshot), STOPPED (an operational error outside a refresh window, in a set whose policy is
    stop), else APPLIED. Targets are written only in an APPLIED cycle. A view: the targets, their
    pre-hooks and apply_exceptions read it once per invocation (_lakerep_set_status), so nothing
    has to be stored; its inputs, the current plan and change models, are fixed once it runs.
-#}

with

plan as (
    {{ lakerep_current_plan() }}
),

member_errors as (
    select
        target_table,
        count(operational_error) as operational_errors
    from ({{ lakerep_member_change_rows(
        [['operational_error', 'string']], apply_cycle=lakerep_latest_apply_cycle()
    ) }}) as member_changes
    group by target_table
),

set_status as (
    select
        plan.apply_cycle,
        plan.apply_qual,
        plan.set_name,
        case
            when max(plan.set_action) = 'GAP' then 'GAP'
            when max(plan.set_action) = 'WAIT' then 'WAITING'
            when max(plan.on_operational_error) = 'stop' and sum(member_errors.operational_errors) > 0 then 'STOPPED'
            else 'APPLIED'
        end as status,
        coalesce(sum(member_errors.operational_errors), 0) as operational_errors
    from plan
    left join member_errors on plan.target_table = member_errors.target_table
    group by plan.apply_cycle, plan.apply_qual, plan.set_name
)

select * from set_status
