{{
    config(
        materialized='incremental',
        incremental_strategy='append',
        on_schema_change='fail',
        lakerep_file_skipping=false,
    )
}}

{#-
    The Apply trail (SPEC §5): one row per subscription set per Apply cycle, written after every
    target and the exceptions: it is the cycle's commit record. Members advance to the set's
    synchpoint only with an APPLIED row here; a cycle cut off before it is planned again, and
    the changes it may have written pass the error-mitigation filter.
-#}

{%- for target_model in lakerep_member_targets() %}
-- depends_on: {{ target_model }}
{%- endfor %}
-- depends_on: {{ ref('apply_exceptions') }}

with

plan as (
    {{ lakerep_cycle_plan() }}
),

member_rows as (
    {{ lakerep_member_change_rows([
        ['row_action', 'string'],
        ['change_count', 'int'],
        ['reworked', 'boolean'],
    ]) }}
),

member_counts as (
    select
        target_table,
        sum(change_count) as rows_fetched,
        count_if(row_action in ('insert', 'load') or (row_action = 'append' and change_count > 0)) as rows_inserted,
        count_if(row_action = 'update') as rows_updated,
        count_if(row_action = 'delete') as rows_deleted,
        count_if(row_action = 'load') as rows_loaded,
        count_if(reworked) as rows_reworked
    from member_rows
    group by target_table
),

status as (
    select * from {{ ref('apply_set_status') }}
),

trail_rows as (
    select
        plan.apply_cycle,
        max(plan.capture_cycle) as capture_cycle,
        plan.apply_qual,
        plan.set_name,
        max(status.status) as status,
        cast(coalesce(sum(member_counts.rows_fetched), 0) as bigint) as rows_fetched,
        coalesce(sum(member_counts.rows_inserted), 0) as rows_inserted,
        coalesce(sum(member_counts.rows_updated), 0) as rows_updated,
        coalesce(sum(member_counts.rows_deleted), 0) as rows_deleted,
        coalesce(sum(member_counts.rows_loaded), 0) as rows_loaded,
        coalesce(sum(member_counts.rows_reworked), 0) as rows_reworked,
        max(status.operational_errors) as exceptions,
        case
            when max(status.status) = 'APPLIED' then max(plan.to_synchpoint)
            else max(plan.from_synchpoint)
        end as synchpoint,
        case when max(status.status) = 'APPLIED' then max(plan.to_synchtime) end as synchtime,
        concat_ws('; ', collect_list(
            case when plan.reason is not null then concat(plan.target_table, ': ', plan.reason) end
        )) as description,
        current_timestamp() as completed_at
    from plan
    inner join status on plan.apply_qual = status.apply_qual and plan.set_name = status.set_name
    left join member_counts on plan.target_table = member_counts.target_table
    group by plan.apply_cycle, plan.apply_qual, plan.set_name
)

select * from trail_rows
