"""`lakerep register --from-postgresql` (issue 23): tables declared as a live server's catalog
describes them, in a scratch copy of the project's declarations; types without a registered one
are named, and nothing is written then. No Spark here."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from sources.postgresql_server import serving

from lakerep import PROJECT_DIR
from lakerep.cli import EXIT_USER_ERROR, main
from lakerep.registrations import DECLARATION_PATH, ccd_model_name, cd_model_name, load_registrations
from lakerep.scaffold import scaffold
from lakerep.sources.catalog import register_from_postgresql
from lakerep.sources.postgresql import PostgresqlSource, SourceError
from lakerep.subscriptions import DECLARATION_PATH as SUBSCRIPTIONS_PATH
from lakerep.subscriptions import load_members

SCHEMA = """
    create schema shop;
    create table shop.items (item_id integer primary key, name varchar(40), price numeric(10, 2),
        weight real, ratio double precision, active boolean, added date, seen timestamp(3),
        seen_tz timestamptz, code char(3), payload jsonb, uid uuid, qty smallint, big bigint, note text);
    create table shop.pairs (a text, b int, v text, primary key (b, a));
    create table shop.full_rows (id int primary key, note text);
    alter table shop.full_rows replica identity full;
    create table shop.by_index (code text not null, v text);
    create unique index by_index_code on shop.by_index (code);
    alter table shop.by_index replica identity using index by_index_code;
    create table shop.blobs (id int primary key, data bytea, span interval, huge numeric);
    create table shop.no_key (v text);
    create table shop.priced (id int primary key, qty int, twice int generated always as (qty * 2) stored);
    create table shop.coded (id int primary key, code text not null, v text);
    create unique index coded_code on shop.coded (code);
    alter table shop.coded replica identity using index coded_code;
"""


UNMAPPED = (
    r"no registered type for shop\.blobs\.data \(bytea\); shop\.blobs\.span \(interval\); shop\.blobs\.huge"
)


@pytest.fixture(scope="module")
def server():
    with serving(SCHEMA) as dsn:
        yield dsn


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for declaration in (DECLARATION_PATH, SUBSCRIPTIONS_PATH):
        (tmp_path / declaration).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(PROJECT_DIR / declaration, tmp_path / declaration)
    return tmp_path


def test_tables_are_registered_as_the_catalog_describes_them(server, project):
    before = (project / DECLARATION_PATH).read_text(encoding="utf-8")
    names = ["shop.items", "shop.pairs", "shop.full_rows", "shop.by_index", "shop.priced", "shop.coded"]
    assert register_from_postgresql(server, names, project) == names
    registrations = load_registrations(project / DECLARATION_PATH)
    items = registrations["shop.items"]
    assert {column.name: column.data_type for column in items.columns} == {
        "item_id": "int", "name": "string", "price": "decimal(10,2)", "weight": "float",
        "ratio": "double", "active": "boolean", "added": "date", "seen": "timestamp",
        "seen_tz": "timestamp", "code": "string", "payload": "string", "uid": "string",
        "qty": "smallint", "big": "bigint", "note": "string",
    }  # fmt: skip
    assert items.key_columns == ("item_id",) and items.before_image_prefix is None
    assert registrations["shop.pairs"].key_columns == ("b", "a")  # the primary key's order
    assert registrations["shop.full_rows"].before_image_prefix == "X"  # whole before images
    assert registrations["shop.by_index"].key_columns == ("code",)  # the replica identity index
    # what a deleted row's change carries: the replica identity index, not the primary key
    assert registrations["shop.coded"].key_columns == ("code",)
    assert registrations["shop.priced"].column_names == ("id", "qty")  # never in the log: left out
    # and the source accepts what the catalog registered: keys and columns the log carries
    PostgresqlSource.of_registrations(
        server, {name: registrations[name] for name in names}, "lakerep_cat"
    ).prepare()
    text = (project / DECLARATION_PATH).read_text(encoding="utf-8")
    assert text.startswith(before.rstrip("\n")), "the declaration's other lines stay as they were"
    assert set(load_registrations()) < set(registrations)  # the demo's tables are still there

    scaffold(project)
    for registration in (registrations[name] for name in names):
        assert (project / "models/capture/cd" / f"{cd_model_name(registration)}.sql").exists()
        assert (project / "models/capture/ccd" / f"{ccd_model_name(registration)}.sql").exists()

    with pytest.raises(SourceError, match=r"already registered: shop\.pairs"):
        register_from_postgresql(server, ["shop.pairs"], project)


def test_only_these_tables_each_with_a_user_copy(server, project):
    comments = (project / SUBSCRIPTIONS_PATH).read_text(encoding="utf-8").split("\napply_qualifiers")[0]
    names = ["shop.items", "shop.pairs"]
    register_from_postgresql(server, names, project, only=True, subscribe="APPLY1.SHOP")
    assert sorted(load_registrations(project / DECLARATION_PATH)) == names  # the demo's are gone
    members = load_members(project / SUBSCRIPTIONS_PATH, project_dir=project)
    assert [(m.apply_qual, m.set_name, m.source, m.target_table, m.target_structure) for m in members] == [
        ("APPLY1", "SHOP", "shop.items", "items_copy", "user_copy"),
        ("APPLY1", "SHOP", "shop.pairs", "pairs_copy", "user_copy"),
    ]
    assert (project / SUBSCRIPTIONS_PATH).read_text(encoding="utf-8").startswith(comments)

    register_from_postgresql(server, ["shop.full_rows"], project, subscribe="APPLY1.SHOP")  # one more
    members = load_members(project / SUBSCRIPTIONS_PATH, project_dir=project)
    assert [m.target_table for m in members] == ["items_copy", "pairs_copy", "full_rows_copy"]


def test_only_without_a_set_is_refused_and_nothing_is_written(server, project):
    before = {
        path: (project / path).read_text(encoding="utf-8") for path in (DECLARATION_PATH, SUBSCRIPTIONS_PATH)
    }
    with pytest.raises(SourceError, match=r"--only drops every subscription member"):
        register_from_postgresql(server, ["shop.items"], project, only=True)
    with pytest.raises(SourceError, match=r"APPLY_QUAL\.SET, not 'SHOP'"):
        register_from_postgresql(server, ["shop.items"], project, subscribe="SHOP")
    assert before == {path: (project / path).read_text(encoding="utf-8") for path in before}


@pytest.mark.parametrize(
    ("tables", "message"),
    [
        (["shop.blobs"], UNMAPPED),
        (["shop.no_key"], r"shop\.no_key has no primary key"),
        (["shop.nothing"], r"no table shop\.nothing"),
        (["nothing"], r"schema\.table, not 'nothing'"),
    ],
)
def test_a_table_that_cannot_be_registered_is_named_and_nothing_is_written(server, project, tables, message):
    before = (project / DECLARATION_PATH).read_text(encoding="utf-8")
    with pytest.raises(SourceError, match=message):
        register_from_postgresql(server, ["shop.items", *tables], project)
    assert (project / DECLARATION_PATH).read_text(encoding="utf-8") == before
    assert sorted(path.name for path in (project / DECLARATION_PATH).parent.iterdir()) == [
        DECLARATION_PATH.name
    ]


def test_the_command_refuses_an_unreachable_server():
    unreachable = "postgresql://x@127.0.0.1:1/y"
    result = CliRunner().invoke(main, ["register", "--from-postgresql", unreachable, "a.b"])
    assert result.exit_code == EXIT_USER_ERROR
    assert "lakerep: cannot connect to the PostgreSQL source" in result.stderr
