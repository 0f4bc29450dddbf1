"""Registered source tables, read from the project's one declaration.

The declaration is the dbt sources file models/staging/_registrations__sources.yml; dbt reads
the same file through its graph. Python needs it for the workload generator and for checks that
the dbt models agree with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from lakerep import PROJECT_DIR

DECLARATION_FILE = PROJECT_DIR / "models" / "staging" / "_registrations__sources.yml"


@dataclass(frozen=True)
class Column:
    name: str
    data_type: str


@dataclass(frozen=True)
class Registration:
    source_owner: str
    source_table: str
    columns: tuple[Column, ...]
    key_columns: tuple[str, ...]
    before_image_prefix: str | None
    key_updates_as_delete_insert: bool
    ccd_condensed: bool
    ccd_complete: bool
    disable_refresh: bool

    @property
    def qualified_name(self) -> str:
        return f"{self.source_owner}.{self.source_table}"

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(column.name for column in self.columns)


class RegistrationError(ValueError):
    """The declaration is inconsistent; the message names the table and the problem."""


def load_registrations(path: Path = DECLARATION_FILE) -> dict[str, Registration]:
    """All registrations keyed by OWNER.TABLE, in declaration order."""
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    registrations: dict[str, Registration] = {}
    for source in document.get("sources", []):
        if not (source.get("config", {}).get("meta", {}) or {}).get("lakerep_registered"):
            continue
        for table in source.get("tables", []):
            registration = _registration_from(table, path)
            if registration.qualified_name in registrations:
                raise RegistrationError(f"{path}: {registration.qualified_name} is registered twice")
            registrations[registration.qualified_name] = registration
    return registrations


def _registration_from(table: dict, path: Path) -> Registration:
    meta = (table.get("config", {}).get("meta", {}) or {}).get("lakerep")
    if meta is None:
        raise RegistrationError(f"{path}: table {table.get('name')} has no meta.lakerep block")
    columns = tuple(Column(c["name"], c["data_type"]) for c in table.get("columns", []))
    names = {column.name for column in columns}
    missing_keys = [key for key in meta["key_columns"] if key not in names]
    if missing_keys:
        table_name = f"{meta['source_owner']}.{meta['source_table']}"
        raise RegistrationError(f"{path}: {table_name}: key columns {missing_keys} are not declared columns")
    return Registration(
        source_owner=meta["source_owner"],
        source_table=meta["source_table"],
        columns=columns,
        key_columns=tuple(meta["key_columns"]),
        before_image_prefix=meta.get("before_image_prefix"),
        key_updates_as_delete_insert=bool(meta.get("key_updates_as_delete_insert", False)),
        ccd_condensed=bool(meta.get("ccd_condensed", True)),
        ccd_complete=bool(meta.get("ccd_complete", False)),
        disable_refresh=bool(meta.get("disable_refresh", False)),
    )
