"""`lakerep land` as a kind of run whose durable steps are crash points: a file of Debezium change
events landed as one batch. The oracle is the plain-Python one of the Debezium tests
(tests/debezium/debezium_scenario.py): the log records a history's events must stage as, and the
replica of SALES.CUSTOMERS it must make.

The base lands the connector's snapshot and a first file of transactions and runs a cycle; the
run under test lands a second file (the end of a transaction the first began, and more). After a
kill the operator runs the same command: refused when the file had landed, which must then be
whole; then the session's next cycle, after which every record of both files is staged once and
the replica is the oracle's.

On a `new_lake`, the run under test is the lake's first command: it lands the first file (the
snapshot and whole transactions) on a lake with no table yet, so its durable steps include the
making of every table a landing needs; the same restart and a first cycle then make the replica."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from crashpoints.scenario_kinds import NO_TEST_DUE, lakerep
from debezium.debezium_scenario import (
    SALES_SNAPSHOT,
    Change,
    Transaction,
    end_event,
    expected_log_records,
    replica,
    row,
    snapshot_events,
    transaction_events,
)

from lakerep import apply_commands, dbt
from lakerep.cli import EXIT_USER_ERROR
from lakerep.lake import lake_session
from lakerep.scenarios.checks import check_no_duplicates, rows
from lakerep.scenarios.driver import NO_PRUNE_DUE
from lakerep.summary import relation_name

SESSION = "land"
FIRST = [
    Transaction(556, 0x16E00100, 0x16E00398, 1, [
        Change("insert", 0x16E00128, after=row("C1", "Ann", "ann@x", "100.50")),
        Change("insert", 0x16E00200, after=row("C2", "Bob", None, "20.00")),
    ]),
    Transaction(558, 0x16E01000, 0x16E01090, 3, [
        Change("update", 0x16E01028, before=None, after=row("C2", "Bob", "bob@x", "20.00")),
    ]),
]  # fmt: skip
SPANNING = Transaction(559, 0x16E02000, 0x16E02060, 4, [  # its END lands with the second file
    Change("update", 0x16E02028, before=None, after=row("C0", "Zed", "z@y", "7.50")),
])  # fmt: skip


def second_file_transactions() -> list[Transaction]:
    """Twenty transactions of an insert and an update each, then a delete."""
    transactions = []
    for n in range(20):
        lsn = 0x16E03000 + n * 0x1000
        transactions.append(Transaction(560 + n, lsn, lsn + 0x70, 5 + n, [
            Change("insert", lsn + 0x28, after=row(f"C{10 + n}", f"New {n}", None, f"{n}.00")),
            Change("update", lsn + 0x40, before=None, after=row("C1", "Ann", f"ann{n}@x", "100.50")),
        ]))  # fmt: skip
    delete = Change("delete", 0x16F00028, before={"customer_id": "C5"})
    return [*transactions, Transaction(600, 0x16F00000, 0x16F00068, 30, [delete])]


SECOND = second_file_transactions()
HISTORY = [*FIRST, SPANNING, *SECOND]


@dataclass(frozen=True)
class LandKind:
    """The kind (run_kinds.py says what each part is)."""

    description: str
    new_lake: bool = False

    @property
    def chained(self) -> bool:
        """A new lake's run makes its tables: the metastore it leaves is not the base's."""
        return not self.new_lake

    def history(self) -> list[Transaction]:
        """The transactions landed once the run under test has."""
        return FIRST if self.new_lake else HISTORY

    def files(self, home: Path) -> tuple[Path, Path]:
        return home / "dbserver1-1.jsonl", home / "dbserver1-2.jsonl"

    def arguments(self, home: Path) -> list[str]:
        return ["land", "--format", "debezium", str(self.files(home)[0 if self.new_lake else 1])]

    def base(self) -> None:
        first, second = self.files(apply_commands.lake_home())
        first_events = [*snapshot_events(SALES_SNAPSHOT), *(e for t in FIRST for e in transaction_events(t))]
        if self.new_lake:
            first.write_text("\n".join(first_events) + "\n")
            return
        first.write_text("\n".join([*first_events, *transaction_events(SPANNING, with_end=False)]) + "\n")
        second_events = [end_event(SPANNING), *(e for t in SECOND for e in transaction_events(t))]
        second.write_text("\n".join(second_events) + "\n")
        with dbt.parse_once():
            lakerep(["land", "--format", "debezium", str(first)])
            lakerep(["run", "--session", SESSION, "--once", "--test-interval", "0", "--prune-interval",
                     str(NO_PRUNE_DUE)])  # fmt: skip

    def before_run(self) -> None:
        """Nothing outside the lake to restore."""

    def restart_and_check(self, crashed_at: str) -> Iterator[str]:
        home = apply_commands.lake_home()
        with dbt.parse_once():
            refused = io.StringIO()
            try:
                with contextlib.redirect_stderr(refused):
                    lakerep(self.arguments(home))
                yield "the file landed again after the kill"
            except SystemExit as stopped:
                assert stopped.code == EXIT_USER_ERROR and "already landed" in refused.getvalue(), (
                    stopped.code,
                    refused.getvalue(),
                )
                yield "the file had landed before the kill: refused again"
            lakerep(["run", "--session", SESSION, "--once", *NO_TEST_DUE])
        yield from check_the_history_replicated(lake_session(), self.history())


def check_the_history_replicated(spark, history: list[Transaction]) -> Iterator[str]:
    """Every log record of the events of `history` staged once, and customers_copy as the oracle
    replays `history` from the snapshot."""
    staged = sorted(
        tuple(row)
        for row in rows(
            spark, f"select log_position, uow_id, record_type from {relation_name('int_log_records_valid')}"
        )
    )
    expected = sorted(
        (r["log_position"], r["uow_id"], r["record_type"]) for r in expected_log_records(history)
    )
    assert staged == expected, ("staged records differ from the oracle's", len(staged), len(expected))
    yield f"every log record of the events staged once ({len(staged)})"
    yield check_no_duplicates(spark)
    want = {key: (image["name"], image["email"]) for key, image in replica(SALES_SNAPSHOT, history).items()}
    copy = rows(spark, f"select customer_id, name, email from {relation_name('customers_copy')}")
    held = {r[0]: (r[1], r[2]) for r in copy}
    assert held == want, ("customers_copy differs from the oracle's replica", held, want)
    yield f"customers_copy is the oracle's replica ({len(held)} rows)"
