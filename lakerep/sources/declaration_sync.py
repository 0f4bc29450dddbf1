"""`lakerep register --sync --from-postgresql DSN TABLE...` (ADR 0012): the declaration of each
registered table brought to its shape as the lake's schema history knows it, for someone to
commit, and the models written again as `lakerep scaffold` writes them.

The columns are the history's: the declared ones with the changes the log showed (a dropped
column kept, so no reader's query and no target loses it), or, for a table an unsafe change
stopped, the source's columns after that change, which resumes the table (its members then need
a refresh). The key is the catalog's, as `register` takes it, so a key change is declared too.
A table whose catalog no longer has the columns the history ends with changed again after the
lake's position: the sync refuses it until a cycle has read that far. Only the table's
`key_columns` line and its `columns:` list change in the file; the rest stays as written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

import yaml

from lakerep.registrations import DECLARATION_PATH, load_registrations
from lakerep.sources.catalog import checked_candidate, registered_type, table_columns
from lakerep.sources.postgresql import SourceError, connect, split_name
from lakerep.sources.schema_history import HistoryRow, SchemaHistory, declared_shapes


def sync_declarations(
    dsn: str, tables: Sequence[str], project_dir: Path, history: list[HistoryRow]
) -> list[str]:
    """Rewrite the declarations of `tables` (registered schema.table names) from the history and
    the catalog; the lines that say what changed, one per table."""
    path = project_dir / DECLARATION_PATH
    registrations = load_registrations(path)
    missing = [name for name in tables if name not in registrations]
    if missing:
        raise SourceError(
            f"not registered: {', '.join(missing)} (lakerep register --from-postgresql adds a table)"
        )
    shapes = SchemaHistory(declared_shapes(registrations), history)
    text = original = path.read_text(encoding="utf-8")
    document = yaml.safe_load(original) or {}
    said = []
    with connect(dsn) as connection:
        for name in tables:
            registration = registrations[name]
            columns, stopped = _columns_after_history(name, shapes, history)
            keys, catalog = _catalog_columns(connection, name)
            live = [column for column, _, dropped in columns if not dropped]
            if live != [column for column, _ in catalog]:
                raise SourceError(
                    f"{name} has columns ({', '.join(c for c, _ in catalog)}) that the lake's log has not "
                    f"shown yet (it knows {', '.join(live)}): run a cycle first, then sync"
                )
            descriptions = _descriptions(document, name)
            added = f"{name}.{{}}: added at the source (schema history)."
            entries = [
                {"name": column, "data_type": data_type,
                 "description": _noted(descriptions.get(column) or added.format(column), dropped)}
                for column, data_type, dropped in columns
            ]  # fmt: skip
            text = _replace_table(text, registration.source_owner, registration.source_table, entries, keys)
            said.append(
                f"synced: {name}, {len(entries)} columns, key ({', '.join(keys)})"
                + (": it resumes once its members are refreshed (lakerep refresh)" if stopped else "")
            )
    candidate = checked_candidate(path, text)
    if text != original:
        candidate.replace(path)
    else:
        candidate.unlink()
    return said


def _columns_after_history(name: str, shapes: SchemaHistory, history: list[HistoryRow]) -> tuple[list, bool]:
    """[(column, type, dropped)] as the history ends for the table, and whether an unsafe change
    stopped it (then the source's columns after that change)."""
    shape = shapes.latest(name)
    if not shape.stopped:
        return [(c.name, c.data_type, c.dropped) for c in shape.columns], False
    owner, _, table = name.rpartition(".")
    stop = next(
        row for row in history
        if (row.source_owner, row.source_table) == (owner, table) and row.change.kind == "unsafe"
        and shapes.shape_at(name, row.log_position).stopped
    )  # fmt: skip
    return [(column, data_type, False) for column, data_type in json.loads(stop.columns_after)], True


def _catalog_columns(connection, name: str) -> tuple[list[str], list[tuple[str, str | None]]]:
    """The table's key (as register takes it) and its columns with their registered types."""
    found = table_columns(connection, *split_name(name))
    return found.keys, [
        (column, registered_type(postgresql_type)) for column, postgresql_type in found.columns
    ]


def _descriptions(document: dict, name: str) -> dict[str, str]:
    """The table's declared columns' descriptions (from the declaration's YAML), kept through the
    sync."""
    owner, _, table = name.rpartition(".")
    for source in document.get("sources") or []:
        for entry in source.get("tables") or []:
            meta = ((entry.get("config") or {}).get("meta") or {}).get("lakerep") or {}
            if (meta.get("source_owner"), meta.get("source_table")) == (owner, table):
                return {column["name"]: column.get("description") for column in entry.get("columns") or []}
    return {}


def _replace_table(text: str, owner: str, table: str, columns: list[dict], keys: list[str]) -> str:
    """The declaration with the table's key_columns line and columns list replaced."""
    lines = text.splitlines(keepends=True)
    table_line = re.compile(rf"\s+source_table: {re.escape(table)}\s*")
    owner_line = re.compile(rf"\s+source_owner: {re.escape(owner)}\s*")
    at = next(
        (i for i, line in enumerate(lines)
         if table_line.fullmatch(line) and any(owner_line.fullmatch(e) for e in lines[max(0, i - 3) : i])),
        None,
    )  # fmt: skip
    if at is None:
        raise SourceError(
            f"{owner}.{table}: its declaration is not written as register and scaffold write it"
        )
    start = max(i for i in range(at) if re.match(r"\s*- name:", lines[i]))  # the table's entry
    entry_indent = len(lines[start]) - len(lines[start].lstrip(" -"))
    end = next(
        (i for i in range(start + 1, len(lines))
         if lines[i].strip() and _indent(lines[i]) < entry_indent),
        len(lines),
    )  # fmt: skip
    end = min(end, next((i for i in range(start + 1, end) if re.match(r"\s*- name:", lines[i])
                         and _indent(lines[i]) == _indent(lines[start])), end))  # fmt: skip
    block = lines[start:end]
    for i, line in enumerate(block):
        found = re.match(r"(\s+)key_columns:", line)
        if found:
            block[i] = f"{found[1]}key_columns: [{', '.join(keys)}]\n"
    heading = next(i for i, line in enumerate(block) if re.fullmatch(r"\s+columns:\s*", line))
    key_indent = _indent(block[heading])
    after = heading + 1
    while (
        after < len(block)
        and block[after].strip()
        and (
            _indent(block[after]) > key_indent
            or (_indent(block[after]) == key_indent and block[after].lstrip().startswith("- "))
        )
    ):
        after += 1
    items = [
        " " * (key_indent + 2)
        + "- "
        + yaml.safe_dump(column, default_flow_style=True, width=10_000).strip()
        + "\n"
        for column in columns
    ]
    block[heading + 1 : after] = items
    return "".join(lines[:start] + block + lines[end:])


DROPPED = " Dropped at the source since: null from the drop on."


def _noted(description: str, dropped: bool) -> str:
    return description + DROPPED if dropped and DROPPED not in description else description


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))
