{{ config(materialized='view') }}

{#-
    The register table (IBMSNAP_REGISTER, SPEC §3): one row per registered table, plus the global
    record (GLOBAL_RECORD = 'Y') that carries Capture's synchpoint. Capture keeps it in
    capture_register, its one writer; this view adds what pruning did: CD_OLD_SYNCHPOINT is the
    higher of Capture's and the highest a prune logged for the CD table in capture_prune. A prune
    logs that before it deletes a row, so CD_OLD_SYNCHPOINT is true at every moment (SPEC §6).
-#}

with

captured as (
    select * from {{ ref('capture_register') }}
),

raised_by_prunes as (
    select
        table_owner,
        table_name,
        max(cd_old_synchpoint) as cd_old_synchpoint
    from {{ ref('capture_prune') }}
    where cd_old_synchpoint is not null
    group by table_owner, table_name
),

register_rows as (
    select
        captured.SOURCE_OWNER,
        captured.SOURCE_TABLE,
        captured.SOURCE_VIEW_QUAL,
        captured.GLOBAL_RECORD,
        captured.SOURCE_STRUCTURE,
        captured.SOURCE_CONDENSED,
        captured.SOURCE_COMPLETE,
        captured.CD_OWNER,
        captured.CD_TABLE,
        captured.PHYS_CHANGE_OWNER,
        captured.PHYS_CHANGE_TABLE,
        -- greatest() skips nulls: a table no prune has reached keeps Capture's.
        greatest(captured.CD_OLD_SYNCHPOINT, raised_by_prunes.cd_old_synchpoint) as CD_OLD_SYNCHPOINT,
        captured.CD_NEW_SYNCHPOINT,
        captured.DISABLE_REFRESH,
        captured.CCD_OWNER,
        captured.CCD_TABLE,
        captured.SYNCHPOINT,
        captured.SYNCHTIME,
        captured.CCD_CONDENSED,
        captured.CCD_COMPLETE,
        captured.ARCH_LEVEL,
        captured.DESCRIPTION,
        captured.BEFORE_IMG_PREFIX,
        captured.CONFLICT_LEVEL,
        captured.PARTITION_KEYS_CHG
    from captured
    left join raised_by_prunes
        on
            captured.CD_OWNER = raised_by_prunes.table_owner
            and captured.CD_TABLE = raised_by_prunes.table_name
)

select * from register_rows
