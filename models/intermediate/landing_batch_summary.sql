{{ config(materialized='view', lakerep_built='declaration') }}

{#-
    One row per landing batch: what landed and what validation made of it (the run summary).
    A view over int_log_records_judged (issue 21: a stored copy cost a Delta write every cycle),
    of which a prune leaves older batches their quarantined records and ends (lakerep_prune_plan).
    A filter on landing_batch reaches the log's file statistics through the grouping, so reading
    a run's batches reads only theirs.
-#}

with

checked as (
    select * from {{ ref('int_log_records_judged') }}
),

quarantined_per_reason as (
    select
        landing_batch,
        quarantine_reason,
        count(*) as records
    from checked
    where quarantine_reason is not null
    group by landing_batch, quarantine_reason
),

reasons as (
    select
        landing_batch,
        map_from_entries(collect_list(struct(quarantine_reason, records))) as quarantined_by_reason
    from quarantined_per_reason
    group by landing_batch
),

counts as (
    select
        landing_batch,
        max(landed_at) as landed_at,
        count(*) as records_landed,
        count_if(quarantine_reason is null) as records_valid,
        count_if(quarantine_reason is not null) as records_quarantined,
        count_if(quarantine_reason is null and record_type in ('I', 'U', 'D')) as row_changes,
        count_if(
            quarantine_reason is null and record_type in ('I', 'U', 'D') and not is_registered_table
        ) as row_changes_unregistered,
        count_if(quarantine_reason is null and record_type = 'C') as uows_committed,
        count_if(quarantine_reason is null and record_type = 'R') as uows_rolled_back,
        min(case when quarantine_reason is null then normalized_position end)
            as lowest_position,
        max(case when quarantine_reason is null then normalized_position end)
            as highest_position
    from checked
    group by landing_batch
),

summary as (
    select
        counts.landing_batch,
        counts.landed_at,
        counts.records_landed,
        counts.records_valid,
        counts.records_quarantined,
        counts.row_changes,
        counts.row_changes_unregistered,
        counts.uows_committed,
        counts.uows_rolled_back,
        counts.lowest_position,
        counts.highest_position,
        cast(
            coalesce(reasons.quarantined_by_reason, map()) as map <string, bigint>
        ) as quarantined_by_reason
    from counts
    left join reasons on counts.landing_batch = reasons.landing_batch
)

select * from summary
