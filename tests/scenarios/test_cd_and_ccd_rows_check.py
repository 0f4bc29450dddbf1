"""The CD and CCD rows the scenario checks expect of the oracle's changes, without Spark (SPEC §3).

CD: user columns hold the row after the change (for a delete, the row deleted), before-image
columns the row before it, and a key update of a table registered with
key_updates_as_delete_insert is a delete of the old key and an insert of the new one.
CCD: those rows at the change's commit, every one (non-condensed) or the latest of each key
(condensed), and, complete, the rows of each snapshot landed; changes a cold start skipped may be
missing, nothing may differ from the source."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from lakerep.registrations import load_registrations
from lakerep.scenarios.ccd_checks import (
    SNAPSHOT_LANDED,
    ccd_differences,
    ccd_rows_held_twice,
    ccd_rows_of_changes,
    ccd_rows_of_snapshot,
)
from lakerep.scenarios.cd_rows import cd_rows_of
from lakerep.workload.oracle import Change
from lakerep.workload.snapshot import Snapshot

REGISTRATIONS = load_registrations()
CUSTOMERS = REGISTRATIONS["SALES.CUSTOMERS"]  # before images (prefix X), key updates split
ORDERS = REGISTRATIONS["SALES.ORDERS"]  # no before images, key updates kept as updates
ORDER_LINES = REGISTRATIONS["SALES.ORDER_LINES"]  # CCD condensed and complete
STOCK = REGISTRATIONS["INVENTORY.STOCK"]  # CCD non-condensed and complete

ADA = ("C1", "Ada", None, Decimal("10.00"), date(2026, 1, 1), None)
ADA_RICHER = ("C1", "Ada", None, Decimal("99.00"), date(2026, 1, 1), None)
ADA_MOVED = ("C9", "Ada", None, Decimal("10.00"), date(2026, 1, 1), None)
ORDER = (1, "C1", date(2026, 1, 2), "NEW", Decimal("5.00"), None)
ORDER_MOVED = (2, "C1", date(2026, 1, 2), "NEW", Decimal("5.00"), None)


def change(registration, operation: str, before, after, *, commit="0020", log="0010") -> Change:
    return Change(
        table=registration.qualified_name,
        uow_id="U1",
        commit_position=commit,
        commit_timestamp=f"time of {commit}",
        log_position=log,
        operation=operation,
        before_values=before,
        after_values=after,
        registration=registration,
        key_indexes=tuple(registration.column_names.index(k) for k in registration.key_columns),
    )


def test_an_insert_has_no_before_image():
    assert cd_rows_of(change(CUSTOMERS, "I", None, ADA), CUSTOMERS) == [("I", ADA + (None,) * 6)]


def test_a_delete_holds_the_row_deleted_in_both_images():
    assert cd_rows_of(change(CUSTOMERS, "D", ADA, None), CUSTOMERS) == [("D", ADA + ADA)]


def test_an_update_holds_the_row_after_and_the_row_before():
    assert cd_rows_of(change(CUSTOMERS, "U", ADA, ADA_RICHER), CUSTOMERS) == [("U", ADA_RICHER + ADA)]


def test_a_key_update_registered_as_delete_insert_is_a_delete_and_an_insert():
    assert cd_rows_of(change(CUSTOMERS, "U", ADA, ADA_MOVED), CUSTOMERS) == [
        ("D", ADA + ADA),
        ("I", ADA_MOVED + (None,) * 6),
    ]


def test_a_key_update_of_a_table_without_before_images_stays_an_update():
    assert cd_rows_of(change(ORDERS, "U", ORDER, ORDER_MOVED), ORDERS) == [("U", ORDER_MOVED)]


ORDER_ONE_LINE = (1, 1, "P1", 2, Decimal("5.00"), None)
ORDER_ONE_LINE_MORE = (1, 1, "P1", 3, Decimal("5.00"), None)
ORDER_ONE_LINE_TWO = (1, 2, "P2", 1, Decimal("7.00"), None)
BIN = ("W1", "SKU1", 10, None, None)
BIN_FEWER = ("W1", "SKU1", 4, None, None)
QUIET_BIN = ("W2", "SKU9", 1, None, None)  # never changed: only a snapshot knows it


def snapshot_rows(registration, start: str, *rows) -> list[tuple]:
    snapshot = Snapshot(
        registration.qualified_name,
        start,
        start,
        [dict(zip(registration.column_names, row, strict=True)) for row in rows],
    )
    return ccd_rows_of_snapshot(snapshot, registration)


def test_a_ccd_row_is_the_cd_row_at_the_commit_and_a_key_update_pair_is_two():
    moved = change(ORDER_LINES, "U", ORDER_ONE_LINE, ORDER_ONE_LINE_TWO, commit="0040", log="0030")
    assert ccd_rows_of_changes([moved], ORDER_LINES) == [
        ("0040", "0030", "D", "time of 0040", *ORDER_ONE_LINE),
        ("0040", "0030", "I", "time of 0040", *ORDER_ONE_LINE_TWO),
    ]


def test_a_snapshot_row_is_an_insert_at_the_unload_start():
    assert snapshot_rows(STOCK, "0050", QUIET_BIN) == [("0050", "0050", "I", SNAPSHOT_LANDED, *QUIET_BIN)]


def inserted_then_updated(registration, row, updated) -> list[tuple]:
    """The CCD rows of an insert committed at 0020 and an update of the row committed at 0060."""
    return ccd_rows_of_changes(
        [
            change(registration, "I", None, row, commit="0020", log="0010"),
            change(registration, "U", row, updated, commit="0060", log="0055"),
        ],
        registration,
    )


def stock_history():
    return inserted_then_updated(STOCK, BIN, BIN_FEWER)


def test_a_history_ccd_holds_every_change_read_and_every_snapshot_row():
    changes, snapshot = stock_history(), snapshot_rows(STOCK, "0050", BIN, QUIET_BIN)
    assert ccd_differences(STOCK, changes + snapshot, changes, snapshot, None) == ([], [])
    assert ccd_differences(STOCK, changes, changes, snapshot, None) == ([], snapshot)


def test_a_history_ccd_may_lack_what_a_cold_start_skipped_and_nothing_after():
    changes = stock_history()
    assert ccd_differences(STOCK, changes[1:], changes, [], "0020") == ([], [])
    assert ccd_differences(STOCK, changes[:1], changes, [], "0020") == ([], changes[1:])


def test_a_ccd_row_with_other_values_than_the_change_is_extra():
    changes = stock_history()
    tampered = (*changes[1][:4], "W1", "SKU1", 5, None, None)
    assert ccd_differences(STOCK, [changes[0], tampered], changes, [], None) == ([tampered], changes[1:])


def lines_history():
    return inserted_then_updated(ORDER_LINES, ORDER_ONE_LINE, ORDER_ONE_LINE_MORE)


def test_a_condensed_ccd_holds_the_latest_row_of_each_key():
    changes = lines_history()
    assert ccd_differences(ORDER_LINES, changes[1:], changes, [], None) == ([], [])
    assert ccd_differences(ORDER_LINES, changes[:1], changes, [], None) == ([], changes[1:])
    # the latest change was skipped by a cold start: the key may keep an older one
    assert ccd_differences(ORDER_LINES, changes[:1], changes, [], "0060") == ([], [])


def test_in_a_condensed_ccd_a_snapshot_row_gives_way_only_to_a_later_change():
    changes = lines_history()
    early = snapshot_rows(ORDER_LINES, "0030", ORDER_ONE_LINE)  # before the update: the update wins
    late = snapshot_rows(ORDER_LINES, "0070", ORDER_ONE_LINE_MORE)  # after it: the snapshot row wins
    assert ccd_differences(ORDER_LINES, changes[1:], changes, early, None) == ([], [])
    assert ccd_differences(ORDER_LINES, changes[1:], changes, early + late, None) == ([], late)
    assert ccd_differences(ORDER_LINES, late, changes, early + late, None) == ([], [])


def test_a_history_ccd_holds_a_change_once_per_operation_and_a_snapshot_row_once_per_key():
    changes, snapshot = stock_history(), snapshot_rows(STOCK, "0050", BIN, QUIET_BIN)
    assert ccd_rows_held_twice(STOCK, changes + snapshot) == []
    # another operation at the same position, as a key update registered as delete/insert writes
    moved = (*changes[1][:2], "D", *changes[1][3:])
    assert ccd_rows_held_twice(STOCK, [*changes, moved]) == []
    assert ccd_rows_held_twice(STOCK, [*changes, *snapshot, changes[1]]) == [changes[1]]
    assert ccd_rows_held_twice(STOCK, [*changes, *snapshot, snapshot[0]]) == [snapshot[0]]
    reloaded = (*snapshot[0][:4], *BIN_FEWER)  # a second row of the first key in the same unload
    assert ccd_rows_held_twice(STOCK, [*snapshot, reloaded]) == [reloaded]


def test_a_condensed_ccd_holds_one_row_per_key():
    changes = lines_history()
    assert ccd_rows_held_twice(ORDER_LINES, changes[1:]) == []
    assert ccd_rows_held_twice(ORDER_LINES, changes) == [changes[1]]
