"""The bench's `wide` case: many registered tables, changes in only a few of them.

A scratch copy of the project (its dbt files and this package, never the demo's declaration)
registers `tables` sources: the demo's, plus copies of SALES.CUSTOMERS named WIDE.T001, ...,
each subscribed as a user copy in the set WIDE. `lakerep scaffold` runs there, then a process
whose lakerep is the copy's (so PROJECT_DIR is the copy) captures a history on the changed tables
(the demo's and WIDE.T001) and measures one more cycle. What it prints ends with the case's
`bench wide: ...` line.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from lakerep import PROJECT_DIR

PROJECT_PARTS = (
    "dbt_project.yml",
    "models",
    "macros",
    "profiles",
    "data-tests",
    "subscriptions.yml",
    "lakerep",
)
TEMPLATE = ("SALES", "CUSTOMERS")
WIDE_OWNER = "WIDE"
CHANGED_WIDE_TABLES = 1  # with the demo's four: changes in five tables


def wide_table_names(tables: int, registered: int) -> list[str]:
    """The extra tables' names, so that `tables` are registered in all."""
    if tables < registered + CHANGED_WIDE_TABLES:
        raise ValueError(
            f"the wide case needs at least {registered + CHANGED_WIDE_TABLES} tables, not {tables}"
        )
    return [f"T{number:03d}" for number in range(1, tables - registered + 1)]


def widen_declarations(project: Path, names: list[str]) -> None:
    """Register and subscribe the extra tables in the copy's two declarations."""
    sources_file = project / "models" / "staging" / "_registrations__sources.yml"
    sources = yaml.safe_load(sources_file.read_text(encoding="utf-8"))
    template = next(
        table
        for source in sources["sources"]
        for table in source["tables"]
        if _registered_as(table) == TEMPLATE
    )
    tables = []
    for name in names:
        table = yaml.safe_load(yaml.safe_dump(template))
        table["name"] = name.lower()
        table["description"] = f"A copy of {'.'.join(TEMPLATE)}'s structure, for the bench's wide case."
        table["config"]["meta"]["lakerep"].update(source_owner=WIDE_OWNER, source_table=name)
        tables.append(table)
    sources["sources"].append(
        {
            "name": WIDE_OWNER.lower(),
            "description": "The bench's wide case.",
            "schema": WIDE_OWNER.lower(),
            "config": {"meta": {"lakerep_registered": True}},
            "tables": tables,
        }
    )
    sources_file.write_text(yaml.safe_dump(sources, sort_keys=False), encoding="utf-8")

    subscriptions_file = project / "subscriptions.yml"
    subscriptions = yaml.safe_load(subscriptions_file.read_text(encoding="utf-8"))
    subscriptions["apply_qualifiers"][0]["sets"].append(
        {
            "set_name": WIDE_OWNER,
            "on_operational_error": "continue",
            "members": [
                {
                    "source": f"{WIDE_OWNER}.{name}",
                    "target": wide_target(name),
                    "structure": "user_copy",
                }
                for name in names
            ],
        }
    )
    subscriptions_file.write_text(yaml.safe_dump(subscriptions, sort_keys=False), encoding="utf-8")


def wide_target(name: str) -> str:
    return f"wide_{name.lower()}_copy"


def _registered_as(table: dict) -> tuple[str, str]:
    declared = table["config"]["meta"]["lakerep"]
    return declared["source_owner"], declared["source_table"]


def copy_project(project: Path) -> Path:
    """A copy of the project (its dbt project, declarations and runner, not its lake) at
    `project`, a folder that does not exist yet; returns it. Run from it (PYTHONPATH), the runner
    works on the copy's declarations and models."""
    project.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for part in PROJECT_PARTS:
        source = PROJECT_DIR / part
        if source.is_dir():
            shutil.copytree(source, project / part, ignore=ignore)
        else:
            shutil.copy2(source, project / part)
    return project


def copy_environment(project: Path, *python_path: str) -> dict[str, str]:
    """The environment of a process of the copy: its runner (and `python_path` after it), its
    lake, its profiles, dbt's target and logs in it."""
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(project), *python_path]),
        "LAKEREP_HOME": str(project / ".lakerep"),
        "DBT_PROFILES_DIR": str(project / "profiles"),
        "DBT_TARGET_PATH": str(project / "target"),
        "DBT_LOG_PATH": str(project / "logs"),
    }


def make_wide_project(scratch: Path, tables: int) -> Path:
    """A copy of the project with `tables` registered sources, scaffolded; returns its root."""
    from lakerep.registrations import load_registrations

    project = scratch / "project"
    if project.exists():
        shutil.rmtree(project)
    copy_project(project)
    widen_declarations(project, wide_table_names(tables, len(load_registrations())))
    _run_in(project, ["-m", "lakerep.cli", "scaffold"])
    return project


def run_wide(*, tables: int, seed: int, cycle_records: int, scratch: Path) -> list[str]:
    """Build the copy, run the case in its own process, return the lines it printed."""
    project = make_wide_project(scratch, tables)
    code = (
        "from lakerep.bench_wide import measure_wide_here\n"
        f"for line in measure_wide_here(seed={seed}, cycle_records={cycle_records}):\n"
        "    print(line, flush=True)\n"
    )
    return _run_in(project, ["-c", code]).splitlines()


def _run_in(project: Path, args: list[str]) -> str:
    environment = {
        **copy_environment(project),
        "LAKEREP_LOG4J": str(project / "profiles" / "log4j2.properties"),
    }
    done = subprocess.run(
        [sys.executable, *args], cwd=project, env=environment, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"the wide case failed in {project} (exit {done.returncode}): {done.stderr[-2000:]}"
        )
    return done.stdout


def measure_wide_here(*, seed: int, cycle_records: int):
    """In the wide copy: a history of `cycle_records` log records on the changed tables (the first
    build of every model), then the measured cycle of `cycle_records` more, in one session run."""
    import time
    import uuid

    from lakerep import dbt, landing
    from lakerep.bench import CaseFigures, metered
    from lakerep.lake import lake_session, reset_lake
    from lakerep.pipeline import run_cycle
    from lakerep.registrations import load_registrations
    from lakerep.workload.generator import Workload

    registered = load_registrations()
    if not any(registration.source_owner == WIDE_OWNER for registration in registered.values()):
        raise RuntimeError(f"measure_wide_here runs in the wide copy of the project, not in {PROJECT_DIR}")
    changed = {
        name: registration
        for name, registration in registered.items()
        if registration.source_owner != WIDE_OWNER or name == f"{WIDE_OWNER}.T001"
    }
    lake_session()
    reset_lake()
    spark = lake_session()
    # A continuous run's cycles between its prunes.
    run_vars = {"lakerep_run_id": f"bench-wide-{uuid.uuid4()}", "lakerep_prune": False}
    workload = Workload(seed=seed, registrations=changed)
    landing.land_log_records(spark, workload.next_batch(cycle_records).records)
    with dbt.parse_once():  # one session run, as `lakerep run` runs it
        history = run_cycle(quiet=True, command="run", run_vars=run_vars)
        yield (
            f"  wide: {len(registered)} registered, changes in {len(changed)}; "
            f"history cycle (first build) {history.seconds:.1f} s"
        )
        with metered() as meter:
            started = time.perf_counter()
            _, rows = landing.land_log_records(spark, workload.next_batch(cycle_records).records)
            cycle = run_cycle(quiet=True, command="run", run_vars=run_vars)
            seconds = time.perf_counter() - started
    yield f"  wide cycle: {rows:,} rows, cycle (dbt run) {cycle.seconds:.1f} s"
    yield CaseFigures("wide", seconds, rows, meter.statements, meter.commits + 1, meter.jobs).line()
