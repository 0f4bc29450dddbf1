"""What must hold after a scenario's final clean warm run (SPEC §7), checked against the oracle
(the workload's plain-Python model of the source database), never against the SQL's own output:

- every target equals the oracle at its synchpoint, by `lakerep diff` against a consistent
  snapshot of its source landed at that synchpoint (a CCD target diff cannot compare, by its
  history: the last refresh's snapshot rows, then exactly the oracle's changes after its start,
  with their values), and a point-in-time target's commit markers are its rows' last changes;
- no duplicate row in a CD table, the UOW table or a CCD (at its grain from SPEC §3);
- the register, the capture state and pruning control agree with the data: Capture's synchpoint is
  the last commit landed and every set applied up to it, every committed change after a source's
  CD_OLD_SYNCHPOINT is in its CD table with the source's values and nothing there is foreign to
  the source, each internal CCD holds only the source's changes and landed snapshot rows with
  their values and none of those after the last cold start is missing (ccd_checks), the UOW
  table holds committed UOWs at their commit positions and every one that changed a source
  after its CD_OLD_SYNCHPOINT, each source's restart tokens lose no change of a
  landed transaction open at RESTART2, and each member's SYNCHPOINT is its set's last applied
  synchpoint;
- there is no cold start the scenario did not ask for (no automatic one, and as many as it
  started), every refresh it asked for was done, and the trace shows each cold start and refresh
  (its rows are views of the same decisions and plans, so that part guards the views, not the
  data).

During the scenario, every prune within RETENTION_LIMIT is checked to leave each member the
changes it still needs (check_prune_keeps_what_members_need).

Each check raises AssertionError naming what differs; check_lake returns a line per check passed.
"""

from __future__ import annotations

from collections import Counter

from lakerep import apply_commands, landing
from lakerep.lake import lake_session
from lakerep.registrations import load_registrations
from lakerep.scaffold import cd_model_name
from lakerep.scenarios.ccd_checks import (
    ccd_rows_of_changes,
    ccd_rows_of_snapshot,
    check_consistent_change_data,
)
from lakerep.scenarios.cd_rows import before_image_columns, cd_rows_of
from lakerep.scenarios.driver import MEMBERS, Journal
from lakerep.summary import relation_name
from lakerep.workload.generator import Workload
from lakerep.workload.values import format_position

REGISTRATIONS = load_registrations()
LOWEST_POSITION = format_position(0)  # a CD_OLD_SYNCHPOINT not set yet: nothing pruned


def check_lake(workload: Workload, journal: Journal) -> list[str]:
    spark = lake_session()
    return [
        check_targets_equal_the_oracle(spark, workload),
        check_no_duplicates(spark),
        check_register(spark, workload),
        check_change_data(spark, workload),
        check_ccd(spark, workload, journal),
        check_uow(spark, workload),
        check_restart_tokens(spark, workload),
        check_pruning_control(spark),
        check_trace(spark, journal),
        check_refreshes_asked_were_done(spark, journal),
    ]


def rows(spark, sql: str) -> list:
    return spark.sql(sql).collect()


def check_targets_equal_the_oracle(spark, workload: Workload) -> str:
    """Land the oracle's consistent snapshot of each source at its members' synchpoint, then diff."""
    synchpoints = {
        row.TARGET_TABLE: row.SYNCHPOINT
        for row in rows(spark, f"select TARGET_TABLE, SYNCHPOINT from {relation_name('pruning_control')}")
    }
    landed_ids = f"select distinct snapshot_id from {landing.SOURCE_SNAPSHOT_TABLE}"
    landed = {row[0] for row in rows(spark, landed_ids)}
    for source, position in sorted({(MEMBERS[t].source, p) for t, p in synchpoints.items()}):
        snapshot = workload.snapshot(source, position, position)
        if snapshot.snapshot_id not in landed:  # landed already when the checks run again
            landing.land_snapshot_rows(spark, snapshot.to_landing_rows())
    report = apply_commands.diff([])
    assert not report.differs, "lakerep diff: targets differ from the oracle:\n" + "\n".join(report.lines)
    histories = sorted(set(MEMBERS) - set(report.counts))  # those lakerep diff cannot compare
    for target_table in histories:
        check_history_target(spark, workload, MEMBERS[target_table], synchpoints[target_table])
    point_in_time = sorted(t for t, m in MEMBERS.items() if m.target_structure == "point_in_time")
    for target_table in point_in_time:
        check_point_in_time_markers(spark, workload, MEMBERS[target_table], synchpoints[target_table])
    return (
        f"lakerep diff: {len(report.counts)} targets equal the oracle at their synchpoints; "
        f"the histories of {histories} equal the oracle's; the commit markers of {point_in_time} "
        "are the oracle's"
    )


def check_point_in_time_markers(spark, workload: Workload, member, synchpoint: str) -> None:
    """lakerep diff compares a point-in-time target's user columns; its IBMSNAP_COMMITSEQ and
    IBMSNAP_LOGMARKER are each row's last change after its last refresh started (its commit
    position and time), or, for a row no change touched since, the unload start."""
    start = _last_refresh(spark, member.target_table).refresh_start
    keys = list(member.registration.key_columns)
    last_change = {}
    for change in workload.oracle.history(member.source, after=start, up_to=synchpoint):
        last_change[change.key] = (change.commit_position, change.commit_timestamp)
    selected = ", ".join(f"`{key}`" for key in keys)
    wrong = []
    target = relation_name(member.target_table)
    for row in rows(spark, f"select {selected}, IBMSNAP_COMMITSEQ, IBMSNAP_LOGMARKER from {target}"):
        key, markers = tuple(row[: len(keys)]), tuple(row[len(keys) :])
        expected = last_change.get(key)
        if (markers != expected) if expected is not None else (markers[0] != start):
            wrong.append((key, markers, expected or (start, "the unload's landing time")))
    assert not wrong, (
        f"{member.target_table}: {len(wrong)} rows have other commit markers than their last change "
        f"after the refresh at {start} (first: key {wrong[0][0]} holds {wrong[0][1]}, expected {wrong[0][2]})"
    )


def check_history_target(spark, workload: Workload, member, synchpoint: str) -> None:
    """A CCD target lakerep diff cannot compare: the rows of the snapshot its last refresh loaded,
    as inserts at the unload start, then exactly the oracle's changes committed after the start,
    each with the row it left (for a delete, the row deleted) and its commit time."""
    refresh = _last_refresh(spark, member.target_table)
    start, end = refresh.refresh_start, refresh.refresh_end
    registration = workload.registrations[member.source]
    columns = list(registration.column_names)
    selected = ", ".join(f"`{column}`" for column in columns)
    held = rows(
        spark,
        "select IBMSNAP_COMMITSEQ, IBMSNAP_INTENTSEQ, IBMSNAP_OPERATION, IBMSNAP_LOGMARKER, "
        f"{selected} from {relation_name(member.target_table)}",
    )
    at_start = [row for row in held if row[0] == start and row[1] == start]
    loaded = Counter(tuple(row[4:]) for row in at_start)
    changes = Counter(tuple(row) for row in held if not (row[0] == start and row[1] == start))
    snapshot = Counter(
        row[4:] for row in ccd_rows_of_snapshot(workload.snapshot(member.source, start, end), registration)
    )
    expected = Counter(
        ccd_rows_of_changes(
            workload.oracle.history(member.source, after=start, up_to=synchpoint), registration
        )
    )
    assert loaded == snapshot, (
        f"{member.target_table}: the {loaded.total()} rows loaded at {start} are not the "
        f"{snapshot.total()} rows of the snapshot: {(loaded - snapshot).total()} not in it, "
        f"{(snapshot - loaded).total()} missing (first {_first(loaded - snapshot, snapshot - loaded)})"
    )
    assert changes == expected, (
        f"{member.target_table}: its history after {start} differs from the oracle's: "
        f"{(changes - expected).total()} changes extra, doubled or with other values, "
        f"{(expected - changes).total()} missing (first {_first(changes - expected, expected - changes)})"
    )


def _first(extra: Counter, missing: Counter) -> str:
    return f"extra {list(extra)[:1]}, missing {list(missing)[:1]}"


def _last_refresh(spark, target_table: str):
    """The apply_plan row of the target's last full refresh that its set applied."""
    refreshes = _applied_plans(spark, f"plan.action = 'REFRESH' and plan.target_table = '{target_table}'")
    assert refreshes, f"{target_table} was never refreshed"
    return refreshes[-1]


def _applied_plans(spark, where: str) -> list:
    """apply_plan rows of cycles their set applied (with an APPLIED trail row) matching `where`."""
    return rows(
        spark,
        f"select plan.* from {relation_name('apply_plan')} as plan "
        f"inner join {relation_name('apply_trail')} as trail on plan.apply_cycle = trail.apply_cycle "
        "and plan.apply_qual = trail.apply_qual and plan.set_name = trail.set_name "
        f"where trail.status = 'APPLIED' and ({where}) order by plan.apply_cycle",
    )


def check_no_duplicates(spark) -> str:
    """No UOW twice in the UOW table, no CD row twice: a CD row is one log record (INTENTSEQ) and
    one operation (a key update registered as a delete/insert pair writes two). The CCDs'
    grain is checked with their rows (ccd_checks)."""
    tables = {"uow": ["IBMSNAP_UOWID"]}
    for registration in REGISTRATIONS.values():
        tables[cd_model_name(registration)] = ["IBMSNAP_INTENTSEQ", "IBMSNAP_OPERATION"]
    for model, columns in tables.items():
        keys = ", ".join(f"`{column}`" for column in columns)
        doubled = rows(
            spark,
            f"select {keys}, count(*) as copies from {relation_name(model)} "
            f"group by {keys} having count(*) > 1 limit 3",
        )
        assert not doubled, f"{model} holds duplicate rows: {[row.asDict() for row in doubled]}"
    return f"no duplicate rows in {len(tables)} CD and UOW tables"


def _register(spark) -> dict:
    return {
        ("GLOBAL" if row.GLOBAL_RECORD == "Y" else f"{row.SOURCE_OWNER}.{row.SOURCE_TABLE}"): row
        for row in rows(spark, f"select * from {relation_name('register')}")
    }


def check_register(spark, workload: Workload) -> str:
    last_commit = workload.oracle.commit_positions()[-1]
    synchpoint = _register(spark)["GLOBAL"].SYNCHPOINT
    assert synchpoint == last_commit, (
        f"register SYNCHPOINT {synchpoint}, but the last commit landed is {last_commit}"
    )
    return f"register SYNCHPOINT {synchpoint} is the last commit landed"


def check_change_data(spark, workload: Workload) -> str:
    """Every committed change after CD_OLD_SYNCHPOINT (up to the synchpoint) is in the source's CD
    table, every CD row is a change the source made (committed, open or rolled back), and each
    row of a committed or open change holds the oracle's values: its operation, the row after it
    (for a delete, the row deleted) and the row before it in the before-image columns."""
    register = _register(spark)
    synchpoint = register["GLOBAL"].SYNCHPOINT
    oracle = workload.oracle
    rolled_back = set(oracle.rolled_back_uows())
    changes = [change for uow in oracle.committed_uows() for change in uow.changes] + oracle.open_changes()
    checked = 0
    for name, registration in REGISTRATIONS.items():
        written = {  # (INTENTSEQ, UOWID, OPERATION) -> the rest of the CD row
            (change.log_position, change.uow_id, operation): values
            for change in changes
            if change.table == name
            for operation, values in cd_rows_of(change, registration)
        }
        columns = [*registration.column_names, *before_image_columns(registration)]
        selected = ", ".join(f"`{column}`" for column in columns)
        held = {
            (row[0], row[1], row[2]): tuple(row[3:])
            for row in rows(
                spark,
                "select IBMSNAP_INTENTSEQ, IBMSNAP_UOWID, IBMSNAP_OPERATION, "
                f"{selected} from {relation_name(cd_model_name(registration))}",
            )
        }
        cd_old = register[name].CD_OLD_SYNCHPOINT
        needed = {
            (change.log_position, change.uow_id, operation)
            for change in oracle.history(name, after=cd_old, up_to=synchpoint)
            for operation, _ in cd_rows_of(change, registration)
        }
        missing = sorted(needed - held.keys())
        assert not missing, (
            f"{name}: {len(missing)} changes committed after CD_OLD_SYNCHPOINT {cd_old} are not in its CD "
            f"table (first {missing[:3]})"
        )
        foreign = sorted(row for row in held.keys() - written.keys() if row[1] not in rolled_back)
        assert not foreign, (
            f"{name}: its CD table holds {len(foreign)} rows the source never wrote ({foreign[:3]})"
        )
        wrong = sorted(key for key, values in held.items() if key in written and written[key] != values)
        assert not wrong, (
            f"{name}: {len(wrong)} CD rows hold other values than the source's change (first {wrong[0]}: "
            f"{dict(zip(columns, held[wrong[0]], strict=True))}, the source's "
            f"{dict(zip(columns, written[wrong[0]], strict=True))})"
        )
        checked += len(held.keys() & written.keys())
    return (
        f"CD tables hold every committed change after CD_OLD_SYNCHPOINT of {len(REGISTRATIONS)} sources; "
        f"{checked} rows hold the source's values"
    )


def check_ccd(spark, workload: Workload, journal: Journal) -> str:
    register = _register(spark)
    return check_consistent_change_data(
        spark,
        workload,
        register["GLOBAL"].SYNCHPOINT,
        changes_read_after(journal, register),
        journal.snapshots,
    )


def changes_read_after(journal: Journal, register: dict) -> dict[str, str | None]:
    """Per source, the position after which Capture read every committed change (None: from the
    first): the last commit landed when the last cold run started, since a cold start at the end
    of the log skips what was not read before it. With a cold position unknown (an older
    journal's): CD_OLD_SYNCHPOINT, which a cold start raises past what it skipped."""
    if None in journal.cold_positions:
        return {name: register[name].CD_OLD_SYNCHPOINT for name in REGISTRATIONS}
    return dict.fromkeys(REGISTRATIONS, max(journal.cold_positions, default=None))


def check_uow(spark, workload: Workload) -> str:
    """The UOW table holds only UOWs committed with changes to registered tables, each at its commit
    position, and every UOW that changed a source after its CD_OLD_SYNCHPOINT (those CD rows need it)."""
    committed = {uow.uow_id: uow.commit_position for uow in workload.oracle.committed_uows() if uow.changes}
    held = {
        row[0]: row[1]
        for row in rows(spark, f"select IBMSNAP_UOWID, IBMSNAP_COMMITSEQ from {relation_name('uow')}")
    }
    wrong = {uow: seq for uow, seq in held.items() if committed.get(uow) != seq}
    assert not wrong, (
        f"the UOW table holds {len(wrong)} UOWs not committed there in the source: {list(wrong.items())[:3]}"
    )
    register = _register(spark)
    cd_old = {name: register[name].CD_OLD_SYNCHPOINT for name in REGISTRATIONS}
    missing = uows_missing(workload.oracle.committed_uows(), set(held), cd_old, register["GLOBAL"].SYNCHPOINT)
    assert not missing, (
        f"the UOW table lacks {len(missing)} UOWs that changed a source after its CD_OLD_SYNCHPOINT "
        f"({missing[:3]})"
    )
    return f"UOW table: {len(held)} committed UOWs, none missing after a source's CD_OLD_SYNCHPOINT"


def uows_missing(committed_uows, held: set[str], cd_old: dict[str, str | None], synchpoint: str) -> list[str]:
    """UOWs not in `held` that committed up to `synchpoint` with a change to a source after that
    source's CD_OLD_SYNCHPOINT (None: nothing pruned yet). Prune and cold start raise
    CD_OLD_SYNCHPOINT at least as far as the UOW rows they delete, so every one of these must stay."""
    return sorted(
        uow.uow_id
        for uow in committed_uows
        if uow.uow_id not in held
        and uow.commit_position <= synchpoint
        and any(
            cd_old.get(change.table) is None or uow.commit_position > cd_old[change.table]
            for change in uow.changes
        )
    )


def check_restart_tokens(spark, workload: Workload) -> str:
    """Restarting each source from its state's tokens loses nothing: every transaction still open at
    RESTART2 (committed after it, or not yet) whose records have landed made its changes to the
    source at or after RESTART1."""
    oracle = workload.oracle
    # Landed in log order, the records of open transactions are in the lake; in commit order they
    # land whole when the transaction ends, in a later batch, which Capture reads whatever its tokens.
    landed_open_changes = oracle.open_changes() if workload.config.landing_order == "log" else []
    state = {
        f"{row.source_owner}.{row.source_table}": row
        for row in rows(
            spark, f"select * from {relation_name('capture_state')} where session_name = 'scenario'"
        )
    }
    assert set(state) == set(REGISTRATIONS), f"capture_state has sources {sorted(state)}"
    for name, tokens in state.items():
        open_at_restart = [
            change
            for uow in oracle.committed_uows()
            if uow.commit_position > tokens.restart2
            for change in uow.changes
            if change.table == name
        ] + [change for change in landed_open_changes if change.table == name]
        lost = sorted(c.log_position for c in open_at_restart if c.log_position < tokens.restart1)
        assert not lost, (
            f"{name}: restarting from RESTART1 {tokens.restart1} RESTART2 {tokens.restart2} would lose "
            f"{len(lost)} changes of transactions open at RESTART2 ({lost[:3]})"
        )
    return f"restart tokens of {len(state)} sources lose no change of a transaction open at their RESTART2"


def check_pruning_control(spark, sets: set[str] | None = None) -> str:
    """Every set's (of `sets`, default all) last trail row is APPLIED at Capture's SYNCHPOINT (Apply
    caught up after the final clean run), and every member's SYNCHPOINT is its set's."""
    synchpoint = _register(spark)["GLOBAL"].SYNCHPOINT
    trail = {
        row.set_name: row
        for row in rows(
            spark,
            f"select * from {relation_name('apply_trail')} "
            f"where apply_cycle = (select max(apply_cycle) from {relation_name('apply_trail')})",
        )
    }
    for row in rows(spark, f"select * from {relation_name('pruning_control')}"):
        if sets is not None and row.SET_NAME not in sets:
            continue
        last = trail.get(row.SET_NAME)
        assert last is not None and last.status == "APPLIED", f"set {row.SET_NAME}'s last trail row: {last}"
        assert last.synchpoint == synchpoint, (
            f"set {row.SET_NAME} applied up to {last.synchpoint}, Capture's SYNCHPOINT is {synchpoint}"
        )
        assert last.synchpoint == row.SYNCHPOINT, (
            f"pruning control: {row.TARGET_TABLE} at {row.SYNCHPOINT}, its set's trail at {last.synchpoint}"
        )
    named = "every set" if sets is None else f"sets {', '.join(sorted(sets))}"
    return f"{named} applied up to Capture's SYNCHPOINT {synchpoint}; pruning control agrees"


def prune_bounds(spark) -> dict[str, str]:
    """Before a prune within RETENTION_LIMIT: the highest CD_OLD_SYNCHPOINT each source may have
    after it (SPEC §6): its CD_OLD_SYNCHPOINT now, or the lowest SYNCHPOINT of the members that
    read it (Capture's SYNCHPOINT when none does), whichever is higher."""
    register = _register(spark)
    synchpoint = register["GLOBAL"].SYNCHPOINT or LOWEST_POSITION
    lowest = {
        f"{row.SOURCE_OWNER}.{row.SOURCE_TABLE}": row.low
        for row in rows(
            spark,
            "select SOURCE_OWNER, SOURCE_TABLE, min(SYNCHPOINT) as low "
            f"from {relation_name('pruning_control')} group by SOURCE_OWNER, SOURCE_TABLE",
        )
    }
    return {
        name: max(
            register[name].CD_OLD_SYNCHPOINT or LOWEST_POSITION, min(lowest.get(name, synchpoint), synchpoint)
        )
        for name in REGISTRATIONS
    }


def check_prune_keeps_what_members_need(spark, bounds: dict[str, str]) -> None:
    """After a prune within RETENTION_LIMIT (crashed or not): no source's CD_OLD_SYNCHPOINT passed
    a member still reading it, so no member is left in a gap (the checks of the end state would not
    see one: the scenario refreshes a set in a gap as a user would)."""
    register = _register(spark)
    passed = {
        name: (register[name].CD_OLD_SYNCHPOINT, bound)
        for name, bound in bounds.items()
        if (register[name].CD_OLD_SYNCHPOINT or LOWEST_POSITION) > bound
    }
    assert not passed, f"a prune within RETENTION_LIMIT raised CD_OLD_SYNCHPOINT past the members: {passed}"


def check_trace(spark, journal: Journal) -> str:
    """A COLD trace row for every run whose restart decision was a cold start, and a REFRESH row for
    every refresh an APPLIED cycle did."""
    cold_runs = {
        row[0]
        for row in rows(
            spark, f"select distinct run_id from {relation_name('restart_decisions')} where cold_start"
        )
    }
    traced_cold = {
        row[0] for row in rows(spark, f"select RUN_ID from {relation_name('trace')} where OPERATION = 'COLD'")
    }
    unexplained = cold_runs - traced_cold
    assert not unexplained, (
        f"{len(unexplained)} cold starts have no COLD trace row (runs {sorted(unexplained)[:2]})"
    )
    # The scenario never prunes the source log, so no warm run may switch to a cold start; a cold
    # run that crashed may have decided its start or not.
    automatic = rows(
        spark,
        f"select distinct run_id from {relation_name('restart_decisions')} "
        "where restart_rule = 'automatic cold start'",
    )
    assert not automatic, f"warm runs switched to a cold start: {[row[0] for row in automatic][:3]}"
    assert journal.cold_starts <= len(cold_runs) <= journal.cold_runs, (
        f"the scenario started {journal.cold_runs} cold runs ({journal.cold_starts} finished), "
        f"restart_decisions has {len(cold_runs)}"
    )
    refreshes = [
        (plan.apply_cycle, plan.target_table)
        for plan in _applied_plans(spark, "plan.action in ('REFRESH', 'EXTERNAL_REFRESH')")
    ]
    traced = {
        (row.CYCLE, row.DESCRIPTION)
        for row in rows(
            spark, f"select CYCLE, DESCRIPTION from {relation_name('trace')} where OPERATION = 'REFRESH'"
        )
    }
    for cycle, target in refreshes:
        assert any(c == cycle and f"refreshed {target}:" in d for c, d in traced), (
            f"the refresh of {target} in Apply cycle {cycle} has no REFRESH trace row"
        )
    return f"trace explains {len(cold_runs)} cold starts and {len(refreshes)} refreshes"


def check_refreshes_asked_were_done(spark, journal: Journal) -> str:
    """Every refresh the scenario asked for (`lakerep refresh`, `lakerep mark-external-refresh`)
    was done by an Apply cycle after it: a lost mark would pass the other checks when the target
    is in step anyway."""
    done = {
        (plan.target_table, plan.action, plan.apply_cycle)
        for plan in _applied_plans(spark, "plan.action in ('REFRESH', 'EXTERNAL_REFRESH')")
    }
    lost = [
        (target, action, after)
        for target, action, after in journal.refreshes_asked
        if not any(t == target and a == action and cycle > after for t, a, cycle in done)
    ]
    assert not lost, (
        f"{len(lost)} refreshes asked for were never done (target, action, asked after Apply cycle): "
        f"{lost[:3]}"
    )
    return f"{len(journal.refreshes_asked)} refreshes asked for were each done by a later Apply cycle"
