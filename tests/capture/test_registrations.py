"""The registration declaration: read once, and a broken one is refused with a clear message."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lakerep.registrations import RegistrationError, load_registrations


def declaration(tmp_path: Path, tables: str) -> Path:
    path = tmp_path / "registrations.yml"
    path.write_text(
        textwrap.dedent(
            """
            sources:
              - name: other
                tables: [{name: ignored}]
              - name: sales
                config: {meta: {lakerep_registered: true}}
                tables:
            """
        )
        + textwrap.indent(textwrap.dedent(tables), " " * 6)
    )
    return path


def table(name: str, keys: str = "[id]", meta: bool = True) -> str:
    lakerep = f"config: {{meta: {{lakerep: {{source_owner: S, source_table: {name}, key_columns: {keys}}}}}}}"
    return f"- name: {name.lower()}\n  {lakerep if meta else ''}\n  columns: [{{name: id, data_type: int}}]\n"


def test_the_project_declaration_loads():
    registrations = load_registrations()
    assert "SALES.ORDERS" in registrations
    assert registrations["SALES.ORDER_LINES"].key_columns == ("order_id", "line_no")


def test_only_sources_marked_registered_count(tmp_path):
    registrations = load_registrations(declaration(tmp_path, table("T")))
    assert list(registrations) == ["S.T"]
    assert registrations["S.T"].ccd_condensed is True


@pytest.mark.parametrize(
    ("tables", "message"),
    [
        (table("T", keys="[missing]"), "S.T: key columns ['missing'] are not declared columns"),
        (table("T") + table("T"), "S.T is registered twice"),
        (table("T", meta=False), "table t has no meta.lakerep block"),
    ],
)
def test_a_broken_declaration_is_refused_naming_the_problem(tmp_path, tables, message):
    path = declaration(tmp_path, tables)
    with pytest.raises(RegistrationError, match=str(path)) as error:
        load_registrations(path)
    assert message in str(error.value)
