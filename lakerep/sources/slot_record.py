"""The lake's record of its PostgreSQL source's slot (lakerep.sources.slot_continuity.SlotRecord):
one row of `lakerep_raw.source_slot`, replaced in one commit. The runner writes it before it
confirms a position to the slot, so the slot is never past the record unless someone else moved
it or made it again; only the runner reads it.
"""

from __future__ import annotations

from lakerep.delta_tables import create_if_missing
from lakerep.landing import LANDING_SCHEMA
from lakerep.sources.pgoutput import format_lsn, parse_lsn
from lakerep.sources.slot_continuity import SlotRecord

SOURCE_SLOT_TABLE = f"{LANDING_SCHEMA}.source_slot"
RECORD_COLUMNS = "slot_name string, system_identifier string, confirmed_lsn string, cold_start_from string"


def read_slot_record(spark) -> SlotRecord | None:
    """The lake's record, or None when it holds none (a new lake, or one of an earlier lakerep)."""
    if not spark.catalog.tableExists(SOURCE_SLOT_TABLE):
        return None
    rows = spark.sql(
        f"select slot_name, system_identifier, confirmed_lsn, cold_start_from from {SOURCE_SLOT_TABLE}"
    ).collect()
    if not rows:
        return None
    slot, system_identifier, confirmed, cold_start_from = rows[0]
    confirmed_lsn = None if confirmed is None else parse_lsn(confirmed)
    return SlotRecord(slot, system_identifier, confirmed_lsn, cold_start_from)


def write_slot_record(spark, record: SlotRecord) -> None:
    """Replace the record, in one commit."""
    from pyspark.sql import functions as F

    columns = f"{RECORD_COLUMNS}, recorded_at timestamp"
    create_if_missing(spark, SOURCE_SLOT_TABLE, f"({columns}) using delta")
    confirmed = None if record.confirmed_lsn is None else format_lsn(record.confirmed_lsn)
    row = (record.slot, record.system_identifier, confirmed, record.cold_start_from)
    frame = spark.createDataFrame([row], RECORD_COLUMNS)
    frame.withColumn("recorded_at", F.current_timestamp()).write.insertInto(SOURCE_SLOT_TABLE, overwrite=True)
