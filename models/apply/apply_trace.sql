{{ config(materialized='view', lakerep_built='declaration') }}

{#-
    Apply's and pruning's rows of the trace (IBMSNAP_TRACE; the view `trace` joins them to
    Capture's): an APPLY row per set per committed Apply cycle, a REFRESH row per member it
    refreshed (with why: SYNCHPOINT 0, a requested refresh, a gap, an external refresh), a GAP
    row per member stopped by a gap with DISABLE_REFRESH, and a PRUNE row per pruned table.
    A view: apply_cycles and capture_prune keep every event it shows, so a cycle
    writes nothing here (issue 21).
-#}

with

apply_cycles as (
    select * from {{ ref('apply_trail') }}
),

prunes as (
    select * from {{ ref('capture_prune') }}
),

apply_rows as (
    select
        'APPLY' as OPERATION,
        completed_at as TRACE_TIME,
        concat(
            'ASN1000I lakerep apply cycle ', apply_cycle, ' set ', apply_qual, '.', set_name, ': ', status,
            '; fetched ', rows_fetched, ', inserted ', rows_inserted, ', updated ', rows_updated,
            ', deleted ', rows_deleted, ', loaded ', rows_loaded, ', reworked ', rows_reworked,
            ', exceptions ', exceptions, '; synchpoint ', coalesce(synchpoint, 'none'),
            case when description != '' then concat('; ', description) else '' end
        ) as DESCRIPTION,
        apply_cycle as CYCLE,
        cast(null as string) as RUN_ID
    from apply_cycles
),

member_event_rows as (
    select
        case when plan.action = 'GAP_ERROR' then 'GAP' else 'REFRESH' end as OPERATION,
        trail.completed_at as TRACE_TIME,
        case
            when plan.action = 'GAP_ERROR'
                then concat('ASN1026E lakerep gap for ', plan.target_table, ': ', plan.reason)
            else concat('ASN1001I lakerep refreshed ', plan.target_table, ': ', plan.reason)
        end as DESCRIPTION,
        plan.apply_cycle as CYCLE,
        cast(null as string) as RUN_ID
    from {{ ref('apply_plan') }} as plan
    inner join apply_cycles as trail
        on
            plan.apply_cycle = trail.apply_cycle
            and plan.apply_qual = trail.apply_qual
            and plan.set_name = trail.set_name
    where
        plan.action = 'GAP_ERROR'
        or (plan.action in ('REFRESH', 'EXTERNAL_REFRESH') and plan.set_status = 'APPLIED')
),

prune_rows as (
    select
        'PRUNE' as OPERATION,
        pruned_at as TRACE_TIME,
        concat(
            'ASN0124I lakerep pruned ', rows_deleted, ' ', pruned_kind, ' rows',
            case when source_owner is not null then concat(' of ', source_owner, '.', source_table) else '' end,
            case
                when pruned_kind = 'LANDED' then concat(' (of UOWs ended at or below ', prune_limit, ')')
                else concat(' (at or below ', prune_limit, ', or logged before ', cast(retention_cutoff as string), ')')
            end
        ) as DESCRIPTION,
        cast(null as bigint) as CYCLE,
        cast(null as string) as RUN_ID
    from prunes
),

trace_rows as (
    select * from apply_rows
    union all
    select * from member_event_rows
    union all
    select * from prune_rows
)

select * from trace_rows
