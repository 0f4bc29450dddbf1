"""What must hold after a scenario's final clean warm run (SPEC §7), checked against the oracle
(the workload's plain-Python model of the source database), never against the SQL's own output:

- every target equals the oracle at its synchpoint, by `lakerep diff` against a consistent
  snapshot of its source landed at that synchpoint (a CCD target diff cannot compare, by its
  history: the last refresh's snapshot rows, then exactly the oracle's changes after its start);
- no duplicate row in a CD table, the UOW table or a CCD;
- the register, the capture state and pruning control agree with the data: Capture's synchpoint is
  the last commit landed, every committed change after a source's CD_OLD_SYNCHPOINT is in its CD
  table and nothing there is foreign to the source, the UOW table holds committed UOWs at their
  commit positions and every one that changed a source after its CD_OLD_SYNCHPOINT, each
  source's restart tokens lose no change of a landed transaction open at RESTART2, and each
  member's SYNCHPOINT is its set's last applied synchpoint;
- the trace explains every cold start and every refresh.

Each check raises AssertionError naming what differs; check_lake returns a line per check passed.
"""

from __future__ import annotations

from lakerep import apply_commands, landing
from lakerep.lake import lake_session
from lakerep.registrations import load_registrations
from lakerep.scaffold import ccd_model_name, cd_model_name
from lakerep.scenarios.driver import MEMBERS, Journal
from lakerep.summary import relation_name
from lakerep.workload.generator import Workload

REGISTRATIONS = load_registrations()


def check_lake(workload: Workload, journal: Journal) -> list[str]:
    spark = lake_session()
    return [
        check_targets_equal_the_oracle(spark, workload),
        check_no_duplicates(spark),
        check_register(spark, workload),
        check_change_data(spark, workload),
        check_uow(spark, workload),
        check_restart_tokens(spark, workload),
        check_pruning_control(spark),
        check_trace(spark, journal),
    ]


def rows(spark, sql: str) -> list:
    return spark.sql(sql).collect()


def check_targets_equal_the_oracle(spark, workload: Workload) -> str:
    """Land the oracle's consistent snapshot of each source at its members' synchpoint, then diff."""
    synchpoints = {
        row.TARGET_TABLE: row.SYNCHPOINT
        for row in rows(spark, f"select TARGET_TABLE, SYNCHPOINT from {relation_name('pruning_control')}")
    }
    for source, position in sorted({(MEMBERS[t].source, p) for t, p in synchpoints.items()}):
        snapshot = workload.snapshot(source, position, position)
        landing.land_snapshot_rows(spark, snapshot.to_landing_rows())
    report = apply_commands.diff([])
    assert not report.differs, "lakerep diff: targets differ from the oracle:\n" + "\n".join(report.lines)
    histories = sorted(set(MEMBERS) - set(report.counts))  # those lakerep diff cannot compare
    for target_table in histories:
        check_history_target(spark, workload, MEMBERS[target_table], synchpoints[target_table])
    return (
        f"lakerep diff: {len(report.counts)} targets equal the oracle at their synchpoints; "
        f"the histories of {histories} equal the oracle's"
    )


def check_history_target(spark, workload: Workload, member, synchpoint: str) -> None:
    """A CCD target lakerep diff cannot compare: the rows of the snapshot its last refresh loaded,
    as inserts at the unload start, then exactly the oracle's changes committed after the start."""
    refreshes = _applied_plans(
        spark, f"plan.action = 'REFRESH' and plan.target_table = '{member.target_table}'"
    )
    assert refreshes, f"{member.target_table} was never refreshed"
    start, end = refreshes[-1].refresh_start, refreshes[-1].refresh_end
    target = relation_name(member.target_table)
    held = rows(spark, f"select IBMSNAP_COMMITSEQ, IBMSNAP_INTENTSEQ, IBMSNAP_OPERATION from {target}")
    loaded = [row for row in held if row[0] == start and row[1] == start]
    changes = sorted(tuple(row) for row in held if not (row[0] == start and row[1] == start))
    expected = sorted(
        (c.commit_position, c.log_position, c.operation)
        for c in workload.oracle.history(member.source, after=start, up_to=synchpoint)
    )
    snapshot_rows = len(workload.snapshot(member.source, start, end).rows)
    assert len(loaded) == snapshot_rows, (
        f"{member.target_table}: {len(loaded)} rows loaded at {start}, the snapshot has {snapshot_rows}"
    )
    assert changes == expected, (
        f"{member.target_table}: its history after {start} differs from the oracle's: "
        f"{len(set(changes) - set(expected))} changes extra, {len(set(expected) - set(changes))} missing, "
        f"{len(changes) - len(set(changes))} doubled"
    )


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
    tables = {"uow": ["IBMSNAP_UOWID"]}
    for registration in REGISTRATIONS.values():
        tables[cd_model_name(registration)] = ["IBMSNAP_INTENTSEQ", "IBMSNAP_OPERATION"]
        tables[ccd_model_name(registration)] = (
            list(registration.key_columns)
            if registration.ccd_condensed
            else ["IBMSNAP_INTENTSEQ", "IBMSNAP_OPERATION"]
        )
    for model, columns in tables.items():
        keys = ", ".join(f"`{column}`" for column in columns)
        doubled = rows(
            spark,
            f"select {keys}, count(*) as copies from {relation_name(model)} "
            f"group by {keys} having count(*) > 1 limit 3",
        )
        assert not doubled, f"{model} holds duplicate rows: {[row.asDict() for row in doubled]}"
    return f"no duplicate rows in {len(tables)} CD, UOW and CCD tables"


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
    table, and every CD row is a change the source made (committed, open or rolled back)."""
    register = _register(spark)
    synchpoint = register["GLOBAL"].SYNCHPOINT
    oracle = workload.oracle
    written = {}  # per source: (log position, UOW) of every change committed or still open
    for change in [
        change for uow in oracle.committed_uows() for change in uow.changes
    ] + oracle.open_changes():
        written.setdefault(change.table, set()).add((change.log_position, change.uow_id))
    rolled_back = set(oracle.rolled_back_uows())
    for name, registration in REGISTRATIONS.items():
        cd_old = register[name].CD_OLD_SYNCHPOINT
        held = {
            (row[0], row[1])
            for row in rows(
                spark,
                f"select IBMSNAP_INTENTSEQ, IBMSNAP_UOWID from {relation_name(cd_model_name(registration))}",
            )
        }
        needed = {(c.log_position, c.uow_id) for c in oracle.history(name, after=cd_old, up_to=synchpoint)}
        missing = sorted(needed - held)
        assert not missing, (
            f"{name}: {len(missing)} changes committed after CD_OLD_SYNCHPOINT {cd_old} are not in its CD "
            f"table (first {missing[:3]})"
        )
        foreign = sorted(row for row in held - written.get(name, set()) if row[1] not in rolled_back)
        assert not foreign, (
            f"{name}: its CD table holds {len(foreign)} rows the source never wrote ({foreign[:3]})"
        )
    return f"CD tables hold every committed change after CD_OLD_SYNCHPOINT of {len(REGISTRATIONS)} sources"


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


def check_pruning_control(spark) -> str:
    """Every member's SYNCHPOINT is its set's synchpoint in the set's last trail row (APPLIED)."""
    trail = {
        row.set_name: row
        for row in rows(
            spark,
            f"select * from {relation_name('apply_trail')} "
            f"where apply_cycle = (select max(apply_cycle) from {relation_name('apply_trail')})",
        )
    }
    for row in rows(spark, f"select * from {relation_name('pruning_control')}"):
        last = trail.get(row.SET_NAME)
        assert last is not None and last.status == "APPLIED", f"set {row.SET_NAME}'s last trail row: {last}"
        assert last.synchpoint == row.SYNCHPOINT, (
            f"pruning control: {row.TARGET_TABLE} at {row.SYNCHPOINT}, its set's trail at {last.synchpoint}"
        )
    return "pruning control agrees with the Apply trail"


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
    assert len(cold_runs) >= journal.cold_starts, (
        f"the scenario made {journal.cold_starts} cold starts, restart_decisions knows {len(cold_runs)}"
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
