{{ config(materialized='view', lakerep_built='declaration') }}

{#-
    The register table (IBMSNAP_REGISTER, SPEC §3): one row per registered table, plus the global
    record (GLOBAL_RECORD = 'Y') that carries Capture's synchpoint, from the latest completed
    capture cycle's rows in capture_cycles (the source rows and the cycle row): what each table's
    registration declares, CD_NEW_SYNCHPOINT and CD_OLD_SYNCHPOINT. CD_OLD_SYNCHPOINT is the
    higher of Capture's and the highest a prune logged for the table in capture_prune. A prune
    logs that before it deletes a row, so CD_OLD_SYNCHPOINT is true at every moment (SPEC §6).
    The CD and CCD tables it names are the per-source views (cd_<owner>__<table>), whose rows the
    captured log and the CCD table hold; PHYS_CHANGE_* names the physical table.
-#}

with

latest as (
    select cycles.* from {{ ref('capture_cycles') }} as cycles
    where cycles.cycle_number = (
        select max(completed.cycle_number) from {{ ref('capture_cycles') }} as completed
        where completed.record_kind = 'cycle'
    )
),

registrations as (
    {% for registration in lakerep_registrations() %}
        {%- set views = lakerep_source_views(registration.source_owner, registration.source_table) %}
        {%- set cd, ccd = views.cd, views.ccd %}
        select
            {{ lakerep_string_literal(registration.source_owner) }} as source_owner,
            {{ lakerep_string_literal(registration.source_table) }} as source_table,
            {{ lakerep_string_literal(cd.schema) }} as cd_owner,
            {{ lakerep_string_literal(cd.identifier) }} as cd_table,
            {{ lakerep_string_literal(ccd.schema) }} as ccd_owner,
            {{ lakerep_string_literal(ccd.identifier) }} as ccd_table,
            {{ 1 if registration.disable_refresh else 0 }} as disable_refresh,
            '{{ "Y" if registration.ccd_condensed else "N" }}' as ccd_condensed,
            '{{ "Y" if registration.ccd_complete else "N" }}' as ccd_complete,
            {{ lakerep_string_literal(registration.before_image_prefix) }} as before_img_prefix,
            '{{ "Y" if registration.key_updates_as_delete_insert else "N" }}' as partition_keys_chg
        {{ 'union all' if not loop.last }}
    {% endfor %}
),

global_state as (
    select
        cycle_number,
        synchpoint,
        synchtime
    from latest
    where record_kind = 'cycle'
),

raised_by_prunes as (
    select
        source_owner,
        source_table,
        max(cd_old_synchpoint) as cd_old_synchpoint
    from {{ ref('capture_prune') }}
    where pruned_kind = 'CD' and cd_old_synchpoint is not null
    group by source_owner, source_table
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
        {{ lakerep_string_literal(ref('captured_log').schema) }} as PHYS_CHANGE_OWNER,
        {{ lakerep_string_literal(ref('captured_log').identifier) }} as PHYS_CHANGE_TABLE,
        -- greatest() skips nulls: a table no prune has reached keeps Capture's.
        greatest(latest.cd_old_synchpoint, raised_by_prunes.cd_old_synchpoint) as CD_OLD_SYNCHPOINT,
        latest.cd_new_synchpoint as CD_NEW_SYNCHPOINT,
        cast(registrations.disable_refresh as smallint) as DISABLE_REFRESH,
        registrations.ccd_owner as CCD_OWNER,
        registrations.ccd_table as CCD_TABLE,
        global_state.synchpoint as SYNCHPOINT,
        global_state.synchtime as SYNCHTIME,
        registrations.ccd_condensed as CCD_CONDENSED,
        registrations.ccd_complete as CCD_COMPLETE,
        '0201' as ARCH_LEVEL,
        'registered in models/staging/_registrations__sources.yml' as DESCRIPTION,
        registrations.before_img_prefix as BEFORE_IMG_PREFIX,
        '0' as CONFLICT_LEVEL,
        registrations.partition_keys_chg as PARTITION_KEYS_CHG
    from registrations
    inner join latest
        on
            latest.record_kind = 'source'
            and registrations.source_owner = latest.source_owner
            and registrations.source_table = latest.source_table
    -- Joined by its cycle, not crossed: the cycle row is one row, which a plan cannot know.
    inner join global_state on latest.cycle_number = global_state.cycle_number
    left join raised_by_prunes
        on
            registrations.source_owner = raised_by_prunes.source_owner
            and registrations.source_table = raised_by_prunes.source_table
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
    from global_state
),

register_rows as (
    select * from source_rows
    union all
    select * from global_record
)

select * from register_rows
