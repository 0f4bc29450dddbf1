"""`lakerep register --sync` writes a table's columns and key into the declaration (ADR 0012):
only that table's `key_columns` line and `columns:` list change, in either way the file writes a
list, and the file still loads as scaffold loads it."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakerep.registrations import DECLARATION_FILE, load_registrations
from lakerep.sources.declaration_sync import _replace_table

ORDERS = [
    {"name": "order_id", "data_type": "bigint", "description": "Order number."},
    {"name": "status", "data_type": "string", "description": 'It says "new" or "done".'},
    {"name": "remark", "data_type": "string", "description": "SALES.ORDERS.remark: added at the source."},
]


def test_the_demo_declaration_gets_the_tables_new_columns_and_nothing_else(tmp_path):
    text = DECLARATION_FILE.read_text(encoding="utf-8")
    synced = _replace_table(text, "SALES", "ORDERS", ORDERS, ["order_id", "status"])
    path = tmp_path / "declaration.yml"
    path.write_text(synced, encoding="utf-8")
    registrations = load_registrations(path)
    orders = registrations["SALES.ORDERS"]
    assert orders.column_names == ("order_id", "status", "remark")
    assert orders.key_columns == ("order_id", "status")
    before = load_registrations(DECLARATION_FILE)
    assert {name: r for name, r in registrations.items() if name != "SALES.ORDERS"} == {
        name: r for name, r in before.items() if name != "SALES.ORDERS"
    }
    changed = [line for line in synced.splitlines() if line not in text.splitlines()]
    assert len(changed) == 4  # the key line and the three columns


def _entry(table: str, columns: str) -> str:
    """A table entry as the declaration writes one, with its columns list as given."""
    return f"""    - name: {table}
      config:
        meta:
          lakerep:
            source_owner: public
            source_table: {table}
            key_columns: [id]
            before_image_prefix: null
            key_updates_as_delete_insert: true
            ccd_condensed: true
            ccd_complete: false
            disable_refresh: false
      columns:
{columns}"""


# a list in block style and one in flow style, each followed by another entry or the file's end
BLOCK_STYLE = (
    "version: 2\nsources:\n  - name: postgresql_public\n    schema: public\n    config:\n"
    "      meta:\n        lakerep_registered: true\n    tables:\n"
    + _entry("t", "      - name: id\n        data_type: int\n        description: public.t.id\n"
                  "      - {name: v, data_type: string, description: public.t.v}\n")
    + _entry("u", "      - {name: id, data_type: int, description: public.u.id}\n")
)  # fmt: skip


@pytest.mark.parametrize("table", ["t", "u"])
def test_a_list_as_register_writes_it_is_replaced(tmp_path: Path, table: str):
    columns = [{"name": "id", "data_type": "bigint", "description": "widened"},
               {"name": "w", "data_type": "date", "description": "added"}]  # fmt: skip
    path = tmp_path / "declaration.yml"
    path.write_text(_replace_table(BLOCK_STYLE, "public", table, columns, ["id"]), encoding="utf-8")
    registrations = load_registrations(path)
    assert [(c.name, c.data_type) for c in registrations[f"public.{table}"].columns] == [
        ("id", "bigint"), ("w", "date")
    ]  # fmt: skip
    other = "u" if table == "t" else "t"
    assert (
        registrations[f"public.{other}"]
        == load_registrations(_written(tmp_path, BLOCK_STYLE))[f"public.{other}"]
    )


def _written(folder: Path, text: str) -> Path:
    path = folder / "original.yml"
    path.write_text(text, encoding="utf-8")
    return path
