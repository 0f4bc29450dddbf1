"""Values an update left unchanged and its source did not send (an unchanged TOASTed value under
PostgreSQL's default replica identity, written as Debezium's placeholder): validation fills each
from the row's last image the lake holds, whichever holds it: an unload, a record judged in an
earlier cycle (or, once a prune deleted it, its change in the CCD), an earlier record of the same
judging (updates in a chain), never across a delete or a key update (another row's image). A key
update's own value comes from its old key's row (the row moved), and the updates after it take it
from there. A value no image holds quarantines its record, and its transaction is held back
whole."""

from __future__ import annotations

import json

import pytest

from lakerep import dbt, landing
from lakerep.lake import reset_lake
from lakerep.pipeline import APPLY_MODELS
from lakerep.sources.pgoutput import UNSENT_VALUE
from lakerep.summary import relation_name

pytestmark = pytest.mark.usefixtures("one_parse")  # the module's invocations share one dbt parse

STAGING = ["run", "--select", "staging", "intermediate"]
CAPTURE_RUN = ["run", "--exclude", APPLY_MODELS]  # completes the cycle: the next judges what lands since


def position(n: int) -> str:
    return f"{n:020X}"


def customer(customer_id: str, **values) -> str:
    return json.dumps({"customer_id": customer_id, "name": "n", "email": None, **values})


def customer_key(customer_id: str) -> str:
    return json.dumps({"customer_id": customer_id})


def change(n: int, uow: int, kind: str, after: str | None = None, before: str | None = None) -> dict:
    is_change = kind in {"I", "U", "D"}
    return {
        "log_position": position(n),
        "uow_id": position(uow),
        "record_type": kind,
        "source_owner": "SALES" if is_change else None,
        "source_table": "CUSTOMERS" if is_change else None,
        "log_timestamp": "2026-01-01 00:00:00",
        "auth_id": None,
        "auth_token": None,
        "before_image": before,
        "after_image": after,
    }


@pytest.fixture(scope="module")
def judged(spark):
    reset_lake()
    landing.land_snapshot_rows(spark, [{
        "snapshot_id": "SALES.CUSTOMERS:1", "source_owner": "SALES", "source_table": "CUSTOMERS",
        "unload_start_position": position(0x100), "unload_end_position": position(0x100),
        "row_image": customer("C1", email="from the unload"),
    }])  # fmt: skip
    landing.land_log_records(spark, [
        change(0x110, 0x110, "I", customer("C2", email="from an earlier cycle")),
        change(0x112, 0x110, "I", customer("C5", email="of a row deleted since")),
        change(0x114, 0x110, "D", before=customer_key("C5")),
        change(0x120, 0x110, "C"),
        change(0x130, 0x130, "I", customer("C11", email="of a change pruned since")),
        change(0x140, 0x130, "C"),
    ])  # fmt: skip
    dbt.invoke(STAGING, quiet=True)
    dbt.invoke(CAPTURE_RUN, quiet=True)
    # What a prune deletes of the judged log (lakerep_prune_plan): the changes of a UOW every
    # member applied; the CCD keeps them.
    spark.sql(
        f"delete from {relation_name('int_log_records_judged')}"
        f" where uow_id = '{position(0x130)}' and record_type = 'I'"
    )
    landing.land_log_records(spark, [
        change(0x200, 0x200, "U", customer("C1", name="b", email=UNSENT_VALUE)),
        change(0x210, 0x200, "U", customer("C2", name="b", email=UNSENT_VALUE)),
        change(0x220, 0x200, "U", customer("C2", name="c", email=UNSENT_VALUE)),
        change(0x230, 0x200, "I", customer("C4", email="inserted now")),
        change(0x240, 0x200, "U", customer("C4", name="b", email=UNSENT_VALUE)),
        change(0x250, 0x200, "C"),
        change(0x300, 0x300, "U", customer("C3", email=UNSENT_VALUE)),  # no image of C3 anywhere
        change(0x310, 0x300, "U", customer("C2", name="d")),
        change(0x320, 0x300, "C"),
        # a key update: C8's value is not C5's, and C5's earlier row was deleted
        change(0x400, 0x400, "U", customer("C5", email=UNSENT_VALUE), before=customer_key("C8")),
        change(0x410, 0x400, "C"),
        change(0x500, 0x500, "I", customer("C6", email="of the row before its delete")),
        change(0x510, 0x500, "D", before=customer_key("C6")),
        change(0x520, 0x500, "I", customer("C6", email="inserted again")),
        change(0x530, 0x500, "U", customer("C6", name="b", email=UNSENT_VALUE)),
        change(0x540, 0x500, "C"),
        change(0x600, 0x600, "I", customer("C9", email="of the row before its key update")),
        change(0x610, 0x600, "C"),
        change(0x700, 0x700, "U", customer("C10", email=UNSENT_VALUE), before=customer_key("C9")),
        change(0x710, 0x700, "U", customer("C10", name="b", email=UNSENT_VALUE)),
        change(0x720, 0x700, "C"),
        change(0x800, 0x800, "U", customer("C11", name="b", email=UNSENT_VALUE)),
        change(0x810, 0x800, "C"),
    ])  # fmt: skip
    dbt.invoke(STAGING, quiet=True)
    rows = spark.sql(
        f"select log_position, after_image, quarantine_reason, uow_quarantine_reason"
        f" from {relation_name('int_log_records_judged')}"
    ).collect()
    return {row["log_position"]: row for row in rows}


@pytest.mark.parametrize(
    ("n", "email"),
    [
        (0x200, "from the unload"),
        (0x210, "from an earlier cycle"),
        (0x220, "from an earlier cycle"),  # through the update before it, which did not send it either
        (0x240, "inserted now"),
        (0x530, "inserted again"),  # its last image, not that of the row deleted before
        (0x700, "of the row before its key update"),  # the row moved from C9 to C10
        (0x710, "of the row before its key update"),  # after the move, at C10
        (0x800, "of a change pruned since"),  # from the CCD: the judged change is gone
    ],
)
def test_a_value_not_sent_comes_from_the_rows_last_image(judged, n, email):
    record = judged[position(n)]
    assert record["quarantine_reason"] is None and record["uow_quarantine_reason"] is None
    assert json.loads(record["after_image"])["email"] == email


def test_a_value_no_image_holds_quarantines_its_record_and_holds_its_transaction(judged):
    assert judged[position(0x300)]["quarantine_reason"] == "image_value_not_sent"
    assert judged[position(0x300)]["after_image"] == customer("C3", email=UNSENT_VALUE)  # as it landed
    assert (
        judged[position(0x310)]["uow_quarantine_reason"] == "uow_has_quarantined_record: image_value_not_sent"
    )


def test_a_value_is_never_taken_from_another_row_of_the_same_key(judged):
    """A key update's new key held a row deleted since: the row updated had another key, whose
    value the update did not send either. Filled from the deleted row, it would be a wrong value."""
    assert judged[position(0x400)]["quarantine_reason"] == "image_value_not_sent"
