"""The schema history's decisions (ADR 0012), a case per kind of DDL: what a Relation message
that differs from the lake's shape of its table records, and at which position a shape holds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from lakerep.sources.pgoutput import Relation
from lakerep.sources.schema_history import (
    Change,
    Column,
    HistoryRow,
    SchemaHistory,
    Shape,
    SourceColumn,
    changes_between,
    watch_shapes,
    widens,
)

ORDERS = Shape(
    (Column("order_id", "bigint"), Column("status", "string"), Column("qty", "int")), ("order_id",)
)


def source(*columns: tuple[str, str, str | None]) -> list[SourceColumn]:
    return [SourceColumn(*column) for column in columns]


SAME = (("order_id", "bigint", "bigint"), ("status", "text", "string"), ("qty", "integer", "int"))


def kinds(changes: list[Change]) -> list[tuple]:
    return [(change.kind, change.column_name, change.type_before, change.type_after) for change in changes]


def test_the_same_shape_changes_nothing():
    assert changes_between(ORDERS, source(*SAME), ["order_id"]) == []


def test_a_varchar_made_longer_changes_nothing_a_string_holds_it():
    varchar = (("order_id", "bigint", "bigint"), ("status", "character varying(80)", "string"), SAME[2])
    assert changes_between(ORDERS, source(*varchar), ["order_id"]) == []


def test_an_added_column():
    added = source(*SAME, ("region", "text", "string"))
    assert kinds(changes_between(ORDERS, added, ["order_id"])) == [("add_column", "region", None, "string")]


def test_a_dropped_column():
    assert kinds(changes_between(ORDERS, source(*SAME[:2]), ["order_id"])) == [
        ("drop_column", "qty", "int", None)
    ]


def test_a_widened_column():
    widened = source(*SAME[:2], ("qty", "bigint", "bigint"))
    assert kinds(changes_between(ORDERS, widened, ["order_id"])) == [("widen_column", "qty", "int", "bigint")]


@pytest.mark.parametrize(
    ("columns", "identity", "said"),
    [
        (source(*SAME[:2], ("quantity", "integer", "int")), ["order_id"], "a rename?"),
        (
            source(*SAME[:2], ("qty", "smallint", "smallint")),
            ["order_id"],
            "qty changed type from int to smallint",
        ),
        (source(*SAME[:2], ("qty", "text", "string")), ["order_id"], "qty changed type from int to text"),
        (source(*SAME), ["status"], "the key (order_id) changed"),
        (source(*SAME[1:]), ["status"], "the key (order_id) changed"),
        (source(*SAME, ("shape", "point", None)), ["order_id"], "shape was added as point"),
    ],
    ids=["rename", "narrowing", "int-to-text", "key", "key-dropped", "unmapped-add"],
)
def test_an_unsafe_change_is_one_row_that_names_it(columns, identity, said):
    changes = changes_between(ORDERS, columns, identity)
    assert [change.kind for change in changes] == ["unsafe"]
    assert said in changes[0].detail


def test_replica_identity_full_flags_every_column_and_hides_no_key_change():
    assert changes_between(ORDERS, source(*SAME), ["order_id", "status", "qty"]) == []


@pytest.mark.parametrize(
    ("before", "after", "wider"),
    [("int", "bigint", True), ("smallint", "int", True), ("bigint", "int", False), ("float", "double", True),
     ("decimal(10,2)", "decimal(12,2)", True), ("decimal(10,2)", "decimal(12,4)", True),
     ("decimal(10,2)", "decimal(10,3)", False), ("decimal(10,2)", "decimal(10,2)", False),
     ("int", "string", False), ("date", "timestamp", False)],
)  # fmt: skip
def test_widening(before, after, wider):
    assert widens(before, after) is wider


def test_a_shape_holds_from_its_position_and_a_change_is_recorded_once():
    history = SchemaHistory({"SALES.ORDERS": ORDERS}, [])
    added = source(*SAME, ("region", "text", "string"))
    rows = history.observe("SALES.ORDERS", "B" * 20, added, ["order_id"])
    assert [row.change.kind for row in rows] == ["add_column"]
    assert rows[0].columns_after.endswith('["region", "string"]]')
    # the same Relation message read again (a crash before the slot moved): nothing new
    assert history.observe("SALES.ORDERS", "B" * 20, added, ["order_id"]) == []
    assert history.observe("SALES.ORDERS", "C" * 20, added, ["order_id"]) == []
    # a read from before the change compares with the shape then: the old message adds nothing
    assert history.observe("SALES.ORDERS", "A" * 20, source(*SAME), ["order_id"]) == []
    assert "region" not in history.shape_at("SALES.ORDERS", "A" * 20).live()
    assert history.shape_at("SALES.ORDERS", "B" * 20).live()["region"] == "string"


def test_a_change_met_again_in_a_transaction_that_commits_later_is_recorded_once():
    # two transactions change the table after an ALTER; the one with the lower LSN commits later
    history = SchemaHistory({"SALES.ORDERS": ORDERS}, [])
    added = source(*SAME, ("region", "text", "string"))
    assert [row.log_position for row in history.observe("SALES.ORDERS", "C" * 20, added, ["order_id"])] == [
        "C" * 20
    ]
    assert history.observe("SALES.ORDERS", "B" * 20, added, ["order_id"]) == []
    # a rename met so is recorded again: the lower position stops the table from there
    renamed = source(*SAME[:2], ("quantity", "integer", "int"))
    history = SchemaHistory({"SALES.ORDERS": ORDERS}, [])
    assert len(history.observe("SALES.ORDERS", "C" * 20, renamed, ["order_id"])) == 1
    assert [row.change.kind for row in history.observe("SALES.ORDERS", "B" * 20, renamed, ["order_id"])] == [
        "unsafe"
    ]
    assert history.shape_at("SALES.ORDERS", "B" * 20).stopped


def test_a_stopped_table_records_nothing_more():
    unsafe = HistoryRow("SALES", "ORDERS", "B" * 20, Change("unsafe", None, None, None, "a rename?"))
    history = SchemaHistory({"SALES.ORDERS": ORDERS}, [unsafe])
    assert history.shape_at("SALES.ORDERS", "C" * 20).stopped
    assert history.observe("SALES.ORDERS", "C" * 20, source(*SAME[:2]), ["order_id"]) == []


def test_a_declaration_that_holds_the_sources_columns_after_an_unsafe_change_resumes_the_table():
    renamed = source(
        ("order_id", "bigint", "bigint"), ("status", "text", "string"), ("quantity", "integer", "int")
    )
    stop = SchemaHistory({"SALES.ORDERS": ORDERS}, []).observe(
        "SALES.ORDERS", "B" * 20, renamed, ["order_id"]
    )
    assert [row.change.kind for row in stop] == ["unsafe"]
    assert stop[0].columns_after == '[["order_id", "bigint"], ["status", "string"], ["quantity", "int"]]'
    synced = Shape((Column("order_id", "bigint"), Column("status", "string"), Column("quantity", "int")),
                   ("order_id",))  # fmt: skip
    history = SchemaHistory({"SALES.ORDERS": synced}, stop)
    assert not history.shape_at("SALES.ORDERS", "C" * 20).stopped
    added = source(*SAME[:2], ("quantity", "integer", "int"), ("region", "text", "string"))
    assert [row.change.kind for row in history.observe("SALES.ORDERS", "D" * 20, added, ["order_id"])] == [
        "add_column"
    ]


class _Decoder:
    """Relation messages and changes of SALES.ORDERS as pgoutput.Decoder gives them, except that a
    table's old relation is freed before its new one is made: the memory, and the id(), of the
    old can then be the new one's, as they were in a reader."""

    def __init__(self) -> None:
        self.relation = self.last_relation = None

    def read(self, messages: list) -> Iterator[dict]:
        for position, message in enumerate(messages):
            if isinstance(message, tuple):
                self.relation = None
                self.relation = Relation("SALES", "ORDERS", tuple(message), ("order_id",))
                continue
            self.last_relation = self.relation if message != "C" else None
            yield {"record_type": message, "log_position": f"{position:020d}"}


def test_every_relation_message_is_compared_though_an_old_one_was_freed():
    # a new session's first message repeats the known shape; an ALTER after a commit adds a column.
    # Whether a freed relation's memory is the next one's is the allocator's choice: read often.
    added = (*SAME, ("region", "text", "string"))
    for _ in range(20):
        decoder, found = _Decoder(), []
        records = watch_shapes(
            decoder.read([SAME, "U", "C", added, "I"]),
            lambda decoder=decoder: decoder.last_relation,
            SchemaHistory({"SALES.ORDERS": ORDERS}, []),
            lambda relation: source(*relation.columns),
            lambda name, column: None,
            found,
        )
        assert len(list(records)) == 3
        assert [(row.change.kind, row.change.column_name) for row in found] == [("add_column", "region")]
