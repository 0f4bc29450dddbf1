"""Whether a slot still delivers every change past the lake's record of it (issue 62, item 1):
each case of lakerep.sources.slot_continuity.why_broken, against what the server shows; and whose
slot a lake finds (item 2: why_not_the_lakes)."""

from __future__ import annotations

import pytest

from lakerep.sources.slot_continuity import SlotFound, SlotRecord, why_broken, why_not_the_lakes

RECORDED = SlotRecord("lakerep", "7001", confirmed_lsn=500)


@pytest.mark.parametrize(
    ("recorded", "found", "lake_has_read", "broken"),
    [
        # a new lake takes the slot, made if missing; an earlier lakerep's lake adopts the one it finds
        (None, SlotFound("7001", 900, None), False, None),
        (None, SlotFound("7001", 900, 400), True, None),
        (None, SlotFound("7001", 900, None), True, "the replication slot lakerep is gone"),
        # in step: the slot at or behind what the lake confirmed (a confirmation cut off after the
        # record), whatever the timeline (a promoted standby keeps the system identifier)
        (RECORDED, SlotFound("7001", 900, 500), True, None),
        (RECORDED, SlotFound("7001", 900, 450), True, None),
        # broken
        (RECORDED, SlotFound("7001", 900, None), True, "the replication slot lakerep is gone"),
        (RECORDED, SlotFound("7001", 900, 500, wal_lost=True), True, "was invalidated"),
        (RECORDED, SlotFound("7001", 900, 501), True, "is at 0/1F5, past what the lake confirmed (0/1F4)"),
        (RECORDED, SlotFound("8002", 900, 500), True, "the server is another one (system identifier 8002"),
        (SlotRecord("lakerep", "7001", None), SlotFound("7001", 900, 10), True, "confirmed (nothing)"),
    ],
)
def test_a_slot_is_continuous_only_behind_the_lakes_record(recorded, found, lake_has_read, broken):
    said = why_broken(recorded, found, "lakerep", lake_has_read)
    if broken is None:
        assert said is None
    else:
        assert said is not None and broken in said


def test_another_slot_continues_the_read_only_from_behind_the_lake():
    assert why_broken(RECORDED, SlotFound("7001", 900, 480), "lakerep_b", True) is None
    said = why_broken(RECORDED, SlotFound("7001", 900, 600), "lakerep_b", True)
    assert said.startswith("the replication slot lakerep_b (the lake read lakerep) is at 0/258")


@pytest.mark.parametrize(
    ("recorded", "found", "lake_has_read", "refused"),
    [
        # a new lake that finds the slot it would make: another lake's or project's
        (None, SlotFound("7001", 900, 400), False, True),
        (None, SlotFound("7001", 900, None), False, False),  # it makes the slot
        (None, SlotFound("7001", 900, 400), True, False),  # a lake of an earlier lakerep adopts it
        (RECORDED, SlotFound("7001", 900, 500), True, False),
        (RECORDED, SlotFound("7001", 900, 500), False, False),  # its record says it is the lake's
    ],
)
def test_a_slot_a_new_lake_did_not_make_is_another_readers(recorded, found, lake_has_read, refused):
    said = why_not_the_lakes(recorded, found, "lakerep", lake_has_read)
    if not refused:
        assert said is None
    else:
        assert said.startswith("the replication slot lakerep exists already and this lake has read nothing")
        assert "--slot NAME" in said and "pg_drop_replication_slot('lakerep')" in said
