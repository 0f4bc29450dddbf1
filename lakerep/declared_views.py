"""Which cycles build the views whose SQL changes only with the project (ADR 0011).

The SPEC's per-source tables (cd_<owner>__<table>, ccd_<owner>__<table>), the control tables'
views (register, warm_start, ...) and the staging and validation views are dbt models with the
config `lakerep_built: declaration`: their SQL follows the project's files and declarations, not
the lake. A session's cycles leave them out of their selection (DECLARED_VIEWS), so a cycle's dbt
nodes follow the kinds of tables it writes, not the registered tables; the first cycle after the
project changed builds them (each view is kept when its definition is unchanged), and so does
every cycle with data tests, whose tests read them. What was built is kept beside the embedded
lake, in status/views under the lakerep home: the project's fingerprint when its views were last
built (data_test_schedule.project_fingerprint). A reset lake loses it with the lake's status,
and a change of a registered table's columns (the schema history, ADR 0012) forgets it before it
commits: the views follow the source's columns.
"""

from __future__ import annotations

from pathlib import Path

from lakerep.status_files import replace_in_one_step

DECLARED_VIEWS = "config.lakerep_built:declaration"
"""dbt selector of the views built with the project's declarations."""


def record_path(home: Path) -> Path:
    return home / "status" / "views"


def built(home: Path, fingerprint: str) -> bool:
    """Whether the lake's declared views were built from the project of `fingerprint`."""
    try:
        return record_path(home).read_text(encoding="utf-8").strip() == fingerprint
    except OSError:
        return False


def remember(home: Path, fingerprint: str) -> None:
    """Record that a cycle built the declared views of the project of `fingerprint`."""
    replace_in_one_step(record_path(home), fingerprint)


def forget(home: Path) -> None:
    """The next cycle builds the declared views again (their columns are about to change)."""
    record_path(home).unlink(missing_ok=True)
