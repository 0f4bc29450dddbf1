"""A lakerep runner process for the PostgreSQL end-to-end test: `python postgresql_runner.py DSN
STEP...` runs the steps, in order, in the project its PYTHONPATH names (a scratch copy), against
the source DSN. One process pays Spark's start once for several steps.

Steps (every subscription member, every registered table of the source):
  refresh  `lakerep refresh --source DSN --member ...`
  cycle    `lakerep run --once --source DSN`, as a `dbt run` (no data tests)
  crash    the same, killed (SIGKILL, with its JVM) once the cycle's records have landed and
           before the slot is confirmed: a `kill -9` at the one point where a runner reading a
           live source can lose or duplicate a transaction
  unload   `lakerep unload --source DSN --member ...`
  diff     `lakerep diff`: prints `diff <json of the counts per target>`
  dump     prints `rows <target> <json of its rows>` per member (every column of the target: the
           source's columns, those its schema history added last)
  history  prints `history <json of the schema history's rows>` (table, kind, column, type)
  wait     prints `waiting` and goes on once a line comes on its input: the test changes the
           server meanwhile, as it would between two cycles of a running session
"""

from __future__ import annotations

import contextlib
import json
import sys


def main(dsn: str, steps: list[str]) -> None:
    from lakerep import apply_commands
    from lakerep.lake import lake_session
    from lakerep.registrations import load_registrations
    from lakerep.scenarios.crash import kill_this_runner
    from lakerep.session import SessionStart, run_session
    from lakerep.sources.postgresql import PostgresqlSource
    from lakerep.subscriptions import load_members
    from lakerep.summary import relation_name

    class KilledBeforeConfirming(PostgresqlSource):
        records_read = 0

        @contextlib.contextmanager
        def stream(self, *args, **kwargs):  # the runner lands what it streams
            with super().stream(*args, **kwargs) as stream:
                yield stream
            self.records_read = stream.taken

        def confirm(self, lsn: int) -> None:  # the runner lands what it read, then confirms
            print(f"killed before confirming {self.records_read} records read", flush=True)
            kill_this_runner()

    members = load_members()
    targets = [member.target_table for member in members]
    tables = list(load_registrations())
    for step in steps:
        if step in {"refresh", "unload"}:
            source = PostgresqlSource(dsn, tables)
            for line in apply_commands.unload_from_source(targets, source, refresh=step == "refresh"):
                print(line, flush=True)
        elif step in {"cycle", "crash"}:
            source = (KilledBeforeConfirming if step == "crash" else PostgresqlSource)(dsn, tables)
            start = SessionStart("pg", once=True, dbt_command="run", source=source)
            run_session(start, progress=lambda line: print(line, flush=True))
        elif step == "diff":
            print("diff", json.dumps(apply_commands.diff([]).counts), flush=True)
        elif step == "dump":
            spark = lake_session()
            for member in members:
                rows = spark.sql(f"select * from {relation_name(member.target_table)}").collect()
                print("rows", member.target_table, json.dumps([list(row) for row in rows]), flush=True)
        elif step == "wait":
            print("waiting", flush=True)
            sys.stdin.readline()
        elif step == "history":
            from lakerep.sources.schema_history import read_history

            rows = [[r.source_table, r.change.kind, r.change.column_name, r.change.type_after]
                    for r in read_history(lake_session())]  # fmt: skip
            print("history", json.dumps(sorted(rows)), flush=True)
        else:
            raise SystemExit(f"unknown step {step}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
