"""A live PostgreSQL replicated end to end (issue 23): pgbench's tables registered from the
catalog in a scratch copy of the project, refreshed from the server, then pgbench traffic with a
rollback, a delete, a key update, a transaction spanning two cycles, a TRUNCATE, updates that
leave a TOASTed value unchanged (every update of the branch, which holds one), a column added
with a default and one widened, the declaration synced from the history and then deployed again
as it was before, and a rename that stops its table until it is declared again (the schema
history, issue 63), over several runner processes, one of them killed (SIGKILL) between landing
and the slot's confirmation. Every replica equals the server's table, and `lakerep diff` against
an unload taken at the end finds no difference. The oracle is the server itself. (A slot dropped
under a running lake is test_a_lost_slot's, against the same kind of server.)"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest
from sources.postgresql_server import execute, pgbench, postgresql_server

from lakerep.registrations import DECLARATION_PATH

pytestmark = pytest.mark.spark

RUNNER_SCRIPT = Path(__file__).with_name("postgresql_runner.py")
TABLES = ["public.pgbench_accounts", "public.pgbench_branches", "public.pgbench_tellers"]
ACCOUNTS = 2_000  # of pgbench's 100,000 at scale 1: the unload stays small
# pgbench's built-in TPC-B-like transaction, on the accounts kept
TPCB = f"""\\set aid random(1, {ACCOUNTS})
\\set bid 1
\\set tid random(1, 10)
\\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, now());
END;
"""


@pytest.fixture(scope="module")
def server():
    with postgresql_server() as dsn:
        pgbench(dsn, "-i", "-s", "1", "-q")
        execute(dsn, f"delete from pgbench_accounts where aid > {ACCOUNTS}")
        # a value stored out of line (TOASTed, incompressible), which every pgbench update of the
        # branch leaves unchanged: the server does not send it, the lake fills it
        notes = "".join(f"{n:08x}" for n in range(4000))
        execute(
            dsn,
            "alter table pgbench_branches add column notes text",
            f"update pgbench_branches set notes = '{notes}'",
        )
        yield dsn


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A copy of the project, which registration rewrites."""
    from lakerep.bench_wide import copy_project

    return copy_project(tmp_path_factory.mktemp("pg") / "project")


def traffic(dsn: str, script: Path, transactions: int) -> None:
    """pgbench's transactions from two clients at once: their commits interleave."""
    pgbench(dsn, "-n", "-c", "2", "-t", str(transactions), "-f", str(script))


def in_project(project: Path, *arguments: str, check: bool = True) -> subprocess.CompletedProcess:
    """A process of the copy (its lakerep, its lake), leading a process group of its own."""
    from lakerep.bench_wide import copy_environment

    environment = copy_environment(project, str(Path(__file__).parent))
    done = subprocess.run(
        [sys.executable, *arguments], cwd=project, env=environment, capture_output=True, text=True,
        start_new_session=True, check=False,
    )  # fmt: skip
    if check and done.returncode != 0:
        raise AssertionError(
            f"{arguments} exited {done.returncode}: {done.stdout[-3000:]}{done.stderr[-3000:]}"
        )
    return done


class Runner:
    """A runner process of the copy whose steps wait for the test where they say `wait`: one JVM
    start and one warm JVM for the cycles of a session, between which the server changes."""

    def __init__(self, project: Path, dsn: str, *steps: str, errors: Path) -> None:
        from lakerep.bench_wide import copy_environment

        self.errors = errors
        with errors.open("w") as error_file:  # the process keeps its own descriptor
            self.process = subprocess.Popen(
                [sys.executable, str(RUNNER_SCRIPT), dsn, *steps], cwd=project,
                env=copy_environment(project, str(Path(__file__).parent)), stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=error_file, text=True, start_new_session=True,
            )  # fmt: skip

    def until_waiting(self) -> str:
        """Its output up to its next `waiting`."""
        lines = []
        for line in self.process.stdout:
            if line == "waiting\n":
                print("".join(lines))
                return "".join(lines)
            lines.append(line)
        errors = self.errors.read_text()[-3000:]
        raise AssertionError(f"the runner ended, not waiting: {''.join(lines)}{errors}")

    def go_on(self) -> None:
        self.process.stdin.write("\n")
        self.process.stdin.flush()

    def end(self) -> tuple[int, str]:
        """Its exit code and the rest of its output, once it has ended."""
        output, _ = self.process.communicate(timeout=900)
        print(output)
        return self.process.returncode, output


def runner(project: Path, dsn: str, *steps: str, check: bool = True) -> subprocess.CompletedProcess:
    started = time.monotonic()
    done = in_project(project, str(RUNNER_SCRIPT), dsn, *steps, check=check)
    print(f"runner {' '.join(steps)}: {time.monotonic() - started:.1f} s")
    print(done.stdout)
    return done


def server_rows(dsn: str, table: str) -> list[tuple]:
    with psycopg.connect(dsn) as connection:
        return sorted(tuple(row) for row in connection.execute(f"select * from {table}"))


def test_a_live_postgresql_is_replicated_exactly_through_a_kill(server, project, tmp_path):
    script = tmp_path / "tpcb.sql"
    script.write_text(TPCB)
    register = [
        "-m",
        "lakerep.cli",
        "register",
        "--from-postgresql",
        server,
        "--only",
        "--subscribe",
        "APPLY1.BANK",
    ]
    in_project(project, *register, *TABLES)

    # One runner process refreshes, runs a cycle and is killed in the next, as a session would.
    steps = ["refresh", "wait", "cycle", "wait", "crash"]
    session = Runner(project, server, *steps, errors=tmp_path / "runner.err")
    assert "unloaded 2,000 rows of public.pgbench_accounts" in session.until_waiting()

    traffic(server, script, 150)
    execute(server, "delete from pgbench_accounts where aid = 3")
    execute(server, "update pgbench_accounts set aid = 900001 where aid = 7")  # a key update
    with psycopg.connect(server) as connection:
        connection.execute("insert into pgbench_accounts values (900000, 1, 1, 'rolled back')")
        connection.rollback()
    spanning = psycopg.connect(server)  # open across the next two cycles
    spanning.execute("insert into pgbench_accounts values (800001, 1, 11, 'spanning')")
    session.go_on()
    session.until_waiting()

    # A column added under traffic, with a default the row before it holds (ADR 0012; not to the
    # accounts: the spanning transaction holds them): the kill below falls after its history row
    # and its records landed, before the slot moved.
    traffic(server, script, 50)
    execute(server, "alter table pgbench_branches add column city text not null default 'north'")
    traffic(server, script, 50)
    session.go_on()
    exit_code, output = session.end()
    assert exit_code == -signal.SIGKILL, (tmp_path / "runner.err").read_text()[-3000:]
    landed = re.search(r"killed before confirming (\d+) records read", output)
    assert landed and int(landed[1]) >= 600, output  # 200 pgbench transactions, 3 or 4 records each

    spanning.execute("update pgbench_accounts set abalance = 12 where aid = 800001")
    spanning.commit()
    spanning.close()
    execute(  # a truncate, and the table loaded again in its transaction
        server,
        "truncate pgbench_tellers",
        "insert into pgbench_tellers select t, 1, t * 10 from generate_series(1, 10) as t",
        "update pgbench_accounts set filler = 'with the truncate' where aid = 1",
    )
    traffic(server, script, 50)
    execute(server, "alter table pgbench_accounts add column region text default 'south'")  # 2,000 rows
    execute(server, "alter table pgbench_branches alter column bbalance type bigint")  # a widening
    traffic(server, script, 50)
    final = runner(project, server, "cycle", "unload", "cycle", "diff", "dump", "history")
    assert "unloaded 10 rows of public.pgbench_tellers" in final.stdout
    assert_replicas_equal_the_server(server, final)
    history = json.loads(next(line for line in final.stdout.splitlines() if line.startswith("history "))[8:])
    assert history == [  # read again after the kill, recorded once
        ["pgbench_accounts", "add_column", "region", "string"],
        ["pgbench_branches", "add_column", "city", "string"],
        ["pgbench_branches", "widen_column", "bbalance", "bigint"],
    ]
    accounts = {row[0] for row in replica_rows(final)["pgbench_accounts_copy"]}
    assert {800001, 900001} <= accounts and not {3, 7, 900000} & accounts

    # The history written into the files (register --sync), as someone commits it, and cycles under
    # them; then the files from before the evolution deployed again (scaffold): nothing changes,
    # the replicas keep up (the last check below).
    declaration = project / DECLARATION_PATH
    before_sync = declaration.read_text(encoding="utf-8")
    sync = ["-m", "lakerep.cli", "register", "--sync", "--from-postgresql", server]
    synced = in_project(project, *sync, "public.pgbench_accounts", "public.pgbench_branches").stdout
    assert "synced: public.pgbench_accounts, 5 columns" in synced, synced
    assert "data_type: bigint" in declaration.read_text(encoding="utf-8").split("pgbench_branches", 1)[1]

    # A rename cannot evolve by itself: the table stops at it, loudly, and the documented command
    # (declare it again from the lake's history, then refresh) resumes it.
    execute(server, "alter table pgbench_tellers rename column filler to remark")
    traffic(server, script, 30)
    stopped = runner(project, server, "cycle")
    assert "schema_change_unsafe" in stopped.stdout
    status = in_project(project, "-m", "lakerep.cli", "status", check=False)
    assert "public.pgbench_tellers stopped at" in status.stdout + status.stderr, status.stdout
    declaration.write_text(before_sync, encoding="utf-8")  # the old files deployed again
    in_project(project, "-m", "lakerep.cli", "scaffold")
    assert "synced: public.pgbench_tellers" in in_project(project, *sync, "public.pgbench_tellers").stdout
    resumed = runner(project, server, "refresh", "unload", "cycle", "diff", "dump")
    assert_replicas_equal_the_server(server, resumed)


def replica_rows(done: subprocess.CompletedProcess) -> dict[str, list]:
    """The rows of each replica a runner's dump step printed."""
    lines = [line for line in done.stdout.splitlines() if line.startswith("rows ")]
    return {line.split(" ", 2)[1]: json.loads(line.split(" ", 2)[2]) for line in lines}


def assert_replicas_equal_the_server(server: str, done: subprocess.CompletedProcess) -> None:
    """Every replica equals the server's table, and `lakerep diff` (its diff step) against an
    unload finds no difference."""
    lines = done.stdout.splitlines()
    differences = json.loads(next(line for line in lines if line.startswith("diff "))[5:])
    assert sorted(differences) == ["pgbench_accounts_copy", "pgbench_branches_copy", "pgbench_tellers_copy"]
    for target, counts in differences.items():
        kinds = ("only_in_source", "only_in_target", "differing", "duplicated")
        assert all(counts[kind] == 0 for kind in kinds), (target, counts)
    replicas = replica_rows(done)
    for table in TABLES:
        target = f"{table.split('.')[1]}_copy"
        assert sorted(tuple(row) for row in replicas[target]) == server_rows(server, table), target
