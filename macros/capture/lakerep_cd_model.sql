{#-
    Body of the change data (CD) model of one registered table (SPEC §3): one row per captured
    row change in the capture window, of committed and still-open UOWs alike. A row never
    changes once written: its key is a log position (lakerep_rows_never_change).
    User columns hold the row after the change (for a delete, the deleted row); before-image
    columns (registered prefix + name) hold the row before it. A key-changing update of a table
    registered with key_updates_as_delete_insert becomes a delete of the old key and an insert
    of the new one, both at the update's log position. An update without a before image
    (PostgreSQL's default replica identity writes one only when the key changes) kept its key:
    it stays an update, with null before-image columns. Appended once per cycle when the cycle
    reads new batches only (_lakerep_idempotent_append), else merged on (INTENTSEQ, OPERATION),
    so re-reading a window adds nothing twice; the merge reads only the CD rows at or above the
    cycle's lowest position (_lakerep_merge_floor).
    A source reading again from its restart tokens (lakerep_source_window) takes every landed
    record at or above its RESTART1, except those of UOWs committed at or before its RESTART2.
    Arguments: source_owner, source_table — the registered table.
-#}
{% macro lakerep_cd_model(source_owner, source_table) %}
{{ config(
    materialized='incremental',
    incremental_strategy='merge',
    unique_key=['IBMSNAP_INTENTSEQ', 'IBMSNAP_OPERATION'],
    lakerep_merge_floor='IBMSNAP_INTENTSEQ',
    lakerep_rows_never_change=true,
    lakerep_idempotent_append='table:' ~ source_owner ~ '.' ~ source_table,
    on_schema_change='fail',
    pre_hook="{{ lakerep_discard_on_cold_start() }}",
    lakerep_writes_if='table_changed:' ~ source_owner ~ '.' ~ source_table,
) }}
{%- set registration = lakerep_registration(source_owner, source_table) -%}
{%- set window = lakerep_capture_window() -%}
{%- set split_key_updates = 'true' if registration.key_updates_as_delete_insert else 'false' -%}
{%- set source_window = lakerep_source_window(window, registration) -%}

with

source_records as (
    select * from {{ ref('stg_source_log') }}
    where
        {{ lakerep_in_source_read(window, registration) }}
        and source_owner = {{ lakerep_string_literal(source_owner) }}
        and source_table = {{ lakerep_string_literal(source_table) }}
),

log_records as (
    select source_records.* from source_records
    {%- if source_window.reread_from is not none %}
        -- Read again from restart tokens: no UOW that committed at or before RESTART2.
        left anti join (
            select uow_id from {{ ref('stg_source_log') }}
            where
                record_type = 'C'
                and landing_batch <= {{ window.up_to_batch }}
                and log_position <= {{ lakerep_string_literal(source_window.restart2) }}
        ) as skipped_uows
            on source_records.uow_id = skipped_uows.uow_id
    {%- endif %}
),

images as (
    select
        uow_id,
        log_position,
        record_type,
        landing_batch,
        {{ lakerep_parse_image('before_image', registration) }} as before_row,
        {{ lakerep_parse_image('after_image', registration) }} as after_row
    from log_records
),

classified as (
    select
        *,
        record_type = 'U'
        and {{ split_key_updates }}
        and before_row is not null
        and not ({{ lakerep_same_key('before_row', 'after_row', registration) }}) as is_split_key_update
    from images
),

-- One row per row change: a key-changing update split into a delete and an insert gives two
-- (one scan of the records, not one per operation).
row_changes as (
    select
        uow_id,
        log_position,
        change.operation,
        change.user_row,
        change.prior_row,
        landing_batch
    from classified
    lateral view explode(
        case
            when is_split_key_update then array(
                named_struct('operation', 'D', 'user_row', before_row, 'prior_row', before_row),
                named_struct('operation', 'I', 'user_row', after_row, 'prior_row', null)
            )
            when record_type = 'D' then array(
                named_struct('operation', 'D', 'user_row', before_row, 'prior_row', before_row)
            )
            when record_type = 'I' then array(
                named_struct('operation', 'I', 'user_row', after_row, 'prior_row', null)
            )
            when record_type = 'U' then array(
                named_struct('operation', 'U', 'user_row', after_row, 'prior_row', before_row)
            )
        end
    ) changes as change
),

cd_rows as (
    select
        uow_id as IBMSNAP_UOWID,
        log_position as IBMSNAP_INTENTSEQ,
        operation as IBMSNAP_OPERATION,
        {%- for column in registration.columns %}
        {{ lakerep_typed_field('user_row', column) }} as `{{ column.name }}`,
        {%- endfor %}
        {%- if registration.before_image_prefix is not none %}
        {%- for column in registration.columns %}
        {{ lakerep_typed_field('prior_row', column) }} as `{{ registration.before_image_prefix ~ column.name }}`,
        {%- endfor %}
        {%- endif %}
        landing_batch
    from row_changes
)

select * from cd_rows
{% endmacro %}
