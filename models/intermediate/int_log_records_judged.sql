{{
    config(
        materialized='incremental',
        lakerep_stats_columns=['landing_batch', 'capture_cycle', 'normalized_position', 'uow_id', 'quarantine_reason'],
    )
}}

{#-
    Every landed log record, verbatim, with the verdict of validation (quarantine_reason null for
    a valid record) and what Capture needs of it, computed once here so that no later model parses
    it again: the position in its stored form, the parsed source time, whether its table is
    registered, and the key of the row it changed (row_key: the registered key columns, typed,
    as JSON text; prior_key the same for its before image).
    Each landing batch is judged once, by the capture cycle that reads it first: its rows carry
    that cycle (capture_cycle) and the run that opened it (capture_run_id). They are what says that
    the cycle began, so a cycle cut off after this append is finished with the same batches
    (lakerep_cycle_opener_sql), and new batches wait for the next one. A cycle being finished
    judges only its own batches that this model had not judged yet (lakerep_judging_range); a
    recover run judges nothing else. New records are found by landing batch, never
    by log position (landing order is not log order).
    The checks against other records: a position already taken, a second end of one UOW, and a
    change of a UOW that ended in an earlier landing batch (decoders land a transaction whole, so
    such a change could never be committed). They read the records held before only where the
    new ones' positions and UOW ids fall (literal bounds, so Delta skips the other files). A
    commit or rollback of a UOW without a row change is valid (SPEC §2.1: DDL and empty
    transactions commit too). uow_quarantine_reason holds, on every record of a UOW with a
    record quarantined in this judging, why the UOW is not whole.
-#}

{%- set judging = lakerep_log_judging() %}
{%- do lakerep_write_as(
    'append', txn={'app_id': 'lakerep-judge-log', 'version': judging.cycle_number}
) if judging.judges else lakerep_write_as('skip', reason=judging.reason) %}

-- depends_on: {{ ref('stg_lakerep_raw__source_log') }}
-- depends_on: {{ ref('stg_lakerep_raw__debezium_log') }}

with

landed as (
    {{ lakerep_new_log_records(judging.after_batch, judging.get("up_to_batch")) }}
),

already_valid as (
    {%- if judging.held and judging.bounds is not none %}
        select
            normalized_position,
            uow_id,
            record_type
        from {{ this }}
        where
            quarantine_reason is null
            and (
                normalized_position between {{ lakerep_string_literal(judging.bounds.lowest_position) }}
                and {{ lakerep_string_literal(judging.bounds.highest_position) }}
                or uow_id between {{ lakerep_string_literal(judging.bounds.lowest_uow) }}
                and {{ lakerep_string_literal(judging.bounds.highest_uow) }}
            )
    {%- else %}
        select
            cast(null as string) as normalized_position,
            cast(null as string) as uow_id,
            cast(null as string) as record_type
        where false
    {%- endif %}
),

images as (
    select
        *,
        {{ lakerep_image_values('before_image') }} as landed_before_values,
        {{ lakerep_image_values('after_image') }} as landed_after_values,
        {{ lakerep_registration_lookup() }}
    from landed
),

declared as (
    select
        *,
        coalesce(declared_before_values, landed_before_values) as before_values,
        coalesce(declared_after_values, landed_after_values) as sent_after_values,
        {{ lakerep_normalize_position('log_position') }} as normalized_position
    from (
        select
            *,
            {{ lakerep_declared_values('landed_before_values') }} as declared_before_values,
            {{ lakerep_declared_values('landed_after_values') }} as declared_after_values
        from images
    )
),

filling as (
    {{ lakerep_unsent_values_filled('declared', judging) }}
),

parsed as (
    select
        *,
        lacks_values or declared_after_values is not null as after_image_rewritten
    from filling
),

record_checked as (
    select
        *,
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
        *,
        coalesce(record_reason, position_reason, uow_end_reason) as quarantine_reason
    from uow_end_checked
),

uow_verdicts as (
    select
        *,
        case
            when uow_id is not null and max(quarantine_reason) over (partition by uow_id) is not null
                then concat('uow_has_quarantined_record: ', min(quarantine_reason) over (partition by uow_id))
        end as uow_quarantine_reason
    from verdicts
),

judged as (
    select
        log_position,
        uow_id,
        record_type,
        source_owner,
        source_table,
        log_timestamp,
        auth_id,
        auth_token,
        case
            when quarantine_reason is null and declared_before_values is not null
                then to_json(declared_before_values)
            else before_image
        end as before_image,
        case
            when quarantine_reason is null and after_image_rewritten then to_json(after_values)
            else after_image
        end as after_image,
        landing_batch,
        landed_at,
        quarantine_reason,
        uow_quarantine_reason,
        record_type in ('I', 'U', 'D')
        and {{ lakerep_is_registered('source_owner', 'source_table') }} as is_registered_table,
        normalized_position,
        {{ lakerep_parse_log_timestamp('log_timestamp') }} as parsed_timestamp,
        case
            when
                quarantine_reason is null
                then {{ lakerep_row_key('case when record_type = \'D\' then before_values else after_values end') }}
        end
            as row_key,
        case when quarantine_reason is null then {{ lakerep_row_key('before_values') }} end as prior_key,
        cast({{ judging.cycle_number }} as bigint) as capture_cycle,
        {{ lakerep_string_literal(judging.run_id) }} as capture_run_id
    from uow_verdicts
)

select * from judged
