"""A source the runner reads itself (issue 23), as DB2 Capture reads its log: at the start of
every cycle, what the source holds past its confirmed position lands as one landing batch, and
only then is the position confirmed.

A crash between landing and confirming reads the same transactions again; they are left out by
their commit positions (not_landed), so landing them adds nothing. A lake with such a source
holds that source's log only: positions of two databases cannot be ordered against each other.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, replace

from lakerep import declared_views, landing
from lakerep.lake import lake_home
from lakerep.registrations import load_registrations
from lakerep.sources.pgoutput import format_lsn
from lakerep.sources.postgresql import PostgresqlSource, SourceError, not_landed, unload_position
from lakerep.sources.schema_history import (
    HistoryRow,
    SchemaHistory,
    declared_shapes,
    read_history,
    record_history,
    watch_shapes,
)
from lakerep.sources.slot_continuity import TAKING_A_NEW_SLOT, SlotRecord, why_broken, why_not_the_lakes
from lakerep.sources.slot_record import read_slot_record, write_slot_record

LOWEST_POSITION = "0" * 20  # below every real one (the macro lakerep_lowest_position)


class ContinuityBroken(SourceError):
    """The source's slot no longer delivers every change past the lake's, and the start may not
    turn cold (warmns, recover)."""


@dataclass
class OpenedSource:
    """A source as open_source left it: record, the lake's record of its slot as last written
    (land_new_changes keeps it); said, the line that says why its slot was lost, when it was
    lost just now."""

    record: SlotRecord
    said: str | None = None

    @property
    def cold_start_from(self) -> str | None:
        """The log position of a cold start the lake owes its source (its slot was lost, SPEC §4),
        or None."""
        return self.record.cold_start_from


# With nothing landed, the slot moves past what it read (transactions of tables not registered)
# once that is a WAL segment's worth: the record is then written once a segment, not every cycle.
MOVE_ON_AFTER_BYTES = 16 << 20


def open_source(spark, source: PostgresqlSource, start_type: str | None = None) -> OpenedSource:
    """Check the source (PostgresqlSource.check) and that its slot delivers every change past the
    lake's record of it (lakerep.sources.slot_continuity). A new lake makes its slot and a lake of
    an earlier lakerep adopts the one it finds; a slot behind the record is confirmed up to it.
    When continuity is broken the lake takes a new slot (dropping one whose WAL is gone) and owes
    a cold start from it: every change committed before it is left to the members' full
    refreshes (SPEC §5), and the record says so until the cold start has run (cold_start_done).
    A start that may not turn cold (start_type warmns or recover) is refused instead, with
    nothing changed."""
    recorded = read_slot_record(spark)
    found = source.check()
    if recorded is not None and recorded.cold_start_from == TAKING_A_NEW_SLOT:
        broken = "a new replication slot was being taken when the lake's last command stopped"
    else:  # whether the lake has read before matters only to a lake without a record
        has_read = recorded is None and _highest_landed_position(spark) is not None
        refused = why_not_the_lakes(recorded, found, source.slot, lake_has_read=has_read)
        if refused is not None:
            raise SourceError(refused)
        broken = why_broken(recorded, found, source.slot, lake_has_read=has_read)

    def record(confirmed_lsn: int | None, cold_start_from: str | None) -> SlotRecord:
        kept = SlotRecord(source.slot, found.system_identifier, confirmed_lsn, cold_start_from)
        write_slot_record(spark, kept)
        return kept

    previous = None if recorded is None else recorded.confirmed_lsn
    if broken is None:
        owed = None if recorded is None else recorded.cold_start_from
        if found.confirmed_lsn is None:  # a new lake: a command stopped while it takes the slot owns it
            record(None, TAKING_A_NEW_SLOT)
            recorded = record(source.take_new_slot(), None)
        elif recorded is None or recorded.slot != source.slot:
            recorded = record(found.confirmed_lsn, owed)
        elif recorded.confirmed_lsn is not None and found.confirmed_lsn < recorded.confirmed_lsn:
            # Stopped between recording and confirming: what it landed is read again and left
            # out, so no read would confirm it, and the server would keep its WAL.
            source.confirm(recorded.confirmed_lsn)
        return OpenedSource(recorded)
    confirmed = "nothing" if previous is None else format_lsn(previous)
    if start_type in ("warmns", "recover"):
        raise ContinuityBroken(
            f"{broken}, and the changes after what the lake confirmed ({confirmed}) are lost to it: "
            "start cold (--start cold), which takes a new slot; every member of this source then "
            "needs a full refresh (lakerep refresh --source)"
        )
    highest = _highest_landed_position(spark)
    if highest is not None and unload_position(found.current_lsn) <= highest:
        raise SourceError(
            f"{broken}, and the server's log is at {format_lsn(found.current_lsn)}, below what the lake "
            "has landed: positions of two servers cannot be ordered; land this server in a lake of its own"
        )
    # Recorded before the slot is made: a command stopped in between takes it again, never adopts it.
    record(previous, TAKING_A_NEW_SLOT)
    # A slot made again by someone else, or moved, delivers what commits past it.
    new = source.take_new_slot() if found.confirmed_lsn is None or found.wal_lost else found.confirmed_lsn
    cold_start_from = unload_position(new)  # a transaction that commits at the slot's start is read
    if previous is None and highest is None:  # a new lake, stopped while it took its slot: nothing lost
        return OpenedSource(record(new, cold_start_from))
    return OpenedSource(record(new, cold_start_from), (
        f"{broken}: the changes between {confirmed} (what the lake confirmed) and {format_lsn(new)} are "
        f"lost to the lake; it reads the slot {source.slot} from {format_lsn(new)} and starts cold there, "
        "so every member of this source needs a full refresh (lakerep refresh --source; a set with "
        "DISABLE_REFRESH stops with a gap)"
    ))  # fmt: skip


def cold_start_done(spark, opened: OpenedSource) -> None:
    """The cold start the lake owed its source has run (a cycle of it completed)."""
    opened.record = replace(opened.record, cold_start_from=None)
    write_slot_record(spark, opened.record)


def _highest_landed_position(spark) -> str | None:
    """The highest well-formed position landed, or None: the lake has landed no log record."""
    if not spark.catalog.tableExists(landing.SOURCE_LOG_TABLE):
        return None
    return _highest_landed(spark, "true")


def land_new_changes(
    spark,
    source: PostgresqlSource,
    opened: OpenedSource | None = None,
    max_changes: int | None = None,
    refresh_truncated: Callable[[tuple[str, ...]], None] | None = None,
) -> int:
    """Land the source's changes past its confirmed position (whole transactions), then confirm;
    the number of records landed. The records stream from the slot into the landing batch,
    never all in memory. With `opened` (open_source's), the lake's record of the slot is written
    before each confirmation, so the slot is never past it (slot_continuity).

    A TRUNCATE is no row change: the tables it emptied go to `refresh_truncated`, which has their
    members refreshed from an unload taken after it, before the slot moves past it; a crash in
    between reads it again and refreshes again. Without one, a truncate stops the read. After a
    refresh the slot is read again, for the unload's own transaction: Capture then passes the
    unload in this cycle, and the members load it now rather than mirror onto what the truncate
    emptied."""
    count = 0
    while True:
        landed, truncated = _land_and_confirm(spark, source, opened, max_changes, refresh_truncated)
        count += landed
        if not truncated:
            return count


def _land_and_confirm(
    spark,
    source: PostgresqlSource,
    opened: OpenedSource | None,
    max_changes: int | None,
    refresh_truncated: Callable[[tuple[str, ...]], None] | None,
) -> tuple[int, bool]:
    """One read of land_new_changes: the records landed, and whether the slot moved past a
    TRUNCATE it read (then the caller reads again)."""
    count = 0
    with source.stream(max_changes) as stream:
        records = stream.records
        first = next(records, None)  # None: nothing committed since, and the lake is not asked
        if first is not None:  # commit order: the first record has the lowest commit
            history = SchemaHistory(declared_shapes(load_registrations()), read_history(spark))
            changed: list[HistoryRow] = []
            records = watch_shapes(itertools.chain([first], records), lambda: stream.last_relation,
                                   history, source.describe, source.missing_value, changed)  # fmt: skip
            highest = highest_landed_commit(spark, at_or_above=first["uow_id"])
            new = not_landed(records, highest)
            first_new = next(new, None)  # None: a read after a crash, every record landed already
            if first_new is not None:
                land = itertools.chain([first_new], new)
                count = landing.land_log_records(spark, land, before_write=lambda: _record(spark, changed))[1]
    if stream.truncated:  # the slot is free once the read's block has ended: unloads may read
        if refresh_truncated is None:
            raise SourceError(
                f"a TRUNCATE of {', '.join(stream.truncated)}: no row change, so its members need a "
                "refresh taken after it (lakerep run --source refreshes them)"
            )
        refresh_truncated(stream.truncated)
    # With nothing landed the slot still moves on, past transactions of tables not registered.
    lsn = stream.confirm_lsn
    if opened is not None:
        confirmed = opened.record.confirmed_lsn or 0
        if lsn <= confirmed or (not count and lsn - confirmed < MOVE_ON_AFTER_BYTES):
            return count, False  # nothing of the lake's moves: the lake is not written
        opened.record = replace(opened.record, confirmed_lsn=lsn)
        write_slot_record(spark, opened.record)
    source.confirm(lsn)
    return count, bool(stream.truncated)


def _record(spark, changed: list[HistoryRow]) -> None:
    """Commit the schema history's new rows before the records they describe; the views built
    with the declarations are built again, as the source's columns changed."""
    if changed:
        declared_views.forget(lake_home())
        record_history(spark, changed)


def highest_landed_commit(spark, at_or_above: str) -> str | None:
    """The highest commit position landed at or above a position (well-formed positions only: a
    malformed one landed by mistake must not hide the source's records). Bounded below, the scan
    reads only the landing files whose positions reach that far (Delta's file statistics), not
    the whole history in every cycle; a landed commit below the read's lowest one cannot hide a
    record of it."""
    return _highest_landed(spark, f"record_type = 'C' and log_position >= '{at_or_above}'")


def _highest_landed(spark, condition: str) -> str | None:
    """The highest well-formed position landed that meets `condition` (SQL)."""
    return spark.sql(
        f"select max(upper(log_position)) from {landing.SOURCE_LOG_TABLE} where {condition} "
        "and length(log_position) = 20 and log_position rlike '^[0-9A-Fa-f]+$'"
    ).collect()[0][0]
