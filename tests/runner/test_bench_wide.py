"""The bench's wide case builds its own copy of the project: the demo's registrations plus copies
of SALES.CUSTOMERS, each subscribed, scaffolded there; the project itself is left alone. No Spark."""

from __future__ import annotations

import pytest

from lakerep import PROJECT_DIR
from lakerep.bench_wide import make_wide_project, wide_table_names, wide_target

DEMO_TABLES = 4


def test_the_extra_tables_make_up_the_count():
    assert wide_table_names(7, registered=DEMO_TABLES) == ["T001", "T002", "T003"]
    with pytest.raises(ValueError, match="at least 5 tables, not 4"):
        wide_table_names(4, registered=DEMO_TABLES)


def test_the_copy_registers_subscribes_and_scaffolds_every_table(tmp_path):
    before = (PROJECT_DIR / "subscriptions.yml").read_text(encoding="utf-8")
    project = make_wide_project(tmp_path, tables=7)
    for name in ("T001", "T002", "T003"):
        assert (project / "models" / "capture" / "cd" / f"cd_wide__{name.lower()}.sql").exists()
        assert (project / "models" / "capture" / "ccd" / f"ccd_wide__{name.lower()}.sql").exists()
        assert (project / "models" / "apply" / "targets" / f"{wide_target(name)}.sql").exists()
    assert (project / "models" / "capture" / "cd" / "cd_sales__orders.sql").exists()
    assert not (project / "models" / "capture" / "cd" / "cd_wide__t004.sql").exists()
    assert (PROJECT_DIR / "subscriptions.yml").read_text(encoding="utf-8") == before
    assert not list((PROJECT_DIR / "models" / "capture" / "cd").glob("cd_wide__*"))
