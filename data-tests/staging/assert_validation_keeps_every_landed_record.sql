-- Validation drops nothing: every log record of a landing batch up to the highest that
-- validation has judged is in int_log_records_judged, valid or quarantined, exactly as many
-- times as it landed: the canonical log's records and Debezium's change and commit records
-- (stg_lakerep_raw__debezium_log) of the transactions whole by then, each counted in the batch
-- that made it whole. A batch validation passed over fails it (no judged record at all), and so
-- does a batch validation holds that never landed.

-- depends_on: {{ ref('stg_lakerep_raw__debezium_log') }}

with

landed_records as (
    select landing_batch from {{ ref('stg_lakerep_raw__source_log') }}
    {%- if lakerep_debezium_events_relation() is not none %}
        union all
        select landing_batch from {{ ref('stg_lakerep_raw__debezium_log') }}
        where not awaiting_commit
    {%- endif %}
),

landed as (
    select
        landing_batch,
        count(*) as records
    from landed_records
    group by landing_batch
),

checked as (
    select
        landing_batch,
        count(*) as records
    from {{ ref('int_log_records_judged') }}
    group by landing_batch
),

processed as (
    select max(landing_batch) as highest_batch from checked
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
