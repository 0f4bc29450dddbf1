-- Validation drops nothing: every log record of a landing batch up to the highest that staging
-- has processed is in stg_source_log_checked, valid or quarantined, exactly as many times as it
-- landed. A batch staging passed over fails it (no checked record at all), and so does a batch
-- staging holds that never landed.

with

landed as (
    select
        landing_batch,
        count(*) as records
    from {{ source('lakerep_raw', 'source_log') }}
    group by landing_batch
),

checked as (
    select
        landing_batch,
        count(*) as records
    from {{ ref('stg_source_log_checked') }}
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
