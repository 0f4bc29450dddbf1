"""What `lakerep refresh` (from a live source too), `lakerep unload`, `lakerep mark-external-refresh`,
`lakerep prune` and `lakerep diff` do (SPEC §5, §6, §7).

Each checks what it can before Spark starts (options, members, position format), refuses while a
runner holds a session (the subscriptions are active), then does its work inside the lake's
critical section. The decisions are SQL: the lakerep_mark_refresh macro checks a marker against
the lake and records it; the capture_prune model prunes; the lakerep_diff macro compares.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import re
import socket
from collections.abc import Sequence
from dataclasses import dataclass

from lakerep import data_test_schedule, dbt
from lakerep.lake import lake_home
from lakerep.locks import critical_section, refuse_if_active, refuse_if_lake_open
from lakerep.subscriptions import load_members

_POSITION = re.compile(r"[0-9A-Fa-f]{20}")


def external_kind(start: str | None, end: str | None, unload_start: bool, unload_end: bool) -> str:
    """The marker kind that mark-external-refresh's options ask for; ValueError unless they are
    exactly one of --start POS --end POS, --unload-start, --unload-end."""
    forms = [start is not None or end is not None, unload_start, unload_end]
    if sum(forms) != 1:
        raise ValueError("give exactly one of --start POS --end POS, --unload-start, --unload-end")
    if unload_start:
        return "unload_start"
    if unload_end:
        return "unload_end"
    if start is None or end is None:
        raise ValueError(f"--start and --end go together (missing --{'start' if start is None else 'end'})")
    for name, position in (("start", start), ("end", end)):
        if not _POSITION.fullmatch(position):
            raise ValueError(f"--{name} {position} is not a log position: 20 hex digits")
    if start.upper() > end.upper():
        raise ValueError(f"--start {start} is after --end {end}")
    return "external"


def mark(
    target_tables: Sequence[str], kind: str, start: str | None = None, end: str | None = None
) -> list[str]:
    """Record a refresh marker for each member writing one of target_tables (kind: refresh,
    external, unload_start, unload_end), in one process and one critical section, so a call
    naming several members pays Spark's start once; the lines saying what was recorded.
    Every name is checked before anything is written. dbt.OperationRejected says why the lake
    refused a member (the macro's message names it), and which members were marked before it."""
    members = _checked_members(target_tables)
    home = lake_home()
    refuse_if_active(home)
    with critical_section(home):
        refuse_if_active(home)  # a runner may have started while we waited
        return _mark_members(members, kind, start, end)


def unload_from_source(target_tables: Sequence[str], source, *, refresh: bool) -> list[str]:
    """Unload each named member's source table from the live source
    (sources.postgresql.PostgresqlSource) at one log position and land it as a source snapshot
    whose start and end are that position; the lines saying what landed.

    refresh (`lakerep refresh --source`): then mark a full refresh of the members, so their next
    Apply cycle loads the snapshot and mirrors from its position. Without (`lakerep unload`), the
    snapshot is there to compare with (`lakerep diff`, the data test) once Capture has read past
    it. An empty table lands as a snapshot without rows (one row without an image), so its members
    start empty. The source is opened first (lakerep.sources.landing.open_source: its slot made
    on a new lake): the changes committed after the unload must reach the lake."""
    from lakerep.lake import lake_session
    from lakerep.sources.landing import open_source

    members = _checked_members(target_tables)
    for member in members if refresh else []:
        if member.registration.disable_refresh:
            raise ValueError(
                f"{member.source} has DISABLE_REFRESH: lakerep does not refresh {member.target_table}; "
                "refresh it by other means and run lakerep mark-external-refresh"
            )
    home = lake_home()
    refuse_if_active(home)
    lines: list[str] = []
    with critical_section(home):
        refuse_if_active(home)
        spark = lake_session()
        said = open_source(spark, source).said  # a slot lost now: the next run starts cold
        lines.extend([said] if said else [])
        lines.extend(_unload_and_land(spark, source, members))
        if refresh:
            lines.extend(_mark_members(members, "refresh"))
    return lines


def refresh_truncated(spark, source, tables: Sequence[str]) -> list[str]:
    """A running session read a TRUNCATE of `tables` (schema.table): no row change says what it
    removed, so every member of those tables is refreshed from an unload taken now, past it
    (the truncate, and whatever its transaction wrote after it, are in the unload); the lines
    saying what landed. Called inside the session's critical section, before the slot moves past
    the truncate. A member with DISABLE_REFRESH cannot be refreshed by lakerep: a SourceError
    naming it, before anything is landed."""
    from lakerep.sources.postgresql import SourceError

    members = [member for member in load_members() if member.registration.qualified_name in tables]
    refused = [member.target_table for member in members if member.registration.disable_refresh]
    if refused:
        raise SourceError(
            f"a TRUNCATE of {', '.join(tables)}, whose members {', '.join(refused)} have DISABLE_REFRESH: "
            "lakerep may not refresh them, and no row change says what the truncate removed; the slot "
            "stays before it. Load them by other means and drop the slot (the next run starts cold)"
        )
    if not members:
        return [f"a TRUNCATE of {', '.join(tables)}: no member to refresh"]
    return [*_unload_and_land(spark, source, members), *_mark_members(members, "refresh")]


def _unload_and_land(spark, source, members: list) -> list[str]:
    """Unload each of the members' tables once, at one log position, and land it as a source
    snapshot whose start and end are that position; the lines saying what landed."""
    from lakerep.landing import land_snapshot_rows

    lines: list[str] = []
    registrations = {member.source: member.registration for member in members}
    for registration in registrations.values():  # a table unloaded once for all its members
        name = registration.qualified_name
        unload = source.unload(name)
        snapshot_id = f"{name}:{unload.position}:{unload.position}"
        rows = unload.rows or [None]  # an empty table: the snapshot's one row, without an image
        land_snapshot_rows(spark, (
            {"snapshot_id": snapshot_id, "source_owner": registration.source_owner,
             "source_table": registration.source_table, "unload_start_position": unload.position,
             "unload_end_position": unload.position, "row_image": row_image}
            for row_image in rows
        ))  # fmt: skip
        lines.append(
            f"unloaded {len(unload.rows):,} rows of {name} at {unload.position} (snapshot {snapshot_id})"
        )
    return lines


def _checked_members(target_tables: Sequence[str]) -> list:
    """The members writing target_tables, each once, in the order named; ValueError for a name
    that no member writes, before anything is done."""
    if not target_tables:
        raise ValueError("name at least one member (--member TARGET)")
    by_target = {member.target_table: member for member in load_members()}
    _check_members(target_tables, list(by_target))
    return [by_target[target_table] for target_table in dict.fromkeys(target_tables)]


def _mark_members(members: list, kind: str, start: str | None = None, end: str | None = None) -> list[str]:
    data_test_schedule.forget(lake_home())  # the next run tests first what the markers change
    lines: list[str] = []
    for number, member in enumerate(members):
        arguments = {"kind": kind, "target_table": member.target_table, "marked_by": _user_and_host()}
        if kind == "external":
            arguments |= {"start_position": start.upper(), "end_position": end.upper()}
        try:
            lines.extend(dbt.run_operation("lakerep_mark_refresh", arguments).messages)
        except dbt.OperationRejected as rejected:
            if not number:
                raise
            marked = ", ".join(member.target_table for member in members[:number])
            raise dbt.OperationRejected(f"{rejected} ({marked} marked)") from rejected
    return lines


def prune(retention_limit: int | None = None) -> list[str]:
    """Prune the CD and UOW tables now (the capture_prune model); a line per table pruned and a total.
    `retention_limit` (minutes) replaces the retention_limit var for this prune."""
    from lakerep.lake import lake_session
    from lakerep.summary import relation_name

    home = lake_home()
    refuse_if_active(home)
    with critical_section(home):
        refuse_if_active(home)
        data_test_schedule.forget(home)  # the next run tests what the prune leaves, first
        spark = lake_session()
        for model in ("register", "pruning_control"):
            if not spark.catalog.tableExists(relation_name(model)):
                raise ValueError(f"the lake has no {model} yet: run a cycle (lakerep run) before pruning")
        table = relation_name("capture_prune")
        before = _latest_prune(spark, table)
        prune_vars = json.dumps(
            {
                "lakerep_prune": True,
                **({} if retention_limit is None else {"retention_limit": retention_limit}),
            }
        )
        dbt.invoke(["run", "--select", "capture_prune", "apply_trace", "--vars", prune_vars], quiet=True)
        pruned_at = _latest_prune(spark, table)
    if pruned_at is None or pruned_at == before:
        return ["nothing pruned: Capture has not reached a synchpoint yet"]
    rows = spark.sql(
        f"select pruned_kind, source_owner, source_table, prune_limit, rows_deleted, cd_old_synchpoint "
        f"from {table} where pruned_at = (select max(pruned_at) from {table}) "
        "order by pruned_kind, source_owner, source_table"
    ).collect()
    what = {"UOW": "UOW rows", "LANDED": "landed log records"}
    lines = [
        what.get(row.pruned_kind, f"CD rows of {row.source_owner}.{row.source_table}")
        + f": {row.rows_deleted:,} rows pruned (limit {row.prune_limit}"
        + (f", CD_OLD_SYNCHPOINT {row.cd_old_synchpoint})" if row.cd_old_synchpoint else ")")
        for row in rows
    ]
    total = sum(row.rows_deleted for row in rows if row.pruned_kind != "LANDED")
    landed = sum(row.rows_deleted for row in rows if row.pruned_kind == "LANDED")
    return [*lines, f"pruned {total:,} CD and UOW rows and {landed:,} landed log records"]


@dataclass(frozen=True)
class DiffReport:
    lines: tuple[str, ...]  # per target a line of counts, then its first differing keys
    counts: dict[str, dict]  # per target: position, snapshot_id, and the keys only_in_source,
    # only_in_target, differing, duplicated (held more than once by the target)

    @property
    def differs(self) -> bool:
        kinds = ("only_in_source", "only_in_target", "differing", "duplicated")
        return any(count[kind] for count in self.counts.values() for kind in kinds)


_DIFF_RESULT = "lakerep_diff_result "


def diff(target_tables: list[str], at: str | None = None, limit: int = 10) -> DiffReport:
    """Compare targets (every member's when none are named) with the consistent snapshot of their
    source at `at` (default: each target's synchpoint). dbt.OperationRejected says why the macro
    refused (a position that is not 20 hex digits, no such snapshot, no synchpoint yet, a target
    or the apply state not built yet)."""
    _check_members(target_tables, [member.target_table for member in load_members()])
    arguments = {"target_tables": list(target_tables), "at": at, "limit": limit}
    home = lake_home()
    refuse_if_lake_open(home)
    with critical_section(home):  # not in the middle of a cycle
        # Unloads landed since the last cycle are judged first (a small query when none did):
        # the diff compares against valid ones only, and staging judges each once.
        dbt.invoke(["run", "--select", "+int_snapshot_rows_judged"], quiet=True)
        messages = dbt.run_operation("lakerep_diff", arguments).messages
    results = [message for message in messages if message.startswith(_DIFF_RESULT)]
    if len(results) != 1:
        raise RuntimeError(f"lakerep_diff logged {len(results)} result lines, expected one")
    lines = tuple(message for message in messages if not message.startswith(_DIFF_RESULT))
    return DiffReport(lines, json.loads(results[0][len(_DIFF_RESULT) :]))


def _check_members(target_tables: Sequence[str], members: list[str]) -> None:
    """ValueError for the first of target_tables that no member (their targets) writes."""
    for target_table in target_tables:
        if target_table not in members:
            listed = ", ".join(members)
            raise ValueError(
                f"no member of subscriptions.yml has the target {target_table} (members: {listed})"
            )


def _latest_prune(spark, table: str):
    if not spark.catalog.tableExists(table):
        return None
    return spark.sql(f"select max(pruned_at) from {table}").collect()[0][0]


def _user_and_host() -> str:
    user = "?"
    with contextlib.suppress(Exception):
        user = getpass.getuser()
    return f"{user}@{socket.gethostname()}"
