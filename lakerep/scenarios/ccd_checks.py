"""The internal CCD tables against the oracle (SPEC §3): each holds CD ⋈ UOW, the committed
changes of its source with their commit position and time, and, registered complete, the rows of
every source snapshot landed (inserts at the unload start). Condensed, a key holds its latest one.

The CCDs are neither pruned nor emptied by a cold start, so a CCD holds every change Capture
read; a cold start at the end of the log skips what was not read before it. What the oracle
requires, then: every change committed after the last cold start's position (all of them
without a cold start) and every snapshot the scenario landed. What it allows: any change the
source committed, with its values, and those snapshot rows.

The rows compared are tuples (IBMSNAP_COMMITSEQ, IBMSNAP_INTENTSEQ, IBMSNAP_OPERATION,
IBMSNAP_LOGMARKER, user columns...). A snapshot row's LOGMARKER is the time its unload landed,
which the oracle does not know: the check compares it with the landing table and puts
SNAPSHOT_LANDED in its place.

No row may be held twice at the CCD's grain, which the check takes from SPEC §3 and the
registration declaration (ccd_rows_held_twice), not from the model's merge key: a wrong key
there must not hide its own duplicates.
"""

from __future__ import annotations

from collections.abc import Iterable

from lakerep import landing
from lakerep.registrations import Registration
from lakerep.scaffold import ccd_model_name
from lakerep.scenarios.cd_rows import cd_rows_of
from lakerep.summary import relation_name
from lakerep.workload.generator import Workload

SNAPSHOT_LANDED = "the time the snapshot landed"


def ccd_rows_of_changes(changes: Iterable, registration: Registration) -> list[tuple]:
    """The CCD rows of committed changes: their CD rows (a key update registered as a
    delete/insert pair is two), at the change's commit position and time."""
    width = len(registration.column_names)
    return [
        (change.commit_position, change.log_position, operation, change.commit_timestamp, *values[:width])
        for change in changes
        for operation, values in cd_rows_of(change, registration)
    ]


def ccd_rows_of_snapshot(snapshot, registration: Registration) -> list[tuple]:
    """The CCD rows of a landed snapshot: an insert of each row read, at the unload start."""
    start = snapshot.unload_start_position
    return [
        (start, start, "I", SNAPSHOT_LANDED, *(row[column] for column in registration.column_names))
        for row in snapshot.rows
    ]


def ccd_differences(
    registration: Registration,
    held: list[tuple],
    changes: list[tuple],
    snapshots: list[tuple],
    required_after: str | None,
) -> tuple[list[tuple], list[tuple]]:
    """(rows held that the source never had, rows required and not held). `changes` are the CCD
    rows of every committed change up to Capture's SYNCHPOINT, `snapshots` those of every snapshot
    landed; a change committed after `required_after` (None: every change) must have been read.
    Condensed, a key must hold its latest row by (COMMITSEQ, INTENTSEQ, OPERATION) when that row
    is required; any other row it holds must still be one the source had."""
    allowed = set(changes) | set(snapshots)
    extra = [row for row in held if row not in allowed]
    required = [row for row in changes if required_after is None or row[0] > required_after] + snapshots
    if not registration.ccd_condensed:
        held_rows = set(held)
        return extra, [row for row in dict.fromkeys(required) if row not in held_rows]
    key_of = _key_of(registration)
    latest: dict[tuple, tuple] = {}
    for row in [*changes, *snapshots]:
        key = key_of(row)
        if key not in latest or _order(row) > _order(latest[key]):
            latest[key] = row
    required_rows = set(required)
    held_by_key = {key_of(row): row for row in held}
    missing = [row for key, row in latest.items() if row in required_rows and held_by_key.get(key) != row]
    return extra, missing


def ccd_rows_held_twice(registration: Registration, held: list[tuple]) -> list[tuple]:
    """The rows of a CCD that another row holds at the same grain (SPEC §3): condensed, a key
    holds one row, its latest change; not condensed, a change is one row per operation it wrote
    (its log position, INTENTSEQ, and OPERATION: a key update registered as a delete/insert pair
    writes two), and a snapshot row (complete: all sit at their unload start) one per key."""
    key_of = _key_of(registration)

    def grain_of(row: tuple) -> tuple:
        if registration.ccd_condensed:
            return key_of(row)
        if row[3] == SNAPSHOT_LANDED:
            return ("snapshot row", row[1], *key_of(row))
        return ("change", row[1], row[2])

    seen: set[tuple] = set()
    doubled = []
    for row in held:
        grain = grain_of(row)
        if grain in seen:
            doubled.append(row)
        seen.add(grain)
    return doubled


def _order(row: tuple) -> tuple:
    return row[0], row[1], row[2]


def _key_of(registration: Registration):
    indexes = [4 + registration.column_names.index(key) for key in registration.key_columns]
    return lambda row: tuple(row[index] for index in indexes)


def check_consistent_change_data(
    spark,
    workload: Workload,
    synchpoint: str,
    required_after: dict[str, str | None],
    snapshots_landed: Iterable[tuple[str, str, str]],
) -> str:
    """Each internal CCD against the oracle, up to Capture's `synchpoint`: `required_after` is,
    per source, the position after which every committed change must have been read (None:
    from the first), `snapshots_landed` the unloads (source, start, end) the scenario landed."""
    compared = 0
    landing_times = _snapshot_landing_times(spark)
    for name, registration in workload.registrations.items():
        model = ccd_model_name(registration)
        columns = ", ".join(f"`{column}`" for column in registration.column_names)
        held = _held_rows(
            spark,
            "select IBMSNAP_COMMITSEQ, IBMSNAP_INTENTSEQ, IBMSNAP_OPERATION, IBMSNAP_LOGMARKER, "
            f"{columns} from {relation_name(model)}",
            landing_times.get(name, {}),
        )
        changes = ccd_rows_of_changes(workload.oracle.history(name, up_to=synchpoint), registration)
        snapshot_rows = [
            row
            for source, start, end in dict.fromkeys(snapshots_landed)
            if source == name and registration.ccd_complete
            for row in ccd_rows_of_snapshot(workload.snapshot(source, start, end), registration)
        ]
        doubled = ccd_rows_held_twice(registration, held)
        assert not doubled, f"{model}: {len(doubled)} rows held twice at its grain (first {doubled[0]})"
        extra, missing = ccd_differences(registration, held, changes, snapshot_rows, required_after[name])
        assert not extra, (
            f"{model}: {len(extra)} rows the source never had, or with other values (first {extra[0]})"
        )
        read = f"committed after {required_after[name]}" if required_after[name] else "committed"
        assert not missing, (
            f"{model}: {len(missing)} rows of changes {read} or of snapshots landed are missing, or not "
            f"the latest of their key (first {missing[0]})"
        )
        compared += len(held)
    return f"CCD tables: {compared} rows are the source's changes and snapshot rows, none missing or twice"


def _snapshot_landing_times(spark) -> dict[str, dict[str, set]]:
    """Per source ("OWNER.TABLE"), unload start -> the times its snapshots landed (landing table)."""
    landed: dict[str, dict[str, set]] = {}
    for owner, table, start, landed_at in spark.sql(
        "select distinct source_owner, source_table, unload_start_position, landed_at "
        f"from {landing.SOURCE_SNAPSHOT_TABLE}"
    ).collect():
        landed.setdefault(f"{owner}.{table}", {}).setdefault(start, set()).add(landed_at)
    return landed


def _held_rows(spark, sql: str, landing_times: dict[str, set]) -> list[tuple]:
    """The CCD's rows; a snapshot row (an insert at COMMITSEQ = INTENTSEQ: a change's own log
    position is below its commit) with a LOGMARKER its snapshot landed at gets SNAPSHOT_LANDED."""
    held = []
    for row in spark.sql(sql).collect():
        values = tuple(row)
        commitseq, intentseq, operation, logmarker = values[:4]
        if commitseq == intentseq and operation == "I" and logmarker in landing_times.get(commitseq, ()):
            values = (commitseq, intentseq, operation, SNAPSHOT_LANDED, *values[4:])
        held.append(values)
    return held
