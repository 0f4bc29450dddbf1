-- Validation drops nothing: every log record of a landing batch that staging has processed is
-- in stg_source_log_checked, valid or quarantined, exactly as many times as it landed.

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

mismatched as (
    select
        landed.landing_batch,
        landed.records as landed_records,
        checked.records as checked_records
    from landed
    inner join checked on landed.landing_batch = checked.landing_batch
    where landed.records != checked.records
)

select * from mismatched
