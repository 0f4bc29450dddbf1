{{
    config(
        materialized='incremental',
        lakerep_stats_columns=[
            'source_owner', 'source_table', 'IBMSNAP_UOWID', 'IBMSNAP_INTENTSEQ', 'IBMSNAP_OPERATION',
            'landing_batch', 'capture_cycle',
        ],
    )
}}

{#-
    What Capture keeps of the log, for every registered table in one table (ADR 0011): the
    change data (CD, SPEC §3) and the unit-of-work rows (UOW). A CD row is one captured row
    change (IBMSNAP_OPERATION I, U or D) of committed and still-open UOWs alike: the row after
    the change (row_image; for a delete, the deleted row) and, for a table registered with a
    before-image prefix, the row before it (prior_image), both as the log's JSON text, with the
    row's key (row_key, typed: int_log_records_judged; prior_key, an update's key before it). A key-changing update of a table
    registered with key_updates_as_delete_insert becomes a delete of the old key and an insert of
    the new one, both at the update's log position. An update without a before image
    (PostgreSQL's default replica identity writes one only when the key changes) kept its key: it
    stays an update. A UOW row (IBMSNAP_OPERATION C) is the commit record of a UOW that changed a
    registered table: IBMSNAP_INTENTSEQ is its commit position. Rolled-back UOWs get none
    (uow_rollbacks). The SPEC's per-source CD tables and the UOW table are views over this one.
    A UOW with a record quarantined for its content (lakerep_held_records) is held back whole:
    none of its rows is written, and capture_cycles puts the tables it touched in a gap.
    A row never changes once written: its key is a log position and an operation.
    How a cycle writes it (lakerep_write_as): the rows of its new batches appended, once (Delta's
    transaction identifiers, so finishing a cycle cut off after this append adds nothing); a
    source reading again from its restart tokens (lakerep_source_window) merges, leaving the rows
    it holds, and takes every landed record at or above its RESTART1 except those of UOWs
    committed at or before its RESTART2; a cold start (SPEC §4) replaces the table with what it
    reads, so the discarding and the new rows are one commit.
-#}

{%- set window = lakerep_capture_window() %}
{%- set registrations = lakerep_registrations() %}
{%- set rereads = window.sources.values() | selectattr('reread_from') | list %}
{%- set floor = (
    [window.reread_from, window.previous_resync_position] | reject('none') | min
) if window.reread_from is not none else none %}
{%- if window.cold_start %}
    {%- do lakerep_write_as('overwrite') %}
{%- elif rereads %}
    {%- do lakerep_write_as(
        'merge', on=['IBMSNAP_INTENTSEQ', 'IBMSNAP_OPERATION'],
        target_filter="DBT_INTERNAL_DEST.IBMSNAP_INTENTSEQ >= " ~ lakerep_string_literal(floor),
    ) %}
{%- elif window.up_to_batch <= window.after_batch %}
    {%- do lakerep_write_as('skip', reason='no landing batch in the window') %}
{%- else %}
    {%- do lakerep_write_as('append', txn={'app_id': 'lakerep-capture', 'version': window.cycle_number}) %}
{%- endif %}
{%- set splitting = registrations | selectattr('key_updates_as_delete_insert') | list %}
{%- set with_before_images = registrations | rejectattr('before_image_prefix', 'none') | list %}

-- depends_on: {{ ref('capture_window') }}

with

held_uows as (
    -- A UOW with a record quarantined for its content is held back whole: no CD row, no UOW row.
    select distinct uow_id from ({{ lakerep_held_records(window) }})
),

records as (
    select valid.* from {{ ref('int_log_records_valid') }} as valid
    left anti join held_uows on valid.uow_id = held_uows.uow_id
    where {{ lakerep_in_session_read(window) }}
),

in_flight_before as (
    -- The UOWs open when the previous cycle ended; a cold start keeps none of them.
    {{ lakerep_in_flight_uows(window) }}
),

{%- if rereads %}
    skipped_uows as ( -- noqa: ST03
    -- Reading again from restart tokens: the UOWs committed at or before a source's RESTART2.
        select
            uow_id,
            log_position as commit_position
        from {{ ref('int_log_records_valid') }}
        where
            record_type = 'C'
            and landing_batch <= {{ window.up_to_batch }}
            and log_position <= {{ lakerep_string_literal(rereads | map(attribute='restart2') | max) }}
    ),
{%- endif %}

changes as (
    select records.* from records
    {%- if rereads %}
        left join skipped_uows on records.uow_id = skipped_uows.uow_id
    {%- endif %}
    where
        records.is_registered_table
    {%- if rereads %}
            and case concat(records.source_owner, '.', records.source_table)
                {%- for registration in registrations %}
                {%- set source = lakerep_source_window(window, registration) %}
                when {{ lakerep_string_literal(registration.source_owner ~ '.' ~ registration.source_table) }} then
                    {{ lakerep_in_source_read(window, registration, batch='records.landing_batch', position='records.log_position') }}
                    {%- if source.reread_from is not none %}
                    and coalesce(skipped_uows.commit_position > {{ lakerep_string_literal(source.restart2) }}, true)
                    {%- endif %}
                {%- endfor %}
                else false
            end
        {%- endif %}
),

cd_rows as (
    select
        changes.source_owner,
        changes.source_table,
        changes.uow_id as IBMSNAP_UOWID,
        changes.log_position as IBMSNAP_INTENTSEQ,
        change.operation as IBMSNAP_OPERATION,
        changes.log_timestamp as IBMSNAP_LOGMARKER,
        changes.auth_id as IBMSNAP_AUTHID,
        changes.auth_token as IBMSNAP_AUTHTKN,
        change.row_key,
        case when change.operation = 'U' then changes.prior_key end as prior_key,
        change.row_image,
        case
            when
                {{ lakerep_is_one_of(with_before_images, 'changes.source_owner', 'changes.source_table') }}
                then change.prior_image
        end as prior_image,
        changes.landing_batch
    from changes
        lateral view explode(
            case
                when
                    changes.record_type = 'U'
                    and {{ lakerep_is_one_of(splitting, 'changes.source_owner', 'changes.source_table') }}
                    and changes.prior_key is not null
                    and changes.prior_key != changes.row_key
                    then array(
                        named_struct(
                            'operation', 'D', 'row_key', changes.prior_key,
                            'row_image', changes.before_image, 'prior_image', changes.before_image
                        ),
                        named_struct(
                            'operation', 'I', 'row_key', changes.row_key,
                            'row_image', changes.after_image, 'prior_image', cast(null as string)
                        )
                    )
                when changes.record_type = 'D'
                    then
                        array(
                            named_struct(
                                'operation', 'D', 'row_key', changes.row_key,
                                'row_image', changes.before_image, 'prior_image', changes.before_image
                            )
                        )
                when changes.record_type = 'I'
                    then
                        array(
                            named_struct(
                                'operation', 'I', 'row_key', changes.row_key,
                                'row_image', changes.after_image, 'prior_image', cast(null as string)
                            )
                        )
                else array(
                    named_struct(
                        'operation', 'U', 'row_key', changes.row_key,
                        'row_image', changes.after_image, 'prior_image', changes.before_image
                    )
                )
            end
        ) change_rows as change
),

{% if rereads %}
    uows_with_changes as (
        select uow_id from changes
        union
        select uow_id from in_flight_before
    ),
{% else %}
    -- Without a reread the changes are the registered tables' records: whether a UOW has one is a
    -- window over the records, so they are read once for both kinds of row.
    uow_records as (
        select
            *,
            bool_or(is_registered_table) over (partition by uow_id) as uow_has_changes
        from records
    ),

    in_flight_uows as (
        select distinct uow_id from in_flight_before
    ),
{% endif %}

uow_rows as (
    select
        cast(null as string) as source_owner,
        cast(null as string) as source_table,
        records.uow_id as IBMSNAP_UOWID,
        records.log_position as IBMSNAP_INTENTSEQ,
        'C' as IBMSNAP_OPERATION,
        records.log_timestamp as IBMSNAP_LOGMARKER,
        coalesce(records.auth_id, '') as IBMSNAP_AUTHID,
        coalesce(records.auth_token, '') as IBMSNAP_AUTHTKN,
        cast(null as string) as row_key,
        cast(null as string) as prior_key,
        cast(null as string) as row_image,
        cast(null as string) as prior_image,
        records.landing_batch
    {%- if rereads %}
        from records
        left semi join uows_with_changes on records.uow_id = uows_with_changes.uow_id
        where records.record_type = 'C'
    {%- else %}
        from uow_records as records
        left join in_flight_uows as in_flight on records.uow_id = in_flight.uow_id
        where records.record_type = 'C' and (records.uow_has_changes or in_flight.uow_id is not null)
    {%- endif %}
),

captured as (
    select
        *,
        cast({{ window.cycle_number }} as bigint) as capture_cycle
    from cd_rows
    union all
    select
        *,
        cast({{ window.cycle_number }} as bigint) as capture_cycle
    from uow_rows
)

select * from captured
