"""`lakerep status`: the operator's one look at the lake, as `asnccmd status` or GoldenGate's
`info all` give it (SPEC §4, §5).

- Per session: whether a runner holds it (its lock: pid, host, since) and its last cycle (from
  the cycle file the runner writes after every cycle, so it is read without the lake); for the
  embedded lake, when its data tests last passed (lakerep.data_test_schedule).
- Per source of each session: its restart tokens (capture_state), the rule of the run's restart
  decision that chose the tokens it started from (restart_decisions), and the register's
  CD_OLD_SYNCHPOINT and CD_NEW_SYNCHPOINT.
- Per subscription set: the view subscription_set_status (status, synchpoint, pending refreshes
  and markers, exceptions).
- The PostgreSQL source's slot as the lake records it: the position confirmed, and a cold start
  owed (a new slot taken, its cold start not run yet).
- Per Debezium transaction not whole yet (its END, or events the END counts, not landed): what
  it waits for; its records stay out of the log until it is whole.
- Each change of a registered table's columns the schema history holds (ADR 0012); a table an
  unsafe change stopped needs an operator (docs/schema-evolution.md).

The embedded Derby metastore admits one process: while a runner of this lake is alive, its
sources and sets cannot be read by another process, and status says so instead of waiting. On a
cluster they are read while runners run. A
set STOPPED or in a GAP needs an operator: `lakerep status` then exits non-zero (cli).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path

from lakerep import data_test_schedule
from lakerep.locks import locks_in_lake, session_locks
from lakerep.sources.pgoutput import format_lsn
from lakerep.status_files import replace_in_one_step

SETS_NEEDING_ATTENTION = ("STOPPED", "GAP")


def cycle_file(home: Path, session: str) -> Path:
    return home / "status" / f"{session}.json"


def write_cycle_file(home: Path, session: str, report) -> None:
    """The runner's record of its session's last cycle (a CycleReport), replaced in one step
    (written aside, then renamed) so a reader never sees half of it."""
    record = {
        **asdict(report),
        "written_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "pid": os.getpid(),
    }
    replace_in_one_step(cycle_file(home, session), json.dumps(record, default=str))


def _utc(seconds: float | None) -> str | None:
    if seconds is None or not 0 <= seconds < 1e11:
        return None
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _read_cycle_file(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        return {"unreadable": f"{path}: {error}"}


def sessions(home: Path) -> list[dict]:
    """Each session with a lock or a cycle file: running or not, and its last cycle."""
    locks = session_locks(home)
    names = set(locks)
    folder = home / "status"
    if folder.is_dir():
        names |= {path.stem for path in folder.glob("*.json")}
    found = []
    for name in sorted(names):
        holder, alive = locks.get(name, (None, False))
        found.append(
            {
                "session": name,
                "running": alive,
                "runner": holder if alive else None,
                "stale_lock": holder if holder is not None and not alive else None,
                "last_cycle": _read_cycle_file(cycle_file(home, name)),
            }
        )
    return found


def lake_status(spark, relation_name) -> dict:
    """Sources and sets as the lake holds them (empty lists before the models exist)."""

    def rows(model: str, sql: str) -> list[dict]:
        table = relation_name(model)
        if not spark.catalog.tableExists(table):
            return []
        return [row.asDict(recursive=True) for row in spark.sql(sql.format(table=table)).collect()]

    decisions = {
        (row["session_name"], row["source_owner"], row["source_table"]): row
        for row in rows(
            "restart_decisions",
            "select session_name, source_owner, source_table, "
            "max_by(struct(restart_rule, start_type, run_id, decided_at), decided_at) as decision "
            "from {table} where refusal is null group by session_name, source_owner, source_table",
        )
    }
    register = {
        (row["SOURCE_OWNER"], row["SOURCE_TABLE"]): row
        for row in rows(
            "register",
            "select SOURCE_OWNER, SOURCE_TABLE, CD_OLD_SYNCHPOINT, CD_NEW_SYNCHPOINT "
            "from {table} where GLOBAL_RECORD = 'N'",
        )
    }
    sources = []
    for state in rows(
        "capture_state",
        "select session_name, source_owner, source_table, restart1, restart2, cycle_number from {table} "
        "order by session_name, source_owner, source_table",
    ):
        key = (state["source_owner"], state["source_table"])
        decision = decisions.get((state["session_name"], *key), {}).get("decision") or {}
        registered = register.get(key, {})
        sources.append(
            {
                **state,
                "restart_rule": decision.get("restart_rule"),
                "start_type": decision.get("start_type"),
                "decided_at": decision.get("decided_at"),
                "cd_old_synchpoint": registered.get("CD_OLD_SYNCHPOINT"),
                "cd_new_synchpoint": registered.get("CD_NEW_SYNCHPOINT"),
            }
        )
    sets = rows("subscription_set_status", "select * from {table} order by apply_qual, set_name")
    # Debezium transactions not whole yet: their records stay out of the log until they are.
    waiting = rows(
        "stg_lakerep_raw__debezium_log",
        "select auth_token as transaction_id, bool_or(record_type = 'C') as end_landed, "
        "max(events_expected) as events_expected, max(events_landed) as events_landed, "
        "count_if(record_type != 'C') as changes_landed, min(landing_batch) as first_batch "
        "from {table} where awaiting_commit group by auth_token order by first_batch, transaction_id",
    )
    from lakerep.sources.slot_record import read_slot_record

    record = read_slot_record(spark)
    slot = None if record is None else asdict(record)
    return {
        "sources": sources,
        "sets": sets,
        "waiting_transactions": waiting,
        "slot": slot,
        "schema_changes": _schema_changes(spark),
    }


def _schema_changes(spark) -> list[dict]:
    """The schema history's rows, in log order (none before the first change)."""
    from lakerep.sources.schema_history import read_history

    rows = sorted(read_history(spark), key=lambda row: (row.log_position, row.change.column_name or ""))
    return [
        {
            "source_owner": row.source_owner,
            "source_table": row.source_table,
            "log_position": row.log_position,
            "change_kind": row.change.kind,
            "column_name": row.change.column_name,
            "type_after": row.change.type_after,
            "column_default": row.change.column_default,
            "detail": row.change.detail,
        }
        for row in rows
    ]


def status(home: Path) -> dict:
    """Everything `lakerep status` shows. The embedded lake is read only when no runner holds it
    (its metastore admits one process), otherwise `lake` says which runner has it; a cluster's
    lake is read whoever runs (its server serves every client)."""
    found = sessions(home)
    running = [entry for entry in found if entry["running"]]
    result: dict = {
        "sessions": found,
        "sources": None,
        "sets": None,
        "lake": None,
        "data_tests_passed_at": _utc(data_test_schedule.passed_at(home)),
    }
    if running and not locks_in_lake():
        runner = running[0]["runner"]
        result["lake"] = (
            f"open in the runner of session {running[0]['session']} (pid {runner['pid']}, host "
            f"{runner['host']}): the embedded metastore admits one process, so sources and sets are "
            "read once it stops"
        )
    else:
        from lakerep.lake import lake_session
        from lakerep.summary import relation_name

        result.update(lake_status(lake_session(), relation_name))
    result["attention"] = [
        f"set {entry['apply_qual']}.{entry['set_name']} is {entry['status']}"
        + (f": {entry['description']}" if entry.get("description") else "")
        for entry in result["sets"] or []
        if entry.get("status") in SETS_NEEDING_ATTENTION
    ] + [
        f"{change['source_owner']}.{change['source_table']} stopped at {change['log_position']} by a "
        f"change of its columns: {change['detail']}"
        for change in result.get("schema_changes") or []
        if change["change_kind"] == "unsafe"
    ]
    return result


def lines(result: dict) -> list[str]:
    """The human form of status(): a line per session, source and set."""
    out = []
    for entry in result["sessions"] or [{"session": None}]:
        if entry["session"] is None:
            out.append("sessions: none has run in this lake")
            break
        state = (
            "running (pid {pid}, host {host}, since {since})".format(**entry["runner"])
            if entry["running"]
            else "stopped"
            + (" (a dead runner's lock is left; the next run takes it over)" if entry["stale_lock"] else "")
        )
        cycle = entry["last_cycle"]
        if cycle is None:
            last = "no cycle recorded"
        elif "unreadable" in cycle:
            last = f"cycle file unreadable ({cycle['unreadable']})"
        else:
            lag = "n/a" if cycle.get("lag_seconds") is None else f"{cycle['lag_seconds']:,.1f} s"
            last = (
                f"last cycle {cycle['cycle_number']} at {cycle['written_at']}"
                f"{' (idle)' if cycle.get('idle') else ''}: "
                f"synchpoint {cycle.get('synchpoint') or 'none'}, lag {lag}"
            )
        out.append(f"session {entry['session']}: {state}; {last}")
    if result.get("data_tests_passed_at"):
        out.append(f"lake: data tests last passed at {result['data_tests_passed_at']}")
    if result["lake"]:
        out.append(f"lake: {result['lake']}")
    for source in result["sources"] or []:
        rule = source["restart_rule"] or "no decision recorded"
        out.append(
            f"source {source['source_owner']}.{source['source_table']} (session {source['session_name']}): "
            f"restart1 {source['restart1']}, restart2 {source['restart2']} "
            f"after cycle {source['cycle_number']}; "
            f"rule {rule}"
            + (f" ({source['start_type']} start)" if source["start_type"] else "")
            + f"; CD_OLD_SYNCHPOINT {source['cd_old_synchpoint'] or 'none'}, "
            f"CD_NEW_SYNCHPOINT {source['cd_new_synchpoint'] or 'none'}"
        )
    for entry in result["sets"] or []:
        state = (
            f"{entry['status']} in Apply cycle {entry['apply_cycle']}, "
            f"synchpoint {entry['synchpoint'] or 'none'}"
            if entry["status"]
            else "no Apply cycle yet"
        )
        pending = ", ".join(entry["pending_members"] or []) or "none"
        out.append(
            f"set {entry['apply_qual']}.{entry['set_name']}: {state}; pending refreshes {pending}; "
            f"exceptions {entry['exceptions']:,}"
            + (f" ({entry['description']})" if entry["description"] else "")
        )
    slot = result.get("slot")
    if slot:
        confirmed = "nothing yet" if slot["confirmed_lsn"] is None else format_lsn(slot["confirmed_lsn"])
        out.append(
            f"PostgreSQL slot {slot['slot']} (server {slot['system_identifier']}): "
            f"confirmed up to {confirmed}"
            + (
                f"; a cold start is owed from {slot['cold_start_from']}: the next run starts cold, every "
                "member of the source in a gap"
                if slot["cold_start_from"]
                else ""
            )
        )
    for waiting in result.get("waiting_transactions") or []:
        awaited = (
            f"{waiting['events_landed']:,} of the {waiting['events_expected']:,} events its END counts "
            "have landed"
            if waiting["end_landed"]
            else f"its END has not landed ({waiting['changes_landed']:,} change events have)"
        )
        out.append(
            f"Debezium transaction {waiting['transaction_id']} waits, out of the log: {awaited}; "
            f"first landed in batch {waiting['first_batch']}"
        )
    for change in result.get("schema_changes") or []:
        table = f"{change['source_owner']}.{change['source_table']}"
        if change["change_kind"] == "unsafe":
            out.append(
                f"schema change of {table} at {change['log_position']}: {change['detail']}; the table "
                "stopped there, its changes held back (docs/schema-evolution.md: register it again, "
                "then refresh its members)"
            )
        else:
            default = f" (rows before it: {change['column_default']})" if change["column_default"] else ""
            out.append(f"schema change of {table} at {change['log_position']}: {change['detail']}{default}")
    if result["sources"] == [] and result["sets"] == []:
        out.append("lake: no cycle has run yet")
    return out


def as_json(result: dict) -> str:
    return json.dumps(result, default=str, indent=2, sort_keys=True)
