{{
    config(
        materialized='incremental',
        incremental_strategy='insert_overwrite',
        on_schema_change='fail',
    )
}}

{#-
    What Capture keeps of the register table (IBMSNAP_REGISTER): one row per registered table,
    plus the global record (GLOBAL_RECORD = 'Y') that carries Capture's synchpoint. Its one
    writer is this model, rewritten every cycle from its previous rows and the changes committed
    in the capture window: CD_NEW_SYNCHPOINT is the commit position of the latest committed
    change in the CD table, CD_OLD_SYNCHPOINT the commit position after which every committed
    change is still in the CD table as far as Capture knows: the source's RESTART2 when Capture
    first read it and, on a cold start, the synchpoint Capture had reached (the CD table is
    emptied, so a member behind it has a gap). Pruning raises CD_OLD_SYNCHPOINT too, in the
    rows it logs in capture_prune; the register view shows the higher of the two.
    SYNCHPOINT/SYNCHTIME: the last commit Capture has read.
-#}

{%- set window = lakerep_capture_window() %}
{%- set registered_models = lakerep_registered_models() %}
{#- A lake written before this model existed kept these rows, prunes' raises included, in a
    register table (now the register view): the first build takes them from there. #}
{%- set register_table = lakerep_control_relation('register') %}
{%- set register_table = register_table if register_table is not none and not register_table.is_view else none %}

with

commits_read as (
    select
        max(log_position) as synchpoint,
        max_by(log_timestamp, log_position) as synchtime
    from {{ ref('stg_source_log') }}
    where
        record_type = 'C'
        and {{ lakerep_in_session_read(window) }}
),

previous as (
    {{ lakerep_rows_already_held([
        ['SOURCE_OWNER', 'SOURCE_OWNER', 'string'],
        ['SOURCE_TABLE', 'SOURCE_TABLE', 'string'],
        ['GLOBAL_RECORD', 'GLOBAL_RECORD', 'string'],
        ['CD_OLD_SYNCHPOINT', 'CD_OLD_SYNCHPOINT', 'string'],
        ['CD_NEW_SYNCHPOINT', 'CD_NEW_SYNCHPOINT', 'string'],
        ['SYNCHPOINT', 'SYNCHPOINT', 'string'],
        ['SYNCHTIME', 'SYNCHTIME', 'timestamp'],
    ], first_build_from=register_table) }}
),

capture_synchpoint as (
    select
        -- greatest() skips nulls: the first cycle has no previous synchpoint, an empty window none.
        greatest(commits_read.synchpoint, previous_global.SYNCHPOINT) as synchpoint,
        case
            when previous_global.SYNCHPOINT is null or commits_read.synchpoint > previous_global.SYNCHPOINT
                then commits_read.synchtime
            else previous_global.SYNCHTIME
        end as synchtime
    from commits_read
    left join previous as previous_global on previous_global.GLOBAL_RECORD = 'Y'
),

-- Only the tables with something in the cycle (lakerep_reads_table_this_cycle): no change of
-- the others is committed in it.
committed_in_window as (
    select
        cast(null as string) as source_owner,
        cast(null as string) as source_table,
        cast(null as string) as newest_commitseq
    where false
    {%- for entry in registered_models if lakerep_reads_table_this_cycle(entry.source_owner, entry.source_table) %}
        {%- set registration = lakerep_registration(entry.source_owner, entry.source_table) %}
        union all
        select
            {{ lakerep_string_literal(entry.source_owner) }} as source_owner,
            {{ lakerep_string_literal(entry.source_table) }} as source_table,
            max(IBMSNAP_COMMITSEQ) as newest_commitseq
        from ({{ lakerep_committed_changes(entry.cd, registration, window) }}) as committed_changes
    {%- endfor %}
),

registrations as (
    {% for entry in registered_models %}
        {%- set registration = lakerep_registration(entry.source_owner, entry.source_table) %}
        select
            {{ lakerep_string_literal(entry.source_owner) }} as source_owner,
            {{ lakerep_string_literal(entry.source_table) }} as source_table,
            {{ lakerep_string_literal(entry.cd.schema) }} as cd_owner,
            {{ lakerep_string_literal(entry.cd.identifier) }} as cd_table,
            {{ lakerep_string_literal(entry.ccd.schema) }} as ccd_owner,
            {{ lakerep_string_literal(entry.ccd.identifier) }} as ccd_table,
            {{ 1 if registration.disable_refresh else 0 }} as disable_refresh,
            '{{ "Y" if registration.ccd_condensed else "N" }}' as ccd_condensed,
            '{{ "Y" if registration.ccd_complete else "N" }}' as ccd_complete,
            {{ lakerep_string_literal(registration.before_image_prefix) }} as before_img_prefix,
            '{{ "Y" if registration.key_updates_as_delete_insert else "N" }}' as partition_keys_chg,
            {{ lakerep_string_literal(lakerep_source_window(window, entry).restart2) }} as read_after
        {{ 'union all' if not loop.last }}
    {% endfor %}
),

source_rows as (
    select
        registrations.source_owner as SOURCE_OWNER,
        registrations.source_table as SOURCE_TABLE,
        cast(0 as smallint) as SOURCE_VIEW_QUAL,
        'N' as GLOBAL_RECORD,
        cast(1 as smallint) as SOURCE_STRUCTURE,
        'Y' as SOURCE_CONDENSED,
        'Y' as SOURCE_COMPLETE,
        registrations.cd_owner as CD_OWNER,
        registrations.cd_table as CD_TABLE,
        registrations.cd_owner as PHYS_CHANGE_OWNER,
        registrations.cd_table as PHYS_CHANGE_TABLE,
        {%- if window.cold_start %}
            greatest(previous.CD_OLD_SYNCHPOINT, previous_global.SYNCHPOINT, registrations.read_after)
        {%- else %}
            coalesce(previous.CD_OLD_SYNCHPOINT, registrations.read_after)
        {%- endif %} as CD_OLD_SYNCHPOINT,
        greatest(previous.CD_NEW_SYNCHPOINT, committed_in_window.newest_commitseq) as CD_NEW_SYNCHPOINT,
        cast(registrations.disable_refresh as smallint) as DISABLE_REFRESH,
        registrations.ccd_owner as CCD_OWNER,
        registrations.ccd_table as CCD_TABLE,
        capture_synchpoint.synchpoint as SYNCHPOINT,
        capture_synchpoint.synchtime as SYNCHTIME,
        registrations.ccd_condensed as CCD_CONDENSED,
        registrations.ccd_complete as CCD_COMPLETE,
        '0201' as ARCH_LEVEL,
        'registered in models/staging/_registrations__sources.yml' as DESCRIPTION,
        registrations.before_img_prefix as BEFORE_IMG_PREFIX,
        '0' as CONFLICT_LEVEL,
        registrations.partition_keys_chg as PARTITION_KEYS_CHG
    from registrations
    cross join capture_synchpoint
    left join committed_in_window
        on
            registrations.source_owner = committed_in_window.source_owner
            and registrations.source_table = committed_in_window.source_table
    left join previous
        on
            registrations.source_owner = previous.SOURCE_OWNER
            and registrations.source_table = previous.SOURCE_TABLE
            and previous.GLOBAL_RECORD = 'N'
    {%- if window.cold_start %}
        left join previous as previous_global on previous_global.GLOBAL_RECORD = 'Y'  -- noqa: ST11
    {%- endif %}
),

global_record as (
    select
        'ASN' as SOURCE_OWNER,
        'IBMSNAP_GLOBAL' as SOURCE_TABLE,
        cast(0 as smallint) as SOURCE_VIEW_QUAL,
        'Y' as GLOBAL_RECORD,
        cast(0 as smallint) as SOURCE_STRUCTURE,
        'N' as SOURCE_CONDENSED,
        'N' as SOURCE_COMPLETE,
        cast(null as string) as CD_OWNER,
        cast(null as string) as CD_TABLE,
        cast(null as string) as PHYS_CHANGE_OWNER,
        cast(null as string) as PHYS_CHANGE_TABLE,
        cast(null as string) as CD_OLD_SYNCHPOINT,
        cast(null as string) as CD_NEW_SYNCHPOINT,
        cast(0 as smallint) as DISABLE_REFRESH,
        cast(null as string) as CCD_OWNER,
        cast(null as string) as CCD_TABLE,
        synchpoint as SYNCHPOINT,
        synchtime as SYNCHTIME,
        cast(null as string) as CCD_CONDENSED,
        cast(null as string) as CCD_COMPLETE,
        '0201' as ARCH_LEVEL,
        'global record: the last commit Capture has read' as DESCRIPTION,
        cast(null as string) as BEFORE_IMG_PREFIX,
        '0' as CONFLICT_LEVEL,
        cast(null as string) as PARTITION_KEYS_CHG
    from capture_synchpoint
),

register_rows as (
    select * from source_rows
    union all
    select * from global_record
)

select * from register_rows
