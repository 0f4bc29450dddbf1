-- Validation drops nothing: every log record of a landing batch up to the highest that
-- validation has judged is in int_log_records_judged, valid or quarantined, exactly as many
-- times as it landed: the canonical log's records and Debezium's change and commit records
-- (stg_lakerep_raw__debezium_log) of the transactions whole by then, each counted in the batch
-- that made it whole. A batch validation passed over fails it (no judged record at all), and so
-- does a batch validation holds that never landed. The records of UOWs whose landed copies a
-- prune may have deleted (ended at or below the highest limit of capture_prune's LANDED rows,
-- lakerep_prune_plan) are left out on both sides: their judged copies stay, their landed ones
-- may not.

-- depends_on: {{ ref('stg_lakerep_raw__debezium_log') }}

{%- set prunes = lakerep_control_relation('capture_prune') %}

with

pruned_uows as (
    {{ lakerep_uows_ended_through(
        'null' if prunes is none else
        '(select max(prune_limit) from ' ~ prunes ~ " where pruned_kind = 'LANDED')"
    ) }}
),

landed_records as (
    select
        landing_batch,
        uow_id
    from {{ ref('stg_lakerep_raw__source_log') }}
    {%- if lakerep_debezium_events_relation() is not none %}
        union all
        select
            landing_batch,
            uow_id
        from {{ ref('stg_lakerep_raw__debezium_log') }}
        where not awaiting_commit
    {%- endif %}
),

landed as (
    select
        landed_records.landing_batch,
        count(*) as records
    from landed_records
    left anti join pruned_uows on landed_records.uow_id = pruned_uows.uow_id
    group by landed_records.landing_batch
),

checked as (
    select
        judged.landing_batch,
        count(*) as records
    from {{ ref('int_log_records_judged') }} as judged
    left anti join pruned_uows on judged.uow_id = pruned_uows.uow_id
    group by judged.landing_batch
),

processed as (
    select max(landing_batch) as highest_batch from {{ ref('int_log_records_judged') }}
),

mismatched as (
    select
        coalesce(landed.landing_batch, checked.landing_batch) as landing_batch,
        coalesce(landed.records, 0) as landed_records,
        coalesce(checked.records, 0) as checked_records
    from landed
    full outer join checked on landed.landing_batch = checked.landing_batch
    cross join processed
    where
        coalesce(landed.landing_batch, checked.landing_batch) <= processed.highest_batch
        and coalesce(landed.records, 0) != coalesce(checked.records, 0)
)

select * from mismatched
