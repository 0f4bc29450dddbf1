{{ config(materialized='incremental', lakerep_stats_columns=['record_kind', 'apply_cycle', 'target_table']) }}

{#-
    The commit record of every Apply cycle (SPEC §5), written after every target and the
    exceptions, in one commit (ADR 0011). Its rows (record_kind):
      set     one per subscription set: the Apply trail's row (apply_trail): status, rows
              fetched, inserted, updated, deleted, loaded, reworked by the mitigation filter,
              exceptions, and the synchpoint reached;
      member  one per member: its plan as the cycle ran it (apply_plan), with its set's status.
    Members advance to their set's synchpoint only with an APPLIED set row; a cycle cut off before
    this commit is planned again, and the changes it may have written pass the error-mitigation
    filter (apply_cycle_plan). A cycle in which apply_changes wrote nothing writes nothing here.
-#}

{%- set written = [] %}
{%- for plan in lakerep_current_plan_rows() %}
    {%- set cycle = lakerep_member_cycle(plan.target_table) %}
    {%- do written.append(cycle) if cycle is not none else none %}
{%- endfor %}
{%- if execute and not written %}
    {%- do lakerep_write_as('skip', reason='apply_changes holds no row of this cycle') %}
{%- endif %}

{%- for target_model in lakerep_member_targets() %}
-- depends_on: {{ target_model }}
{%- endfor %}
-- depends_on: {{ ref('apply_exceptions') }}

with

cycle_changes as (
    select * from {{ ref('apply_changes') }}
    where apply_cycle = {{ (written | first).apply_cycle if written else -1 }}
),

-- Each member's counts as windows over the cycle's rows, so apply_changes is read once for them;
-- its plan row carries them.
counted as (
    select
        *,
        cast(coalesce(sum(case when row_action != 'plan' then change_count end) over member_rows, 0) as bigint)
            as rows_fetched,
        count_if(
            row_action in ('insert', 'load') or (row_action = 'append' and change_count > 0)
        ) over member_rows as rows_inserted,
        count_if(row_action = 'update') over member_rows as rows_updated,
        count_if(row_action = 'delete') over member_rows as rows_deleted,
        count_if(row_action = 'load') over member_rows as rows_loaded,
        count_if(reworked) over member_rows as rows_reworked
    from cycle_changes
    window member_rows as (partition by target_table)
),

members as (
    select * from counted
    where row_action = 'plan'
),

set_rows as (
    select
        'set' as record_kind,
        apply_cycle,
        max(capture_cycle) as capture_cycle,
        apply_qual,
        set_name,
        cast(null as string) as target_table,
        max(set_status) as status,
        sum(rows_fetched) as rows_fetched,
        sum(rows_inserted) as rows_inserted,
        sum(rows_updated) as rows_updated,
        sum(rows_deleted) as rows_deleted,
        sum(rows_loaded) as rows_loaded,
        sum(rows_reworked) as rows_reworked,
        sum(operational_errors) as exceptions,
        case when max(set_status) = 'APPLIED' then max(to_synchpoint) else max(from_synchpoint) end as synchpoint,
        case when max(set_status) = 'APPLIED' then max(to_synchtime) end as synchtime,
        concat_ws('; ', collect_list(
            case when reason is not null then concat(target_table, ': ', reason) end
        )) as description,
        cast(null as timestamp) as planned_at,
        cast(null as string) as on_operational_error,
        cast(null as string) as source_owner,
        cast(null as string) as source_table,
        cast(null as string) as target_structure,
        cast(null as string) as action,
        cast(null as string) as set_action,
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
        current_timestamp() as completed_at
    from members
    group by apply_cycle, apply_qual, set_name
),

plan_rows as (
    select
        'member' as record_kind,
        apply_cycle,
        capture_cycle,
        apply_qual,
        set_name,
        target_table,
        set_status as status,
        rows_fetched,
        rows_inserted,
        rows_updated,
        rows_deleted,
        rows_loaded,
        rows_reworked,
        operational_errors as exceptions,
        case when set_status = 'APPLIED' then to_synchpoint else from_synchpoint end as synchpoint,
        case when set_status = 'APPLIED' then to_synchtime end as synchtime,
        reason as description,
        planned_at,
        on_operational_error,
        source_owner,
        source_table,
        target_structure,
        action,
        set_action,
        reason,
        from_synchpoint,
        to_synchpoint,
        to_synchtime,
        fetch_after,
        snapshot_id,
        refresh_start,
        refresh_end,
        mitigate_through,
        marker_id,
        current_timestamp() as completed_at
    from members
),

cycle_rows as (
    select * from set_rows
    union all
    select * from plan_rows
)

select * from cycle_rows
