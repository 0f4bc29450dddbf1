"""A live PostgreSQL's tables whose changes the log carries otherwise than a plain table's
(issue 62): a partitioned table is read under its own name, a generated column is left out, a
key the deletes do not carry is refused; and the server's errors after connecting (a privilege,
the slots full, an invalidated slot, a server that went away, a version too old, a slot of
another database) each end as one SourceError line that says what to do. No Spark here."""

from __future__ import annotations

import json

import psycopg
import pytest
from click.testing import CliRunner
from sources.postgresql_server import execute, postgresql_server, serving

from lakerep.cli import EXIT_USER_ERROR, main
from lakerep.sources import postgresql
from lakerep.sources.postgresql import PostgresqlSource, SourceError

SCHEMA = """
    create schema shop;
    create table shop.measures (id int primary key, reading int) partition by range (id);
    create table shop.measures_low partition of shop.measures for values from (0) to (100);
    create table shop.measures_high partition of shop.measures for values from (100) to (200);
    create table shop.priced (id int primary key, qty int, price numeric(10, 2),
                              total numeric(12, 2) generated always as (qty * price) stored);
    create table shop.coded (id int primary key, code text not null, v text);
    create unique index coded_code on shop.coded (code);
    alter table shop.coded replica identity using index coded_code;
    create table shop.secret (id int primary key, v text);
    create role replicator login replication;
    grant create on database postgres to replicator;
    grant usage on schema shop to replicator;
"""


@pytest.fixture(scope="module")
def server():
    with serving(SCHEMA) as dsn:
        yield dsn


def images(records: list[dict]) -> list[tuple[str, str, dict | None]]:
    return [(r["record_type"], r["source_table"], json.loads(r["after_image"] or r["before_image"]))
            for r in records if r["record_type"] != "C"]  # fmt: skip


def test_a_partitioned_tables_changes_come_under_its_own_name(server):
    source = PostgresqlSource(server, ["shop.measures"], slot="lakerep_parts")
    source.prepare()
    source.prepare()  # a second start finds the table published (not its partitions)
    execute(server, "insert into shop.measures values (1, 10), (150, 20)")
    execute(server, "update shop.measures set reading = 21 where id = 150")
    execute(server, "delete from shop.measures where id = 1")
    assert images(source.read().records) == [
        ("I", "measures", {"id": "1", "reading": "10"}),
        ("I", "measures", {"id": "150", "reading": "20"}),
        ("U", "measures", {"id": "150", "reading": "21"}),
        ("D", "measures", {"id": "1"}),
    ]
    assert [json.loads(row) for row in source.unload("shop.measures").rows] == [
        {"id": "150", "reading": "21"}
    ]


def test_a_publication_of_an_earlier_lakerep_is_made_to_publish_partitions_as_their_table(server):
    execute(server, "create publication lakerep_old for table shop.measures")
    source = PostgresqlSource(server, ["shop.measures"], slot="lakerep_old")
    source.prepare()
    execute(server, "insert into shop.measures values (2, 30)")
    assert images(source.read().records) == [("I", "measures", {"id": "2", "reading": "30"})]


def test_a_generated_column_is_left_out_and_refused_when_registered(server):
    registered = {"shop.priced": (("id", "qty", "price", "total"), ("id",))}
    with pytest.raises(SourceError, match=r"shop\.priced\.total is a generated column.*leave it out"):
        PostgresqlSource(server, ["shop.priced"], slot="lakerep_gen", registered=registered).prepare()

    registered = {"shop.priced": (("id", "qty", "price"), ("id",))}
    source = PostgresqlSource(server, ["shop.priced"], slot="lakerep_gen", registered=registered)
    source.prepare()
    execute(server, "insert into shop.priced values (1, 2, 3.50)")
    assert images(source.read().records) == [("I", "priced", {"id": "1", "qty": "2", "price": "3.50"})]
    assert [json.loads(row) for row in source.unload("shop.priced").rows] == [
        {"id": "1", "qty": "2", "price": "3.50"}
    ]


def test_a_key_the_deletes_do_not_carry_is_refused(server):
    by_id = {"shop.coded": (("id", "code", "v"), ("id",))}
    with pytest.raises(
        SourceError,
        match=r"shop\.coded is registered by \(id\), but its deletes carry the index of its replica "
        r"identity \(code\) only: register it by those columns, or ALTER TABLE shop\.coded REPLICA",
    ):
        PostgresqlSource(server, ["shop.coded"], slot="lakerep_coded", registered=by_id).prepare()

    by_code = {"shop.coded": (("id", "code", "v"), ("code",))}
    source = PostgresqlSource(server, ["shop.coded"], slot="lakerep_coded", registered=by_code)
    source.prepare()
    execute(server, "insert into shop.coded values (1, 'a', 'x')")
    execute(server, "delete from shop.coded where id = 1")
    assert images(source.read().records)[-1] == ("D", "coded", {"code": "a"})


def test_a_slot_of_another_database_or_kind_is_refused(server):
    with psycopg.connect(server, autocommit=True) as connection:
        connection.execute("create database other")
        connection.execute("select pg_create_physical_replication_slot('lakerep_physical')")
    with psycopg.connect(server.replace("/postgres", "/other"), autocommit=True) as connection:
        connection.execute("select pg_create_logical_replication_slot('lakerep_other', 'pgoutput')")
    with pytest.raises(
        SourceError,
        match=r"slot lakerep_other belongs to the database other of this server, not to postgres: "
        r"name another slot \(--slot\)",
    ):
        PostgresqlSource(server, ["shop.coded"], slot="lakerep_other").prepare()
    with pytest.raises(SourceError, match=r"slot lakerep_physical is a physical slot"):
        PostgresqlSource(server, ["shop.coded"], slot="lakerep_physical").prepare()


def test_a_publication_the_user_may_not_create_says_who_may(server):
    source = PostgresqlSource(server.replace("lakerep@", "replicator@"), ["shop.secret"], slot="lakerep_priv")
    with pytest.raises(
        SourceError,
        match=r"^the PostgreSQL source failed while preparing the source: must be owner of table secret; "
        r"create the publication as the tables' owner or a superuser",
    ):
        source.prepare()


def test_an_unload_the_user_may_not_read_says_what_to_grant(server):
    execute(server, "create publication lakerep_secret for table shop.secret")
    source = PostgresqlSource(
        server.replace("lakerep@", "replicator@"), ["shop.secret"], slot="lakerep_secret"
    )
    source.prepare()
    with pytest.raises(
        SourceError,
        match=r"unloading shop\.secret: permission denied .*; GRANT SELECT ON shop\.secret TO replicator$",
    ):
        source.unload("shop.secret")


def test_full_slots_and_an_invalidated_slot_say_what_to_do():
    settings = {"max_replication_slots": "2", "max_slot_wal_keep_size": "1MB", "wal_keep_size": "0"}
    with postgresql_server(settings=settings) as dsn:
        execute(dsn, "create table public.t (id int primary key)")
        source = PostgresqlSource(dsn, ["public.t"], slot="lakerep_kept")
        source.prepare()
        with psycopg.connect(dsn, autocommit=True) as connection:
            connection.execute("select pg_create_logical_replication_slot('lakerep_filler', 'pgoutput')")
        with pytest.raises(SourceError, match=r"all replication slots are in use; raise max_replication_sl"):
            PostgresqlSource(dsn, ["public.t"], slot="lakerep_third").prepare()

        with psycopg.connect(dsn, autocommit=True) as connection:  # WAL past what the slot may keep
            for number in range(4):
                connection.execute(f"insert into public.t values ({number})")
                connection.execute("select pg_switch_wal()")
            connection.execute("checkpoint")
            lost = connection.execute(
                "select wal_status from pg_replication_slots where slot_name = 'lakerep_kept'"
            ).fetchone()[0]
        assert lost == "lost"
        with pytest.raises(
            SourceError,
            match=r"while reading the slot lakerep_kept: .*; the slot lakerep_kept was invalidated, and "
            r"the changes the lake has not read are gone: run again, and the run starts cold from a new "
            r"slot .*lakerep refresh --source\)$",
        ):
            source.read()


class ServerStub:
    """psycopg.connect's stand-in: a server of `version` whose every statement fails with `failure`."""

    def __init__(self, version: int, failure: Exception | None = None) -> None:
        self.info = type("Info", (), {"server_version": version})()
        self.failure = failure
        self.closed = False

    def connect(self, *args, **kwargs) -> ServerStub:
        return self

    def __enter__(self) -> ServerStub:
        return self

    def __exit__(self, *exc) -> bool:
        return False

    def execute(self, *args):
        raise self.failure

    def close(self) -> None:
        self.closed = True


def test_a_server_that_went_away_mid_read_has_confirmed_nothing(monkeypatch):
    gone = psycopg.errors.AdminShutdown("terminating connection due to administrator command")
    monkeypatch.setattr(psycopg, "connect", ServerStub(150000, gone).connect)
    with pytest.raises(
        SourceError,
        match=r"^the PostgreSQL source failed while reading the slot lakerep_gone: terminating connection "
        r"due to administrator command; nothing past the lake's position was confirmed: run again",
    ):
        PostgresqlSource("postgresql://x@127.0.0.1:1/y", ["shop.coded"], slot="lakerep_gone").read()


def test_a_server_below_15_is_refused_with_one_line(monkeypatch):
    fourteen = ServerStub(140013)
    monkeypatch.setattr(psycopg, "connect", fourteen.connect)
    with pytest.raises(
        SourceError, match=r"^the PostgreSQL source runs version 14\.13, and lakerep reads 15"
    ):
        postgresql.connect("postgresql://x@127.0.0.1:1/y")
    assert fourteen.closed


def test_a_latin1_database_is_read_as_utf8(server):
    with psycopg.connect(server, autocommit=True) as connection:
        connection.execute("create database latin encoding LATIN1 locale 'C' template template0")
    latin = server.replace("/postgres", "/latin")
    execute(latin, "create table public.names (id int primary key, name text)")
    source = PostgresqlSource(latin, ["public.names"], slot="lakerep_latin")
    source.prepare()
    execute(latin, "insert into public.names values (1, 'café crème')")
    assert images(source.read().records) == [("I", "names", {"id": "1", "name": "café crème"})]
    assert [json.loads(row) for row in source.unload("public.names").rows] == [
        {"id": "1", "name": "café crème"}
    ]


def test_a_slot_name_that_is_no_name_is_refused_before_connecting():
    unreachable = "postgresql://x@127.0.0.1:1/y"
    result = CliRunner().invoke(
        main, ["unload", "--member", "anything", "--source", unreachable, "--slot", "Bad-Name"]
    )
    assert result.exit_code == EXIT_USER_ERROR
    assert "lakerep: a slot name is lower-case letters, digits and _, at most 40 of them, not 'Bad-Name'" in (
        result.stderr
    )
