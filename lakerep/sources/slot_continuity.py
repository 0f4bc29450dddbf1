"""Whether a PostgreSQL source's slot still delivers every change past what the lake confirmed.

The slot is the only thing that keeps the server's changes for the lake. A slot dropped by a
DBA, one left behind by a failover (slots do not follow a primary), one invalidated by
max_slot_wal_keep_size, one made again under the same name, or another server answering at the
same address: each time the changes between the lake's last confirmed position and the slot's
are gone. The lake records which slot of which server (its system identifier) it reads, and up
to where it confirmed (lakerep.sources.slot_record); this module compares that record with what
the server shows, and says why continuity is broken, or that it holds.

A break is never mended silently by a new slot: the session starts cold from the new slot's
position (SPEC §4), so every member of the source is in a gap (SPEC §5: a full refresh, or a
stop under DISABLE_REFRESH) and the run says why in one line. A timeline change alone (a
promoted standby of the same system) is no break: its slot, if it has one, carries on.
"""

from __future__ import annotations

from dataclasses import dataclass

from lakerep.sources.pgoutput import format_lsn

# cold_start_from while a new slot is being taken: the lake owes a cold start from the position
# the slot will have, which is not known yet.
TAKING_A_NEW_SLOT = "taking a new slot"


@dataclass(frozen=True)
class SlotRecord:
    """What the lake holds of its source's slot: its name, the server's system identifier, the
    position the lake last confirmed (an LSN; None before the first confirmation), and the
    position of a cold start the lake owes (a log position; None when it owes none)."""

    slot: str
    system_identifier: str
    confirmed_lsn: int | None
    cold_start_from: str | None = None


@dataclass(frozen=True)
class SlotFound:
    """What the server shows: its system identifier and WAL position now, and the slot's
    confirmed position (None: no such slot) and whether its WAL was removed (wal_status lost)."""

    system_identifier: str
    current_lsn: int
    confirmed_lsn: int | None
    wal_lost: bool = False


def why_not_the_lakes(
    recorded: SlotRecord | None, found: SlotFound, slot: str, lake_has_read: bool
) -> str | None:
    """Why the slot `slot` is not this lake's to read (one line saying what to do), or None. A lake
    that holds no record of a slot and has read nothing did not make the slot it finds: another
    lake or project reads it (the same default name), and two readers of one slot confirm away
    each other's changes. (A lake of an earlier lakerep, which kept no record, has read.)"""
    if recorded is not None or lake_has_read or found.confirmed_lsn is None:
        return None
    return (
        f"the replication slot {slot} exists already and this lake has read nothing from it: another "
        "lake or project reads it, and two readers of one slot confirm away each other's changes; give "
        f"this lake a slot of its own (--slot NAME), or drop that one if nobody reads it "
        f"(SELECT pg_drop_replication_slot('{slot}'))"
    )


def why_broken(recorded: SlotRecord | None, found: SlotFound, slot: str, lake_has_read: bool) -> str | None:
    """Why the slot `slot` no longer delivers every change past the lake's record (one clause
    naming what happened), or None when it does. With no record, a lake that has read nothing
    makes the slot (one it finds is another reader's: why_not_the_lakes), and one that has read
    before adopts the slot it finds: the lake of an earlier lakerep, which kept no record."""
    if recorded is not None and recorded.system_identifier != found.system_identifier:
        return (
            f"the server is another one (system identifier {found.system_identifier}; the lake "
            f"read {recorded.system_identifier})"
        )
    if found.confirmed_lsn is None:
        if recorded is None and not lake_has_read:
            return None
        return f"the replication slot {slot} is gone (dropped, or not on this server after a failover)"
    if found.wal_lost:
        return (
            f"the replication slot {slot} was invalidated: the server removed WAL it had not "
            "delivered (max_slot_wal_keep_size)"
        )
    if recorded is None:
        return None
    if recorded.slot != slot:
        # another slot continues the lake's read only if it is not past what the lake confirmed
        named = f"the replication slot {slot} (the lake read {recorded.slot})"
    else:
        named = f"the replication slot {slot}"
    if recorded.confirmed_lsn is None or found.confirmed_lsn > recorded.confirmed_lsn:
        confirmed = "nothing" if recorded.confirmed_lsn is None else format_lsn(recorded.confirmed_lsn)
        return (
            f"{named} is at {format_lsn(found.confirmed_lsn)}, past what the lake confirmed "
            f"({confirmed}): it was made again, or another reader moved it"
        )
    return None
