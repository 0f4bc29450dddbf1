{#- Built by every cycle: whether the Debezium landing table exists yet decides its SQL. -#}
{{ config(materialized='view', lakerep_built='cycle') }}

{#-
    Debezium's snapshot reads (op r) mapped onto the landing contract of source snapshots (SPEC
    §2.5; ADR 0009), for int_snapshot_rows_judged to validate with the landed ones. Every read
    of one snapshot carries the same source.lsn, the point the connector's exported snapshot is
    consistent at: the unload starts and ends at that LSN's position (its row number 0000, below
    every change a transaction committing after it makes). One table's rows are one unload,
    OWNER.TABLE:start:end. An unload is whole once its table's last read
    (snapshot=last_in_data_collection) or the snapshot's last (snapshot=last) has landed; until
    then it is not here, and its landing_batch is the batch that completed it. An incremental
    snapshot's reads are no consistent unload: they carry a mapping_reason, which quarantines them.
-#}

{%- set landed_events = source('lakerep_raw', 'debezium_events') %}

with

events as (
    {{ lakerep_debezium_events(lakerep_debezium_events_relation()) }}
),

reads as (
    select
        *,
        try_cast(event.source.lsn as bigint) as snapshot_lsn,
        lower(event.source.snapshot) as snapshot_marker,
        coalesce(
            try_cast(event.source.lsn as bigint) > 0
            and coalesce(lower(event.source.snapshot), '') != 'incremental'
            and event.source.schema is not null
            and event.source.`table` is not null,
            false
        ) as is_consistent_read,
        {{ lakerep_registered_date_columns('event.source.`schema`', 'event.source.`table`') }} as date_columns
    from events
    where event.op = 'r' and trim(event_value) != 'null'
),

consistent_reads as (
    select * from reads
    where is_consistent_read
),

snapshot_ends as (
    -- The snapshot's last read: every table of it is whole.
    select
        snapshot_lsn,
        min(landing_batch) as landing_batch,
        min(landed_at) as landed_at
    from consistent_reads
    where snapshot_marker = 'last'
    group by snapshot_lsn
),

table_unloads as (
    select
        event.source.schema as source_owner,
        event.source.`table` as source_table,
        snapshot_lsn,
        max(landing_batch) as landing_batch,
        max(landed_at) as landed_at,
        max(snapshot_marker in ('last', 'last_in_data_collection')) as has_last_read
    from consistent_reads
    group by event.source.schema, event.source.`table`, snapshot_lsn
),

whole_unloads as (
    select
        table_unloads.source_owner,
        table_unloads.source_table,
        table_unloads.snapshot_lsn,
        case
            when table_unloads.has_last_read then table_unloads.landing_batch
            else greatest(table_unloads.landing_batch, snapshot_ends.landing_batch)
        end as landing_batch,
        case
            when table_unloads.has_last_read then table_unloads.landed_at
            else greatest(table_unloads.landed_at, snapshot_ends.landed_at)
        end as landed_at
    from table_unloads
    left join snapshot_ends on table_unloads.snapshot_lsn = snapshot_ends.snapshot_lsn
    where table_unloads.has_last_read or snapshot_ends.snapshot_lsn is not null
),

snapshot_rows as (
    select
        concat_ws(
            ':',
            concat(whole_unloads.source_owner, '.', whole_unloads.source_table),
            {{ lakerep_lsn_position('whole_unloads.snapshot_lsn') }},
            {{ lakerep_lsn_position('whole_unloads.snapshot_lsn') }}
        ) as snapshot_id,
        whole_unloads.source_owner,
        whole_unloads.source_table,
        {{ lakerep_lsn_position('whole_unloads.snapshot_lsn') }} as unload_start_position,
        {{ lakerep_lsn_position('whole_unloads.snapshot_lsn') }} as unload_end_position,
        {{ lakerep_debezium_image('reads.event.after', 'reads.date_columns', 'reads.value_types') }} as row_image,
        whole_unloads.landing_batch,
        whole_unloads.landed_at,
        reads.landed_file,
        reads.landed_line,
        cast(null as string) as mapping_reason
    from consistent_reads as reads
    inner join whole_unloads
        on
            reads.event.source.schema = whole_unloads.source_owner
            and reads.event.source.`table` = whole_unloads.source_table
            and reads.snapshot_lsn = whole_unloads.snapshot_lsn
),

unmapped_reads as (
    -- Reads of no consistent snapshot, each an unload of its own that is quarantined.
    select
        concat_ws(':', landed_file, cast(landed_line as string)) as snapshot_id,
        event.source.schema as source_owner,
        event.source.`table` as source_table,
        cast(null as string) as unload_start_position,
        cast(null as string) as unload_end_position,
        event.after as row_image,
        landing_batch,
        landed_at,
        landed_file,
        landed_line,
        case
            when snapshot_marker = 'incremental' then 'debezium_incremental_snapshot'
            else 'debezium_malformed_event'
        end as mapping_reason
    from reads
    where not is_consistent_read
),

unloads as (
    select * from snapshot_rows
    union all
    select * from unmapped_reads
)

select * from unloads
