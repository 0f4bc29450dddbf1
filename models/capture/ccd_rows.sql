{{
    config(
        materialized='incremental',
        lakerep_stats_columns=['source_owner', 'source_table', 'ccd_key', 'IBMSNAP_COMMITSEQ', 'IBMSNAP_INTENTSEQ', 'capture_cycle'],
    )
}}

{#-
    The internal consistent change data (CCD, SPEC §3) of every registered table, in one table
    (ADR 0011): each table's committed changes in commit order, the row as the log's JSON text
    (row_image) with its key. Condensed (registered ccd_condensed): one row per key, its latest
    change (a delete stays as a 'D' row). Non-condensed: every change. Complete (registered
    ccd_complete): the rows of a source snapshot landed in the window come in too, as inserts at
    the unload start position; every change committed after it is later, so the snapshot row
    gives way to it whatever moment of the unload read the row. An unload landed twice in one
    window counts once. ccd_key is the grain: the key for a condensed CCD, the change (position,
    operation and key) for a history. One MERGE writes every table: a row replaces the stored
    one of its ccd_key only if it is later by commit position, then position in its UOW, so
    re-reading a window changes nothing. The SPEC's per-source CCD tables are views over it.
-#}

{%- set window = lakerep_capture_window() %}
{%- set registrations = lakerep_registrations() %}
{%- set condensed = registrations | selectattr('ccd_condensed') | list %}
{%- set complete = registrations | selectattr('ccd_complete') | list %}
{%- if not window.cold_start and window.reread_from is none and window.up_to_batch <= window.after_batch %}
    {%- do lakerep_write_as('skip', reason='no landing batch in the window') %}
{%- else %}
    {%- do lakerep_write_as(
        'merge', on=['source_owner', 'source_table', 'ccd_key'], later_by=['IBMSNAP_COMMITSEQ', 'IBMSNAP_INTENTSEQ']
    ) %}
{%- endif %}

-- depends_on: {{ ref('capture_window') }}

with

committed_changes as (
    {{ lakerep_committed_changes(window) }}
),

snapshot_rows as (
    select
        source_owner,
        source_table,
        unload_start_position as IBMSNAP_COMMITSEQ,
        unload_start_position as IBMSNAP_INTENTSEQ,
        'I' as IBMSNAP_OPERATION,
        landed_at as IBMSNAP_LOGMARKER,
        row_key,
        row_image
    from {{ ref('int_snapshot_rows_valid') }}
    where
        {{ lakerep_in_capture_window(window) }}
        and row_image is not null
        and {{ lakerep_is_one_of(complete) }}
),

ccd_changes as (
    select
        *,
        case
            when {{ lakerep_is_one_of(condensed) }} then row_key
            else concat_ws(':', IBMSNAP_INTENTSEQ, IBMSNAP_OPERATION, row_key)
        end as ccd_key
    from (
        select * from committed_changes
        union all
        select * from snapshot_rows
    ) as either
),

ranked as (
    select
        *,
        row_number() over (
            partition by source_owner, source_table, ccd_key
            order by IBMSNAP_COMMITSEQ desc, IBMSNAP_INTENTSEQ desc, IBMSNAP_OPERATION desc, IBMSNAP_LOGMARKER desc
        ) as change_rank
    from ccd_changes
),

ccd_rows as (
    select
        source_owner,
        source_table,
        ccd_key,
        IBMSNAP_COMMITSEQ,
        IBMSNAP_INTENTSEQ,
        IBMSNAP_OPERATION,
        IBMSNAP_LOGMARKER,
        row_key,
        row_image,
        cast({{ window.cycle_number }} as bigint) as capture_cycle
    from ranked
    where change_rank = 1
)

select * from ccd_rows
