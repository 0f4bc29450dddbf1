"""The whole runner against a Spark standalone cluster (SPEC §8, ADR 0010): a master, a worker and
a Spark Connect server started from the pyspark package on 127.0.0.1, the lake under the
cluster's home. Two runner "machines" share nothing but the cluster: each has a lakerep home of
its own (token files, status, logs), so their locks can meet only in the lake.

One lake, one story, in order: a cold start from a token file, a warm session over several
cycles (while a second runner of the same session is refused), a recover, a full refresh and an
external refresh, a prune, and `lakerep diff` against snapshots taken from the oracle. The CCDs
are read by path with the test's own embedded Spark and compared with the oracle."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from capture.ccd_support import actual_ccd_history, actual_condensed_state, expected_ccd_history
from lakerep_process import LakerepProcesses

from lakerep import PROJECT_DIR, spark_cluster
from lakerep.cli import EXIT_SESSION_LOCKED
from lakerep.registrations import load_registrations
from lakerep.scaffold import ccd_model_name
from lakerep.token_file import read_token_file
from lakerep.workload.generator import Workload

pytestmark = pytest.mark.cluster

SEED = 43
BATCH = 600
SESSION = "clustered"
REGISTRATIONS = load_registrations()
LOADER = Path(__file__).with_name("load_workload.py")


class Runner(LakerepProcesses):
    """`lakerep` commands of one machine: its own home, the cluster's variables."""

    def __init__(self, home: Path, cluster: spark_cluster.Cluster) -> None:
        super().__init__(home, cluster.environment())

    def land(self, first: int, end: int, *snapshots: str) -> int:
        """Land batches first..end-1 of the workload (and snapshots taken after them); returns the
        lake's highest landing batch."""
        return int(re.search(r"highest landing batch: (\d+)", self.load(first, end, *snapshots)).group(1))

    def load(self, first: int, end: int, *snapshots: str) -> str:
        """The loader's output (tests/cluster/load_workload.py)."""
        done = subprocess.run(
            [sys.executable, str(LOADER), str(SEED), str(BATCH), str(first), str(end), *snapshots],
            cwd=PROJECT_DIR, env=self.env, capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with spark_cluster.running_cluster(tmp_path_factory.mktemp("cluster")) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def machine_a(cluster, tmp_path_factory) -> Runner:
    return Runner(tmp_path_factory.mktemp("machine_a"), cluster)


@pytest.fixture(scope="module")
def machine_b(cluster, tmp_path_factory) -> Runner:
    return Runner(tmp_path_factory.mktemp("machine_b"), cluster)


def table(cluster, schema: str, name: str) -> str:
    return f"delta.`{cluster.home / 'warehouse' / f'lakerep_{schema}.db' / name}`"


def assert_ccds_equal_the_oracle(spark, cluster, batches: int) -> None:
    workload = Workload(seed=SEED)
    for _ in range(batches):
        workload.next_batch(BATCH)
    oracle = workload.oracle
    synchpoint = max(oracle.commit_positions())
    for name, registration in REGISTRATIONS.items():
        ccd = table(cluster, "capture", ccd_model_name(registration))
        if registration.ccd_condensed:
            assert actual_condensed_state(spark, registration, ccd) == oracle.state_at(name, synchpoint), name
        else:
            expected = expected_ccd_history(oracle, registration, synchpoint)
            assert actual_ccd_history(spark, registration, ccd) == expected, name


def last_trail(spark, cluster) -> dict[str, tuple]:
    """The last Apply cycle's (status, rows loaded) per set."""
    trail = table(cluster, "apply", "apply_trail")
    rows = spark.sql(f"select * from {trail} where apply_cycle = (select max(apply_cycle) from {trail})")
    return {row["set_name"]: (row["status"], row["rows_loaded"]) for row in rows.collect()}


def test_starting_the_cluster_leaves_this_process_free_to_start_an_embedded_session(cluster):
    """The readiness question is a Connect client; asked in this process it would mark the process
    as one (pyspark's SPARK_CONNECT_MODE_ENABLED), and every later test of this worker that starts
    an embedded session would fail with SESSION_ALREADY_EXIST."""
    assert "SPARK_CONNECT_MODE_ENABLED" not in os.environ
    assert "SPARK_REMOTE" not in os.environ


def test_cold_start_from_a_token_file(spark, cluster, machine_a):
    machine_a.land(0, 1, "refresh-snapshots")
    tokens = machine_a.home / "start.tokens"
    tokens.write_text("".join(f"{name}={'0' * 20}\n{name}={'0' * 20}\n" for name in sorted(REGISTRATIONS)))
    output = machine_a.run(
        "run", "--session", SESSION, "--start", "cold", "--token-file", str(tokens), "--once"
    )
    assert f"session {SESSION} cycle 1" in output, output
    assert_ccds_equal_the_oracle(spark, cluster, batches=1)
    assert last_trail(spark, cluster)["SALES"][0] == "APPLIED"


def test_a_warm_session_over_several_cycles_refuses_a_second_runner(spark, cluster, machine_a, machine_b):
    before = last_cycle(machine_a)["run_id"]
    runner = machine_a.start("run", "--session", SESSION, "--commit-interval", "1", "--test-interval", "3600")
    try:
        wait_for_cycle(machine_a, lambda cycle: cycle["run_id"] != before)  # the session is running
        refused = machine_b.run("run", "--session", SESSION, "--once", expect=EXIT_SESSION_LOCKED)
        assert f"session {SESSION} is already running" in refused, refused
        assert "subscription is active" in machine_b.run("refresh", "--member", "customers_copy",
                                                         expect=EXIT_SESSION_LOCKED)  # fmt: skip
        for end in (2, 3, 4):  # an outside loader, while the session runs: a batch per cycle
            highest = machine_b.land(end - 1, end)
            wait_for_cycle(machine_a, lambda cycle, highest=highest: cycle["up_to_batch"] >= highest)
    finally:
        runner.send_signal(signal.SIGTERM)  # finishes the cycle, commits its state, ends
        output, _ = runner.communicate(timeout=900)
    assert runner.returncode == 0, output
    working = [
        line for line in output.splitlines() if re.search(r"cycle \d+: [1-9][0-9,]* records read", line)
    ]
    assert len(working) >= 3, output
    assert_ccds_equal_the_oracle(spark, cluster, batches=4)


def last_cycle(runner: Runner) -> dict:
    """The runner's last cycle as its status file has it (lakerep status)."""
    return json.loads((runner.home / "status" / f"{SESSION}.json").read_text())


def wait_for_cycle(runner: Runner, done, timeout: float = 600) -> None:
    """Until the runner's last cycle is `done` (a predicate of last_cycle)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(FileNotFoundError, ValueError):
            if done(last_cycle(runner)):
                return
        time.sleep(1)
    raise AssertionError(f"no such cycle within {timeout:.0f} s: {last_cycle(runner)}")


def test_recover_writes_the_state_to_a_token_file_another_machine_starts_from(
    spark, cluster, machine_a, machine_b
):
    tokens = machine_a.home / "recovered.tokens"
    machine_a.run("run", "--session", SESSION, "--start", "recover", "--token-file", str(tokens))
    assert set(read_token_file(tokens, registered=REGISTRATIONS).explicit) == set(REGISTRATIONS)
    machine_b.land(4, 5)
    copied = machine_b.home / "recovered.tokens"
    copied.write_text(tokens.read_text())
    output = machine_b.run("run", "--session", SESSION, "--token-file", str(copied), "--once")
    assert f"session {SESSION} cycle" in output, output
    assert_ccds_equal_the_oracle(spark, cluster, batches=5)


def test_a_full_refresh_and_an_external_refresh(spark, cluster, machine_a):
    assert last_trail(spark, cluster)["STOCK"][0] == "GAP"  # DISABLE_REFRESH: refreshed by other means
    machine_a.run("refresh", "--member", "customers_copy")
    loaded = machine_a.load(5, 6, "refresh-snapshots", "external-refresh")  # another tool reloads stock_copy
    start, end = re.search(r"window (\w+) (\w+)", loaded).groups()
    machine_a.run("mark-external-refresh", "--member", "stock_copy", "--start", start, "--end", end)
    machine_a.run("run", "--session", SESSION, "--once")
    trail = last_trail(spark, cluster)
    assert trail["SALES"][0] == "APPLIED" and trail["SALES"][1] > 0, trail  # customers_copy reloaded
    assert trail["STOCK"][0] == "APPLIED", trail


def test_a_prune(spark, cluster, machine_a):
    uow = table(cluster, "capture", "uow")
    before = spark.sql(f"select count(*) from {uow}").collect()[0][0]
    machine_a.run("prune", "--retention-limit", "0")
    assert spark.sql(f"select count(*) from {uow}").collect()[0][0] < before


def test_diff_equals_the_oracle(spark, cluster, machine_a):
    machine_a.land(6, 6, "consistent-snapshots")
    machine_a.run("run", "--session", SESSION, "--once")
    output = machine_a.run("diff")
    assert "customers_copy" in output and "equal" in output, output
