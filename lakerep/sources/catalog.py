"""Registrations from a PostgreSQL catalog (issue 23): `lakerep register --from-postgresql DSN
TABLE...` declares each table as the server describes it, so nobody types its columns.

Each column gets the registered type of its PostgreSQL type (TYPES, numeric(p,s) as decimal(p,s));
a type without one is named in the error, with its table, and nothing is written. The key is the
primary key, or under REPLICA IDENTITY USING INDEX the columns of that index: a deleted row's
change carries those only. Generated columns are left out (the log never carries one). A table
under REPLICA IDENTITY FULL sends whole before images, so its CD keeps them (prefix X); under the
default identity it gets none. Key updates are registered as delete/insert pairs. The new tables
are appended to the declaration file as a source group of their own (the file's other lines stay
as they are), the declaration is checked as `lakerep scaffold` checks it, and scaffold then
writes their models.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import yaml

from lakerep.registrations import DECLARATION_PATH, RegistrationError, load_registrations
from lakerep.sources.postgresql import (
    SourceError,
    connect,
    describe_table,
    generated_columns,
    identity_columns,
    split_name,
)
from lakerep.subscriptions import DECLARATION_PATH as SUBSCRIPTIONS_PATH
from lakerep.subscriptions import SubscriptionError, load_members

# PostgreSQL's type names (format_type, lengths and precisions taken off) -> registered type
TYPES = {
    "text": "string",
    "character varying": "string",
    "character": "string",
    "uuid": "string",
    "json": "string",
    "jsonb": "string",
    "smallint": "smallint",
    "integer": "int",
    "bigint": "bigint",
    "real": "float",
    "double precision": "double",
    "boolean": "boolean",
    "date": "date",
    "timestamp without time zone": "timestamp",
    "timestamp with time zone": "timestamp",
}
MAX_DECIMAL_PRECISION = 38  # Spark's


def registered_type(postgresql_type: str) -> str | None:
    """The registered type of a PostgreSQL type as format_type writes it; None when none fits."""
    decimal = re.fullmatch(r"numeric\((\d+),(\d+)\)", postgresql_type)
    if decimal:
        precision, scale = int(decimal[1]), int(decimal[2])
        return f"decimal({precision},{scale})" if precision <= MAX_DECIMAL_PRECISION else None
    return TYPES.get(re.sub(r"\(\d+\)", "", postgresql_type))


def register_from_postgresql(
    dsn: str, tables: Sequence[str], project_dir: Path, *, only: bool = False, subscribe: str | None = None
) -> list[str]:
    """Declare the tables (schema.table) in the project's registration file; their names.

    only: the file declares these tables alone (the demo's, and any others, go), and so does
    subscriptions.yml (it needs subscribe). subscribe (APPLY_QUAL.SET): each table also gets a
    user copy, `<table>_copy`, in that set. Both files are checked as scaffold
    checks them before either is replaced."""
    path = project_dir / DECLARATION_PATH
    registered = {} if only else load_registrations(path)
    again = [name for name in tables if name in registered]
    if again:
        raise SourceError(f"already registered: {', '.join(again)}")
    if only and subscribe is None:
        raise SourceError(
            "--only drops every subscription member with the other tables: "
            "name a set for the new ones (--subscribe APPLY_QUAL.SET)"
        )
    subscription = _set_name(subscribe) if subscribe is not None else None
    with connect(dsn) as connection:
        entries = [_table_entry(connection, *split_name(name)) for name in tables]
    unmapped = [problem for entry in entries for problem in entry.pop("unmapped")]
    if unmapped:
        raise SourceError(
            "no registered type for " + "; ".join(unmapped)
            + ": declare such a table yourself, with those columns as string (their text form)"
        )  # fmt: skip
    text = path.read_text(encoding="utf-8")
    kept = _leading_comments(text) + "version: 2\n\nsources:\n" if only else text.rstrip("\n") + "\n"
    candidate = checked_candidate(path, kept + _source_groups(entries, kept))
    subscriptions = project_dir / SUBSCRIPTIONS_PATH
    subscriptions_text = subscriptions.read_text(encoding="utf-8")
    if only or subscription:
        new_sources = {f"{entry['schema']}.{entry['name']}" for entry in entries}
        subscriptions.write_text(
            _subscriptions(subscriptions_text, new_sources, only=only, subscription=subscription),
            encoding="utf-8",
        )
    candidate.replace(path)
    try:
        load_members(subscriptions, project_dir=project_dir)
    except SubscriptionError:
        path.write_text(text, encoding="utf-8")
        subscriptions.write_text(subscriptions_text, encoding="utf-8")
        raise
    return list(tables)


def checked_candidate(path: Path, text: str) -> Path:
    """The declaration's new text, written beside it and checked as scaffold checks it (a
    RegistrationError, and nothing left behind, when it fails): the caller replaces the file
    with it."""
    candidate = path.with_name(f".{path.name}.new")
    candidate.write_text(text, encoding="utf-8")
    try:
        load_registrations(candidate)
    except RegistrationError:
        candidate.unlink()
        raise
    return candidate


def _set_name(subscribe: str) -> tuple[str, str]:
    apply_qual, _, set_name = subscribe.partition(".")
    if not apply_qual or not set_name:
        raise SourceError(f"--subscribe names a set as APPLY_QUAL.SET, not {subscribe!r}")
    return apply_qual, set_name


def _leading_comments(text: str) -> str:
    lines = []
    for line in text.splitlines(keepends=True):
        if not line.startswith("#"):
            break
        lines.append(line)
    return "".join(lines)


def _subscriptions(
    text: str, new_sources: set[str], *, only: bool, subscription: tuple[str, str] | None
) -> str:
    """subscriptions.yml without any member (only: their sources are no longer registered) and with
    a user copy of each new source in the named set; the file's opening comments are kept."""
    document = yaml.safe_load(text) or {}
    qualifiers = document.get("apply_qualifiers") or []
    if only:  # the sources of the file's members are no longer registered
        qualifiers = []
    if subscription is not None:
        apply_qual, set_name = subscription
        qualifier = next((q for q in qualifiers if q.get("apply_qual") == apply_qual), None)
        if qualifier is None:
            qualifier = {"apply_qual": apply_qual, "sets": []}
            qualifiers.append(qualifier)
        chosen = next((s for s in qualifier["sets"] if s.get("set_name") == set_name), None)
        if chosen is None:
            chosen = {"set_name": set_name, "on_operational_error": "stop", "members": []}
            qualifier["sets"].append(chosen)
        for source in sorted(new_sources):
            target = f"{source.rpartition('.')[2].lower()}_copy"
            chosen["members"].append({"source": source, "target": target, "structure": "user_copy"})
    body = yaml.safe_dump(
        {"apply_qualifiers": qualifiers}, sort_keys=False, width=110, default_flow_style=None
    )
    return _leading_comments(text) + body


class TableColumns(NamedTuple):
    """A table as register declares it: its key, its columns with their PostgreSQL types
    (format_type), generated ones left out, those generated ones, and its replica identity."""

    keys: list[str]
    columns: list[tuple[str, str]]
    generated: set[str]
    identity: str


def table_columns(connection, schema: str, table: str) -> TableColumns:
    """The table's TableColumns, from the catalog."""
    oid, identity, *_ = describe_table(connection, schema, table)
    generated = generated_columns(connection, oid)
    columns = [column for column in connection.execute(
        "select attname, format_type(atttypid, atttypmod) from pg_attribute "
        "where attrelid = %s and attnum > 0 and not attisdropped order by attnum",
        [oid],
    ).fetchall() if column[0] not in generated]  # fmt: skip
    # The key a deleted row's change carries: its index's under USING INDEX, else the primary key
    keys = list(identity_columns(connection, oid, "i" if identity == "i" else "d"))
    if not keys:
        raise SourceError(f"{schema}.{table} has no primary key: lakerep registers a table by its key")
    return TableColumns(keys, columns, generated, identity)


def _table_entry(connection, schema: str, table: str) -> dict:
    keys, columns, generated, identity = table_columns(connection, schema, table)
    declared, unmapped = [], []
    for name, postgresql_type in columns:
        data_type = registered_type(postgresql_type)
        if data_type is None:
            unmapped.append(f"{schema}.{table}.{name} ({postgresql_type})")
        declared.append({"name": name, "data_type": data_type,
                         "description": f"{schema}.{table}.{name}: {postgresql_type}."})  # fmt: skip
    registration = {
        "source_owner": schema,
        "source_table": table,
        "key_columns": keys,
        "before_image_prefix": "X" if identity == "f" else None,  # FULL: whole before images
        "key_updates_as_delete_insert": True,
        "ccd_condensed": True,
        "ccd_complete": False,
        "disable_refresh": False,
    }
    left_out = f" Generated, left out: {', '.join(sorted(generated))}." if generated else ""
    return {
        "schema": schema,
        "name": table,
        "description": f"{schema}.{table} of the PostgreSQL source (lakerep register --from-postgresql)."
        + left_out,
        "config": {"meta": {"lakerep": registration}},
        "columns": declared,
        "unmapped": unmapped,
    }


def _source_groups(entries: list[dict], existing_text: str) -> str:
    """YAML of one source group per schema, under the file's `sources:` list."""
    groups = []
    for schema in dict.fromkeys(entry["schema"] for entry in entries):
        name, number = f"postgresql_{schema.lower()}", 1
        while re.search(rf"^  - name: {re.escape(name)}$", existing_text, re.MULTILINE):
            number += 1
            name = f"postgresql_{schema.lower()}_{number}"
        groups.append({
            "name": name,
            "description": f"Tables of {schema} in the PostgreSQL source.",
            "schema": schema,
            "config": {"meta": {"lakerep_registered": True}},
            "tables": [{key: value for key, value in entry.items() if key != "schema"}
                       for entry in entries if entry["schema"] == schema],
        })  # fmt: skip
    text = yaml.safe_dump(groups, sort_keys=False, width=110, allow_unicode=True, default_flow_style=None)
    return "".join(f"  {line}" if line.strip() else line for line in text.splitlines(keepends=True))
