{{
    config(
        materialized='incremental',
        incremental_strategy='append',
        on_schema_change='fail',
    )
}}

{#-
    Every landed log record, verbatim, with the verdict of validation: quarantine_reason is
    null for a valid record. normalized_position is the position in its stored form, kept as a
    column so that filters on it reach Delta's file statistics. New records are found by landing
    batch, never by log position (landing order is not log order). One append per run keeps the
    valid records (stg_source_log) and the quarantined ones (source_log_quarantine) consistent.
    The checks against other records: a position already taken, a second end of one UOW, and a
    change of a UOW that ended in an earlier landing batch (decoders land a transaction whole, so
    such a change could never be committed). A commit or rollback of a UOW without a row change
    is valid (SPEC §2.1: DDL and empty transactions commit too).
-#}

-- depends_on: {{ ref('stg_debezium_log') }}

with

landed as (
    {#- Debezium's events join the log once `lakerep land` has made their table (ADR 0009); a
        lake without it reads the canonical log alone, as it always did. -#}
    select
        *,
        cast(null as string) as mapping_reason
    from {{ source('lakerep_raw', 'source_log') }}
    where {{ lakerep_new_landing_batches() }}
    {%- if lakerep_debezium_events_relation() is not none %}
        union all
        select
            log_position,
            uow_id,
            record_type,
            source_owner,
            source_table,
            log_timestamp,
            auth_id,
            auth_token,
            before_image,
            after_image,
            landing_batch,
            landed_at,
            mapping_reason
        from {{ ref('stg_debezium_log') }}
        where not awaiting_commit and {{ lakerep_new_landing_batches() }}
    {%- endif %}
),

already_valid as (
    {{ lakerep_rows_already_held([
        ['normalized_position', 'normalized_position', 'string'],
        ['uow_id', 'uow_id', 'string'],
        ['record_type', 'record_type', 'string'],
    ], where='quarantine_reason is null') }}
),

parsed as (
    select
        *,
        {{ lakerep_image_values('before_image') }} as before_values,
        {{ lakerep_image_values('after_image') }} as after_values,
        {{ lakerep_registration_lookup() }}
    from landed
),

record_checked as (
    select
        *,
        {{ lakerep_normalize_position('log_position') }} as normalized_position,
        coalesce(mapping_reason, {{ lakerep_record_quarantine_reason() }}) as record_reason
    from parsed
),

positions_taken as (
    select distinct normalized_position from already_valid
),

position_checked as (
    select
        record_checked.*,
        case
            when record_checked.record_reason is not null then null
            when positions_taken.normalized_position is not null then 'duplicate_log_position'
            when row_number() over (
                partition by record_checked.normalized_position, record_checked.record_reason is null
                order by
                    record_checked.landed_at, record_checked.uow_id, record_checked.record_type,
                    record_checked.before_image, record_checked.after_image
            ) > 1 then 'duplicate_log_position'
        end as position_reason
    from record_checked
    left join positions_taken
        on record_checked.normalized_position = positions_taken.normalized_position
),

uows_already_ended as (
    select distinct uow_id from already_valid
    where record_type in ('C', 'R')
),

uow_end_checked as (
    select
        position_checked.*,
        case
            when
                position_checked.record_reason is not null
                or position_checked.position_reason is not null
                then null
            when position_checked.record_type in ('I', 'U', 'D')
                then case when uows_already_ended.uow_id is not null then 'change_after_uow_end' end
            when uows_already_ended.uow_id is not null then 'uow_already_ended'
            when row_number() over (
                partition by
                    position_checked.uow_id,
                    position_checked.record_reason is null
                    and position_checked.position_reason is null
                    and position_checked.record_type in ('C', 'R')
                order by position_checked.normalized_position
            ) > 1 then 'uow_already_ended'
        end as uow_end_reason
    from position_checked
    left join uows_already_ended on position_checked.uow_id = uows_already_ended.uow_id
),

verdicts as (
    select
        log_position,
        uow_id,
        record_type,
        source_owner,
        source_table,
        log_timestamp,
        auth_id,
        auth_token,
        before_image,
        after_image,
        landing_batch,
        landed_at,
        coalesce(record_reason, position_reason, uow_end_reason) as quarantine_reason,
        record_type in ('I', 'U', 'D')
        and {{ lakerep_is_registered('source_owner', 'source_table') }} as is_registered_table,
        normalized_position
    from uow_end_checked
)

select * from verdicts
