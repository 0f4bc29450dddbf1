"""The project's layers hold (issue 25): only staging models read the landing tables through
`source()`; a macro may name a source only in the operations that write the landing tables
(landing, and refresh markers, whose checks also read them), in the cycle's facts, which take
the highest landed batch as the cycle's bound, and in the prune. No Spark."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE_CALL = re.compile(r"\bsource\(")
# Operations that write the landing tables (run-operation, never inside a model's SQL), the
# relation of the Debezium landing table, which staging reads only once `lakerep land` made it,
# the cycle's facts, which read only the landing tables' highest batch (a bare max, from
# Delta's statistics): every batch up to it is the cycle's to judge; and the prune, which deletes
# the landed log records no session needs.
MACROS_THAT_MAY_NAME_SOURCES = {
    "macros/landing/lakerep_create_landing_tables.sql",
    "macros/landing/lakerep_create_land_tables.sql",
    "macros/landing/lakerep_debezium_events_relation.sql",
    "macros/apply/lakerep_mark_refresh.sql",
    "macros/capture/lakerep_cycle_facts.sql",
    "macros/apply/lakerep_prune_plan.sql",
}


def reading_sources(folder: str) -> set[str]:
    return {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / folder).rglob("*.sql")
        if SOURCE_CALL.search(path.read_text(encoding="utf-8"))
    }


def test_only_staging_models_read_the_landing_tables():
    outside = {path for path in reading_sources("models") if not path.startswith("models/staging/")}
    assert not outside, f"models outside staging call source(): {sorted(outside)}"


def test_macros_name_a_landing_table_only_in_the_operations_that_write_them():
    assert reading_sources("macros") <= MACROS_THAT_MAY_NAME_SOURCES
