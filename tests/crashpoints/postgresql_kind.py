"""A session reading a PostgreSQL source as a kind of run whose durable steps are crash points:
`lakerep run --once --source DSN` on the demo's registered tables on a live server, the oracle.
Its base refreshes the members from the server and runs a cycle, then makes source_traffic() on
the server, which the run under test lands from the slot (then confirms it) and applies. The
base server is restored with the base lake at each point (source_server.py); the checks compare
the lake with the server and with the transactions made there."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from crashpoints.scenario_kinds import NO_TEST_DUE, lakerep

from lakerep import apply_commands, dbt
from lakerep.lake import lake_session
from lakerep.scenarios.checks import check_no_duplicates, check_pruning_control, rows
from lakerep.scenarios.driver import MEMBERS, NO_PRUNE_DUE

# The server (its DSN) and the copy of its data directory the base left.
SOURCE_VARIABLE = "LAKEREP_CRASHPOINT_SOURCE"
SOURCE_COPY_VARIABLE = "LAKEREP_CRASHPOINT_SOURCE_COPY"
SESSION = "pg"
BASE_COUNTS = "crashpoint-base-counts.json"  # in the lake's home: the lake's rows before the run
CUSTOMERS, ORDERS, LINES, STOCK = "SALES.CUSTOMERS", "SALES.ORDERS", "SALES.ORDER_LINES", "INVENTORY.STOCK"
SERVER_TABLES = {  # registered name -> the server's name, quoted: the registered names are upper case
    name: ".".join(f'"{part}"' for part in name.split(".")) for name in (CUSTOMERS, ORDERS, LINES, STOCK)
}
FIRST_ROWS = [
    """insert into "SALES"."CUSTOMERS" select 'C' || n, 'name ' || n, null, n, date '2026-01-01' + n, null
       from generate_series(1, 20) as n""",
    """insert into "SALES"."ORDERS" select n, 'C' || n, date '2026-02-01', 'NEW', n * 1.5, null
       from generate_series(1, 20) as n""",
    """insert into "SALES"."ORDER_LINES" select n, 1, 'P-' || n, 1, 2.50, null
       from generate_series(1, 20) as n""",
    """insert into "INVENTORY"."STOCK" select 'W1', 'S' || n, n, 5, null from generate_series(1, 10) as n""",
]


@dataclass(frozen=True)
class Transaction:
    """A transaction made on the server: statements each changing one row of a registered table
    (the table, the statement), or else a change of a table's columns (no table), committed or
    rolled back."""

    statements: list[tuple[str | None, str]]
    committed: bool = True

    @property
    def row_changes(self) -> list[str]:
        """The table of each row it changed, once committed."""
        return [table for table, _ in self.statements if table] if self.committed else []


def insert(table: str, values: str) -> tuple[str, str]:
    return table, f"insert into {SERVER_TABLES[table]} values ({values})"


def update(table: str, assignment: str, where: str) -> tuple[str, str]:
    return table, f"update {SERVER_TABLES[table]} set {assignment} where {where}"


def source_traffic(evolving: bool) -> list[Transaction]:
    """The server's transactions for the run under test: inserts into three tables in one
    transaction, updates, deletes, a table of another subscription set, and a rollback; when
    `evolving`, a column added with a default (then set in some rows) and one widened, between
    them (the schema history, ADR 0012)."""
    traffic = []
    for n in range(101, 131):
        order = [
            insert(CUSTOMERS, f"'C{n}', 'new {n}', null, 1, null, null"),
            insert(ORDERS, f"{n}, 'C{n}', '2026-03-01', 'NEW', {n}, null"),
            insert(LINES, f"{n}, 1, 'P', 2, 1.25, null"),
            insert(LINES, f"{n}, 2, 'Q', 1, 0.50, null"),
        ]
        if n % 3 == 0:
            order.append(update(CUSTOMERS, f"email = 'c{n}@x'", f"customer_id = 'C{n % 20 + 1}'"))
        traffic.append(Transaction(order))
        if n % 4 == 0:
            traffic.append(Transaction([update(STOCK, f"on_hand = on_hand + {n}", f"sku = 'S{n % 10 + 1}'")]))
        if n % 5 == 0:
            delete = (LINES, f"delete from {SERVER_TABLES[LINES]} where order_id = {n - 1} and line_no = 2")
            traffic.append(Transaction([delete, update(ORDERS, "status = 'SHIPPED'", f"order_id = {n - 1}")]))
    rolled_back = insert(CUSTOMERS, "'RB', 'rolled back', null, 1, null, null")
    traffic.insert(7, Transaction([rolled_back], committed=False))
    if evolving:
        add = f"alter table {SERVER_TABLES[CUSTOMERS]} add column region text default 'north'"
        regions = [update(CUSTOMERS, "region = 'south'", f"customer_id = 'C{n}'") for n in (2, 3)]
        widen = f"alter table {SERVER_TABLES[LINES]} alter column quantity type bigint"
        traffic[20:20] = [Transaction([(None, add)]), Transaction(regions)]
        traffic[35:35] = [
            Transaction([(None, widen)]),
            Transaction([update(LINES, "quantity = 5000000000", "order_id = 1")]),
        ]
    return traffic


def make(dsn: str, transactions: list[Transaction]) -> None:
    import psycopg

    with psycopg.connect(dsn) as connection:
        for transaction in transactions:
            for table, statement in transaction.statements:
                changed = connection.execute(statement).rowcount
                assert table is None or changed == 1, statement
            connection.commit() if transaction.committed else connection.rollback()


@dataclass(frozen=True)
class PostgresqlKind:
    """`lakerep run --once --source DSN` on the demo's registered tables on a live server: its
    base refreshes every member from the server and runs a cycle, then makes source_traffic()
    on the server, which the run under test lands from the slot (then confirms it) and applies.
    An `evolving` run also evolves the lake's tables and views to the server's new columns: the
    metastore then records other columns, which a process that runs a point after another's
    restart would not find as the base left them, so each point has processes of its own (not
    `chained`: enumeration.Enumeration.crash_points)."""

    description: str
    evolving: bool = False
    # lakerep refreshes these from the server; INVENTORY.STOCK's member it may not (DISABLE_REFRESH)
    members: dict[str, str] = field(default_factory=lambda: {
        m.target_table: m.source for m in MEMBERS.values() if not m.registration.disable_refresh
    })  # fmt: skip

    @property
    def chained(self) -> bool:
        return not self.evolving

    @property
    def dsn(self) -> str:
        return os.environ[SOURCE_VARIABLE]

    def arguments(self, home: Path) -> list[str]:
        return ["run", "--session", SESSION, "--once", "--source", self.dsn, *NO_TEST_DUE]

    def base(self) -> None:
        from crashpoints import source_server
        from sources.postgresql_server import execute

        execute(self.dsn, *FIRST_ROWS)
        with dbt.parse_once():
            lakerep(["refresh", *(f"--member={member}" for member in self.members), "--source", self.dsn])
            lakerep(["run", "--session", SESSION, "--once", "--source", self.dsn, "--test-interval", "0",
                     "--prune-interval", str(NO_PRUNE_DUE)])  # fmt: skip
        counts = lake_counts(lake_session())
        (apply_commands.lake_home() / BASE_COUNTS).write_text(json.dumps(counts), encoding="utf-8")
        make(self.dsn, source_traffic(self.evolving))
        source_server.save(self.dsn, Path(os.environ[SOURCE_COPY_VARIABLE]))

    def before_run(self) -> None:
        from crashpoints import source_server

        source_server.restore(self.dsn, Path(os.environ[SOURCE_COPY_VARIABLE]))

    def restart_and_check(self, crashed_at: str) -> Iterator[str]:
        with dbt.parse_once():
            lakerep(self.arguments(apply_commands.lake_home()))
        yield from check_against_the_server(lake_session(), self.dsn, self.members, self.evolving)


def lake_counts(spark) -> dict[str, int]:
    """The rows of the UOW table, each source's CD table and each target."""
    from lakerep.registrations import load_registrations
    from lakerep.scaffold import cd_model_name
    from lakerep.summary import relation_name

    models = ["uow", *(cd_model_name(r) for r in load_registrations().values())]
    models += [member.target_table for member in MEMBERS.values()]
    return {model: rows(spark, f"select count(*) from {relation_name(model)}")[0][0] for model in models}


def server_columns(connection, source: str) -> list[str]:
    """The columns the server's table has now, in order."""
    schema, table = source.split(".")
    found = connection.execute(
        "select column_name from information_schema.columns where table_schema = %s and table_name = %s "
        "order by ordinal_position",
        [schema, table],
    )
    return [row[0] for row in found]


def check_against_the_server(spark, dsn: str, members: dict[str, str], evolving: bool) -> Iterator[str]:
    """The lake after the restart, against the server and the transactions made on it: every
    user copy and point-in-time target holds the server's rows in all the server's columns (those
    an evolving run added too), each row once; the CD tables a row per committed row change, the
    UOW table a row per committed transaction, the history target a row per change of its table,
    no UOW or CD row twice; the slot where the lake recorded it; and the members' sets applied up
    to Capture's SYNCHPOINT (INVENTORY.STOCK's set waits in a gap for a refresh by other means:
    DISABLE_REFRESH)."""
    import psycopg

    from lakerep.registrations import load_registrations
    from lakerep.scaffold import cd_model_name
    from lakerep.sources.pgoutput import format_lsn
    from lakerep.sources.slot_record import read_slot_record
    from lakerep.summary import relation_name

    committed = [transaction for transaction in source_traffic(evolving) if transaction.row_changes]
    changes = Counter(table for transaction in committed for table in transaction.row_changes)
    base = json.loads((apply_commands.lake_home() / BASE_COUNTS).read_text(encoding="utf-8"))
    now = lake_counts(spark)
    with psycopg.connect(dsn) as connection:
        for target, source in members.items():
            if MEMBERS[target].target_structure == "ccd":
                assert now[target] == base[target] + changes[source], (target, base[target], now[target])
                continue
            columns = ", ".join(server_columns(connection, source))
            server = sorted(connection.execute(f"select {columns} from {SERVER_TABLES[source]}").fetchall())
            lake = sorted(tuple(row) for row in rows(spark, f"select {columns} from {relation_name(target)}"))
            assert lake == server, f"{target} differs from the server's {source}"
        yield f"{len(members)} targets hold the server's rows (the history target a row per change)"
        for source, registration in load_registrations().items():
            model = cd_model_name(registration)
            assert now[model] == base[model] + changes[source], (model, base[model], changes[source], now)
        assert now["uow"] == base["uow"] + len(committed), ("uow", base["uow"], now["uow"], len(committed))
        yield f"CD and UOW tables: a row per committed change ({sum(changes.values())}) and transaction"
        yield check_no_duplicates(spark)
        record = read_slot_record(spark)
        slot = connection.execute(
            "select confirmed_flush_lsn from pg_replication_slots where slot_name = %s", [record.slot]
        ).fetchone()[0]
        assert slot == format_lsn(record.confirmed_lsn), (slot, format_lsn(record.confirmed_lsn))
        yield f"the slot is confirmed where the lake recorded it ({slot})"
    yield check_pruning_control(spark, {MEMBERS[target].set_name for target in members})
