"""Debezium change events through `lakerep land --format debezium` and a lakerep cycle (ADR
0009): the staged log records, the quarantine and the snapshot equal what the plain-Python
oracle (debezium_scenario) derives from the source's history, and so do the replicas: the
user copy customers_copy (refreshed from the Debezium snapshot, then mirrored) and the condensed
CCD of SALES.CUSTOMERS.

The history covers a multi-row transaction (two rows of one WAL record, as a COPY writes them,
and a row of an unregistered table), an update without a before image (REPLICA IDENTITY DEFAULT)
and one with the whole old row (FULL), a key update (Debezium's delete, tombstone and create), a
delete, a rolled-back transaction (Debezium emits nothing), a transaction whose END lands in a
later file than its changes, a truncate, a malformed event and a change without transaction
metadata; events with and without JsonConverter's schema/payload wrapper. A file landed twice is
refused and lands nothing; events delivered again (a renamed copy, a grown file) land once, and
after a prune has deleted them, not again. It uses the demo's SALES.CUSTOMERS registration and
its member customers_copy, as the PostgreSQL source's test does."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest
from click.testing import CliRunner
from debezium_scenario import (
    SALES_SNAPSHOT,
    Change,
    Transaction,
    changed_keys,
    end_event,
    expected_log_records,
    position,
    replica,
    row,
    snapshot_events,
    transaction_events,
)

from lakerep import dbt
from lakerep.cli import EXIT_USER_ERROR, main
from lakerep.lake import reset_lake
from lakerep.summary import relation_name

pytestmark = pytest.mark.spark

AUDIT = ("public", "audit")  # not registered: its records are valid and go nowhere
T1 = Transaction(556, 0x16E00100, 0x16E00398, 1, [
    Change("insert", 0x16E00128, after=row("C1", "Ann", "ann@x", "100.50")),
    Change("insert", 0x16E00200, after=row("C2", "Bob", None, "20.00")),  # one COPY: one WAL record,
    Change("insert", 0x16E00200, after=row("C3", "Cy", "cy@x", "0.00")),  # two rows
    Change("insert", 0x16E00300, after={"id": 1, "note": "it's \"new\""}, table=AUDIT),
])  # fmt: skip
ROLLED_BACK = Transaction(557, 0x16E00400, 0x16E00460, 2, [
    Change("insert", 0x16E00428, after=row("C4", "Never", None, "1.00")),
], rolled_back=True)  # fmt: skip
T2 = Transaction(558, 0x16E01000, 0x16E01090, 3, [  # REPLICA IDENTITY DEFAULT: no before image
    Change("update", 0x16E01028, before=None, after=row("C2", "Bob", "bob@x", "20.00")),
])  # fmt: skip
T3 = Transaction(559, 0x16E02000, 0x16E02060, 4, [  # REPLICA IDENTITY FULL: the whole old row
    Change("update", 0x16E02028, before=row("C0", "Zed", "z@x", "5.00"),
           after=row("C0", "Zed", "z@y", "7.50")),
])  # fmt: skip
T4 = Transaction(560, 0x16E03000, 0x16E03070, 5, [  # a key update: the key columns before
    Change("key_update", 0x16E03028, before={"customer_id": "C3"}, after=row("C9", "Cy", "cy@x", "0.00")),
])  # fmt: skip
T5 = Transaction(561, 0x16E04000, 0x16E04068, 6, [  # its END lands with the second file
    Change("delete", 0x16E04028, before={"customer_id": "C1"}),
])  # fmt: skip
T6 = Transaction(562, 0x16E05000, 0x16E05050, 7, [Change("truncate", 0x16E05028, table=AUDIT)])
HISTORY = [T1, ROLLED_BACK, T2, T3, T4, T5, T6]


def malformed_lines() -> list[str]:
    """A change event without source.lsn (quarantined as malformed) and a change of a connector
    running without provide.transaction.metadata (quarantined: no commit to tie it to)."""
    no_lsn = json.loads(transaction_events(Transaction(563, 1, 0x16E06090, 8, [
        Change("insert", 0x16E06028, after=row("C7", "Lsn", None, "1.00"))]))[1])  # fmt: skip
    del no_lsn["source"]["lsn"]
    no_transaction = json.loads(transaction_events(Transaction(564, 1, 0x16E07090, 9, [
        Change("insert", 0x16E07028, after=row("C8", "Tx", None, "1.00"))]))[1])  # fmt: skip
    no_transaction["transaction"] = None
    return [json.dumps(no_lsn), json.dumps(no_transaction)]


@pytest.fixture(scope="module")
def landed(spark, tmp_path_factory):
    reset_lake()
    folder = tmp_path_factory.mktemp("debezium")
    first = folder / "dbserver1-1.jsonl"
    first.write_text("\n".join([
        *snapshot_events(SALES_SNAPSHOT, wrapped=True),
        *transaction_events(T1),
        *transaction_events(ROLLED_BACK),
        *transaction_events(T2),
        *transaction_events(T3, wrapped=True),
        *transaction_events(T4),
        *transaction_events(T5, with_end=False),
    ]) + "\n", encoding="utf-8")  # fmt: skip
    second = folder / "dbserver1-2.jsonl"
    second.write_text("\n".join([end_event(T5), *transaction_events(T6), *malformed_lines()]) + "\n")
    batches = []
    for path in (first, second):
        result = CliRunner().invoke(main, ["land", "--format", "debezium", str(path)])
        assert result.exit_code == 0, result.output
        batches.append(int(result.output.rsplit("landing batch ", 1)[1].split()[0]))
    assert batches[1] == batches[0] + 1  # one numbering across the landing tables
    return {"files": (first, second), "batches": batches}


def test_a_file_landed_again_is_refused_and_lands_nothing(spark, landed):
    before = spark.sql("select count(*) from lakerep_raw.debezium_events").collect()[0][0]
    result = CliRunner().invoke(main, ["land", "--format", "debezium", str(landed["files"][0])])
    assert result.exit_code == EXIT_USER_ERROR
    assert "dbserver1-1.jsonl: already landed" in result.stderr
    assert f"landing batch {landed['batches'][0]}" in result.stderr
    assert spark.sql("select count(*) from lakerep_raw.debezium_events").collect()[0][0] == before


def test_a_cycle_stages_the_events_and_replicates_them_as_the_oracle_says(spark, landed):
    dbt.invoke(["run"], quiet=True)  # one cycle of the whole project: Capture and Apply
    batches = ", ".join(map(str, landed["batches"]))

    staged = spark.sql(
        "select log_position, uow_id, record_type, source_owner, source_table, "
        "date_format(log_timestamp, 'yyyy-MM-dd HH:mm:ss.SSSSSS') as log_timestamp, auth_token, "
        f"before_image, after_image, landing_batch from {relation_name('int_log_records_valid')} "
        f"where landing_batch in ({batches})"
    ).collect()
    assert sorted(map(_record, staged), key=_key) == sorted(
        map(_expected, expected_log_records(HISTORY)), key=_key
    )
    t5_batches = {r.landing_batch for r in staged if r.auth_token == str(T5.xid)}
    assert t5_batches == {landed["batches"][1]}  # whole only once its END landed

    quarantined = spark.sql(
        f"select quarantine_reason, count(*) from {relation_name('source_log_quarantine')} "
        f"where landing_batch in ({batches}) group by quarantine_reason"
    ).collect()
    assert dict(map(tuple, quarantined)) == {
        "debezium_truncate": 1,
        "debezium_malformed_event": 1,
        "debezium_without_transaction": 1,
    }

    snapshot = spark.sql(
        f"select snapshot_id, unload_start_position, unload_end_position, row_image "
        f"from {relation_name('int_snapshot_rows_valid')}"
    ).collect()
    at = position(SALES_SNAPSHOT.lsn)
    assert {(r.snapshot_id, r.unload_start_position, r.unload_end_position) for r in snapshot} == {
        (f"{owner}.{table}:{at}:{at}", at, at) for owner, table in SALES_SNAPSHOT.tables
    }
    assert sorted(json.dumps(json.loads(r.row_image), sort_keys=True) for r in snapshot) == sorted(
        json.dumps(image, sort_keys=True) for images in SALES_SNAPSHOT.tables.values() for image in images
    )
    assert not spark.sql(f"select * from {relation_name('source_snapshot_quarantine')}").collect()

    expected = {key: _values(image) for key, image in replica(SALES_SNAPSHOT, HISTORY).items()}
    columns = "customer_id, name, email, cast(credit_limit as string)"
    copy = spark.sql(f"select {columns} from {relation_name('customers_copy')}").collect()
    assert {r[0]: tuple(r) for r in copy} == expected

    alive, gone = changed_keys(HISTORY)
    ccd = spark.sql(
        f"select customer_id, name, email, cast(credit_limit as string), IBMSNAP_OPERATION "
        f"from {relation_name('ccd_sales__customers')}"
    ).collect()
    assert {r[0]: tuple(r)[:4] for r in ccd if r[4] != "D"} == {key: expected[key] for key in alive}
    assert {r[0] for r in ccd if r[4] == "D"} == gone


def _values(image: dict) -> tuple:
    return (image["customer_id"], image["name"], image["email"], image["credit_limit"])


def _image(text: str | None):
    return None if text is None else json.loads(text)


def _record(r) -> tuple:
    return (
        r.log_position, r.uow_id, r.record_type, r.source_owner, r.source_table, r.log_timestamp,
        r.auth_token, json.dumps(_image(r.before_image), sort_keys=True),
        json.dumps(_image(r.after_image), sort_keys=True),
    )  # fmt: skip


def _expected(record: dict) -> tuple:
    return (
        record["log_position"], record["uow_id"], record["record_type"], record["source_owner"],
        record["source_table"], record["log_timestamp"], record["auth_token"],
        json.dumps(record["before_image"], sort_keys=True), json.dumps(record["after_image"], sort_keys=True),
    )  # fmt: skip


def _key(record: tuple) -> str:
    return record[0]


T7 = Transaction(565, 0x16E08000, 0x16E08090, 10, [
    Change("update", 0x16E08028, before=None, after=row("C5", "Eve", "eve@x", "3.00")),
    Change("insert", 0x16E08050, after=row("C6", "Fay", None, "1.00")),
])  # fmt: skip


def test_events_delivered_again_land_only_once(spark, landed, tmp_path):
    """Issue 62, item 13: Kafka Connect delivers at least once and its file sink appends. A
    renamed copy of the first file and the second file grown by one transaction land only that
    transaction; the cycle quarantines nothing and the replica is the oracle's."""
    first, second = landed["files"]
    copy = tmp_path / "dbserver1-1-copy.jsonl"
    copy.write_text(first.read_text(encoding="utf-8"), encoding="utf-8")
    grown = tmp_path / second.name  # the same name, grown: not the file landed before
    grown.write_text(second.read_text(encoding="utf-8") + "\n".join(transaction_events(T7)) + "\n")
    before = spark.sql("select count(*) from lakerep_raw.debezium_events").collect()[0][0]

    result = CliRunner().invoke(main, ["land", "--format", "debezium", str(copy), str(grown)])
    assert result.exit_code == 0, result.output
    repeated = len(first.read_text().splitlines()) + len(second.read_text().splitlines())
    assert f"{repeated:,} events had landed before (delivered again): left out" in result.output
    batch = int(result.output.rsplit("landing batch ", 1)[1].split()[0])
    new = spark.sql(f"select event_value from lakerep_raw.debezium_events where landing_batch = {batch}")
    assert sorted(r[0] for r in new.collect()) == sorted(transaction_events(T7))
    total = spark.sql("select count(*) from lakerep_raw.debezium_events").collect()[0][0]
    assert total == before + len(transaction_events(T7))

    # Another copy, under a name not landed before: nothing in it is new. (The copy above is on
    # record as landed now, with batch `batch`, so landing it again is refused by name and content.)
    again_copy = tmp_path / "dbserver1-1-again.jsonl"
    again_copy.write_text(first.read_text(encoding="utf-8"), encoding="utf-8")
    again = CliRunner().invoke(main, ["land", "--format", "debezium", str(again_copy)])
    assert again.exit_code == 0, again.output
    assert "landed nothing: every one of the events had landed before" in again.output

    dbt.invoke(["run"], quiet=True)
    assert not spark.sql(
        f"select * from {relation_name('source_log_quarantine')} where landing_batch = {batch}"
    ).collect()
    expected = {key: _values(image) for key, image in replica(SALES_SNAPSHOT, [*HISTORY, T7]).items()}
    columns = "customer_id, name, email, cast(credit_limit as string)"
    copy_rows = spark.sql(f"select {columns} from {relation_name('customers_copy')}").collect()
    assert {r[0]: tuple(r) for r in copy_rows} == expected


T8 = Transaction(566, 0x16E09000, 0x16E09090, 11, [
    Change("insert", 0x16E09028, after=row("C8", "Gus", None, "2.00")),
    Change("insert", 0x16E09050, after={"id": 2, "note": "not landed"}, table=AUDIT),
])  # fmt: skip


def test_a_transaction_waits_only_for_the_events_of_registered_tables(spark, landed, tmp_path):
    """Issue 62, item 7: a lake that lands only its registered tables' topics never gets the
    other tables' events of a transaction. The END counts each table's events: the transaction
    is whole once the registered ones have landed, and until then `lakerep status` says what it
    waits for."""
    begin, customers_event, _audit_event, end = transaction_events(T8)
    end_only = tmp_path / "t8-end.jsonl"
    end_only.write_text(end + "\n", encoding="utf-8")
    assert CliRunner().invoke(main, ["land", "--format", "debezium", str(end_only)]).exit_code == 0
    dbt.invoke(["run"], quiet=True)
    status = CliRunner().invoke(main, ["status"])
    assert "Debezium transaction 566 waits, out of the log: 0 of the 1 events its END counts have landed" in (
        status.output
    ), status.output

    changes = tmp_path / "t8-changes.jsonl"
    changes.write_text(begin + "\n" + customers_event + "\n", encoding="utf-8")
    assert CliRunner().invoke(main, ["land", "--format", "debezium", str(changes)]).exit_code == 0
    dbt.invoke(["run"], quiet=True)
    assert "Debezium transaction" not in CliRunner().invoke(main, ["status"]).output
    expected = {key: _values(image) for key, image in replica(SALES_SNAPSHOT, [*HISTORY, T7, T8]).items()}
    columns = "customer_id, name, email, cast(credit_limit as string)"
    copy_rows = spark.sql(f"select {columns} from {relation_name('customers_copy')}").collect()
    assert {r[0]: tuple(r) for r in copy_rows} == expected


DAYS = 20_789  # 2026-12-02 as Debezium writes a date: days since 1970-01-01 (io.debezium.time.Date)
T9 = Transaction(567, 0x16E0A000, 0x16E0A090, 12, [
    Change("insert", 0x16E0A028, after={**row("C10", "Hal", None, "4.00"), "created_on": DAYS}),
])  # fmt: skip


def test_a_date_as_debezium_writes_it_lands_as_that_date(spark, landed, tmp_path):
    """Issue 62, item 14: cast as it stands, Debezium's day number became the year 20789."""
    events = tmp_path / "t9.jsonl"
    events.write_text("\n".join(transaction_events(T9)) + "\n", encoding="utf-8")
    assert CliRunner().invoke(main, ["land", "--format", "debezium", str(events)]).exit_code == 0
    dbt.invoke(["run"], quiet=True)
    [(created_on,)] = spark.sql(
        f"select created_on from {relation_name('customers_copy')} where customer_id = 'C10'"
    ).collect()
    assert created_on == date(1970, 1, 1) + timedelta(days=DAYS)


MIDNIGHT_AT_THE_END = 86_400_000_000  # time '24:00:00' as io.debezium.time.MicroTime writes it
T10 = Transaction(568, 0x16E0C000, 0x16E0C090, 13, [
    Change("insert", 0x16E0C028, after=row("C11", MIDNIGHT_AT_THE_END, None, "1.00")),
    Change("insert", 0x16E0C030, after=row("C12", 45_296_789_000, None, "1.00")),
])  # fmt: skip


def wrapped_with_a_time(event: str, column: str) -> str:
    """A change event wrapped by JsonConverter, whose schema says column is a MicroTime (and the
    row's other fields text, as the string modes write every value)."""
    payload = json.loads(event)
    fields = [
        {"field": name, "type": "int64", "name": "io.debezium.time.MicroTime"}
        if name == column
        else {"field": name, "type": "string"}
        for name in payload["after"]
    ]
    after = {"field": "after", "fields": fields}
    return json.dumps({"schema": {"type": "struct", "fields": [after]}, "payload": payload})


def test_a_time_as_debezium_writes_it_lands_as_postgresql_writes_it(spark, landed, tmp_path):
    """PostgreSQL's time holds 24:00:00, the end of a day: as a time of day it is not midnight."""
    events = tmp_path / "t10.jsonl"
    lines = [wrapped_with_a_time(e, "name") if '"op"' in e else e for e in transaction_events(T10)]
    events.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert CliRunner().invoke(main, ["land", "--format", "debezium", str(events)]).exit_code == 0
    dbt.invoke(["run"], quiet=True)
    names = spark.sql(
        f"select customer_id, name from {relation_name('customers_copy')} where customer_id in ('C11', 'C12')"
    ).collect()
    assert sorted(map(tuple, names)) == [("C11", "24:00:00"), ("C12", "12:34:56.789")]


def test_canonical_files_land_in_the_source_log_and_a_bad_column_is_refused(spark, landed, tmp_path):
    commit = {"log_position": "7FFFFFFFFFFFFFFF0000", "uow_id": "7FFFFFFFFFFFFFFF0000", "record_type": "C",
              "log_timestamp": "2026-01-02 00:00:00", "auth_token": "900"}  # fmt: skip
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(commit) + "\n" + json.dumps({**commit, "LOG_POSITION": "x"}) + "\n")
    result = CliRunner().invoke(main, ["land", "--format", "canonical", str(bad)])
    assert result.exit_code == EXIT_USER_ERROR
    assert f"{bad}, line 2: LOG_POSITION is no source_log column" in result.stderr

    good = tmp_path / "empty-transaction.jsonl"
    good.write_text(json.dumps(commit) + "\n")
    result = CliRunner().invoke(main, ["land", "--format", "canonical", str(good)])
    assert result.exit_code == 0, result.output
    landed_log = spark.sql(
        "select log_position, record_type, auth_token, landing_batch from lakerep_raw.source_log"
    ).collect()
    # after the Debezium batches: the two landed ones, the one of events delivered again, T8's two, T9's,
    # T10's
    assert [tuple(r) for r in landed_log] == [("7FFFFFFFFFFFFFFF0000", "C", "900", landed["batches"][1] + 6)]
    files = spark.sql("select file_name, file_format, line_count from lakerep_raw.landed_files").collect()
    assert sorted(map(tuple, files)) == [
        ("dbserver1-1-copy.jsonl", "debezium", 24),
        ("dbserver1-1.jsonl", "debezium", 24),
        ("dbserver1-2.jsonl", "debezium", 6),
        ("dbserver1-2.jsonl", "debezium", 10),
        ("empty-transaction.jsonl", "canonical", 1),
        ("t10.jsonl", "debezium", 4),
        ("t8-changes.jsonl", "debezium", 2),
        ("t8-end.jsonl", "debezium", 1),
        ("t9.jsonl", "debezium", 3),
    ]


def _landed_events(spark) -> dict[tuple[int, str, int], str]:
    rows = spark.sql(
        "select landing_batch, landed_file, landed_line, event_value from lakerep_raw.debezium_events"
    )
    return {(r[0], r[1], r[2]): r[3] for r in rows.collect()}


def _pruned_events(events: dict[tuple[int, str, int], str], limit: str) -> set[tuple[int, str, int]]:
    """What the prune rule deletes, read from the events themselves: below the events' highest
    batch, the BEGIN, change and END events of each transaction whose commit (its END's LSN minus
    one) is at or below the limit; not the snapshot reads, nor tombstones."""
    highest = max(batch for batch, _, _ in events)
    parsed = {at: json.loads(value) for at, value in events.items()}
    parsed = {at: event.get("payload", event) if event else None for at, event in parsed.items()}
    commits = {}  # transaction id -> the commit LSNs of its ENDs landed
    for event in parsed.values():
        if event and event.get("status") == "END":
            xid, lsn = event["id"].split(":")
            commits.setdefault(xid, []).append(int(lsn) - 1)
    gone = set()
    for at, event in parsed.items():
        if at[0] >= highest or not event or event.get("op") == "r":
            continue
        if event.get("status") in ("BEGIN", "END"):
            xid, lsn = event["id"].split(":")
            lsn = int(lsn) - 1
        elif "lsn" in event.get("source", {}) and event.get("transaction"):
            xid, lsn = str(event["source"]["txId"]), event["source"]["lsn"]
        else:
            continue
        commit = min((c for c in commits.get(xid, []) if c >= lsn), default=None)
        if commit is not None and position(commit) <= limit:
            gone.add(at)
    return gone


def test_a_prune_deletes_the_events_of_applied_transactions_and_they_never_land_again(
    spark, landed, tmp_path
):
    """Issue 62, item 12: the landed Debezium events grew for ever. A prune deletes those of the
    transactions every member applied (the rule of the landed log); a redelivery of them after
    the prune counts as landed before, and nothing moves in the replica."""
    # stock_copy (DISABLE_REFRESH) has copied nothing, and holds every prune back: marked as
    # refreshed outside lakerep at the log's end, its set starts there
    [(log_end,)] = spark.sql(
        f"select max(normalized_position) from {relation_name('int_log_records_judged')}"
    ).collect()
    marked = CliRunner().invoke(
        main, ["mark-external-refresh", "--member", "stock_copy", "--start", log_end, "--end", log_end]
    )
    assert marked.exit_code == 0, marked.output
    dbt.invoke(["run"], quiet=True)
    events = _landed_events(spark)
    columns = "customer_id, name, email, cast(credit_limit as string)"
    copy = f"select {columns} from {relation_name('customers_copy')}"
    replica_before = sorted(map(tuple, spark.sql(copy).collect()))
    judged = f"select count(*) from {relation_name('int_log_records_judged')}"
    [(judged_before,)] = spark.sql(judged).collect()

    result = CliRunner().invoke(main, ["prune"])
    assert result.exit_code == 0, result.output
    [(limit, logged)] = spark.sql(
        f"select prune_limit, rows_deleted from {relation_name('capture_prune')} where pruned_kind = 'LANDED'"
        f" and pruned_at = (select max(pruned_at) from {relation_name('capture_prune')})"
    ).collect()
    gone = _pruned_events(events, limit)
    assert gone and len(gone) < len(events)
    assert set(_landed_events(spark)) == set(events) - gone
    # the canonical log's one record is its highest batch's: it stays; the judged changes go too
    [(judged_after,)] = spark.sql(judged).collect()
    assert logged == len(gone) + judged_before - judged_after

    # the first file delivered again under a new name: every event in it has landed before
    again = tmp_path / "dbserver1-1-after-the-prune.jsonl"
    again.write_text(landed["files"][0].read_text(encoding="utf-8"), encoding="utf-8")
    result = CliRunner().invoke(main, ["land", "--format", "debezium", str(again)])
    assert result.exit_code == 0, result.output
    assert "landed nothing: every one of the events had landed before" in result.output
    dbt.invoke(["build", "--exclude-resource-type", "unit_test"], quiet=True)  # the data tests pass
    assert sorted(map(tuple, spark.sql(copy).collect())) == replica_before
