"""The CD rows the scenario checks expect of each change of the oracle, without Spark (SPEC §3):
user columns hold the row after the change (for a delete, the row deleted), before-image columns
the row before it, and a key update of a table registered with key_updates_as_delete_insert is a
delete of the old key and an insert of the new one."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from lakerep.registrations import load_registrations
from lakerep.scenarios.checks import cd_rows_of
from lakerep.workload.oracle import Change

REGISTRATIONS = load_registrations()
CUSTOMERS = REGISTRATIONS["SALES.CUSTOMERS"]  # before images (prefix X), key updates split
ORDERS = REGISTRATIONS["SALES.ORDERS"]  # no before images, key updates kept as updates

ADA = ("C1", "Ada", None, Decimal("10.00"), date(2026, 1, 1), None)
ADA_RICHER = ("C1", "Ada", None, Decimal("99.00"), date(2026, 1, 1), None)
ADA_MOVED = ("C9", "Ada", None, Decimal("10.00"), date(2026, 1, 1), None)
ORDER = (1, "C1", date(2026, 1, 2), "NEW", Decimal("5.00"), None)
ORDER_MOVED = (2, "C1", date(2026, 1, 2), "NEW", Decimal("5.00"), None)


def change(registration, operation: str, before, after) -> Change:
    return Change(
        table=registration.qualified_name,
        uow_id="U1",
        commit_position="0020",
        commit_timestamp=None,
        log_position="0010",
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
