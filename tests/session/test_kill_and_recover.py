"""A runner killed with kill -9 in the middle of a cycle, then `lakerep run --start recover`, then a
warm run stopped with SIGTERM: the CCDs equal the oracle (SPEC §4).

The runners are real `lakerep` processes on a lake of their own (the embedded metastore admits
one process at a time); a process of the lake's own compares its CCDs with the oracle."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lakerep_process import LakerepProcesses

from lakerep import PROJECT_DIR
from lakerep.registrations import load_registrations
from lakerep.token_file import read_token_file

# Run in the lake's own process: every CCD against the oracle of the workload it landed.
CCD_CHECK = """
import sys
sys.path.insert(0, "tests")
from capture.ccd_support import actual_ccd_history, actual_condensed_state, expected_ccd_history
from lakerep.lake import lake_session
from lakerep.registrations import load_registrations
from lakerep.workload.generator import Workload

spark = lake_session()
workload = Workload(seed=int(sys.argv[1]))
workload.next_batch(int(sys.argv[2]))
oracle = workload.oracle
synchpoint = max(oracle.commit_positions())
for name, registration in load_registrations().items():
    if registration.ccd_condensed:
        equal = actual_condensed_state(spark, registration) == oracle.state_at(name, synchpoint)
    else:
        expected = expected_ccd_history(oracle, registration, synchpoint)
        equal = actual_ccd_history(spark, registration) == expected
    print("ccd", name, "equal" if equal else "differs")
"""
SEED = 41
RECORDS = 1_500
REGISTRATIONS = load_registrations()


class Lake(LakerepProcesses):
    """A lake in its own folder, driven through the `lakerep` command line."""

    def __init__(self, home: Path) -> None:
        super().__init__(home)
        self.dbt_log = home / "logs" / "dbt.log"

    def wait_for_log(self, text: str, *, after: int, timeout: float = 600) -> None:
        """Until dbt's log, past offset `after`, holds `text`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.dbt_log.exists() and text in self.dbt_log.read_text(errors="replace")[after:]:
                return
            time.sleep(0.5)
        raise AssertionError(f"dbt never logged {text!r}")

    def log_size(self) -> int:
        return len(self.dbt_log.read_text(errors="replace")) if self.dbt_log.exists() else 0

    def ccds_against_the_oracle(self) -> dict[str, str]:
        """Each registered table's CCD against the oracle at its synchpoint ("equal" or
        "differs"), read through the lake's own metastore by a process of its own: the CCDs are
        views, and the embedded metastore admits one process at a time."""
        output = subprocess.run(
            [sys.executable, "-c", CCD_CHECK, str(SEED), str(RECORDS)],
            cwd=PROJECT_DIR, env=self.env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert output.returncode == 0, output.stderr[-3000:]
        return dict(line.split()[1:] for line in output.stdout.splitlines() if line.startswith("ccd "))


@pytest.fixture(scope="module")
def lake(tmp_path_factory) -> Lake:
    lake = Lake(tmp_path_factory.mktemp("crash_lake"))
    lake.run("generate", "--records", str(RECORDS), "--seed", str(SEED), "--batch-records", str(RECORDS))
    return lake


def test_kill_9_mid_cycle_then_recover_then_warm(spark, lake):
    offset = lake.log_size()
    runner = lake.start("run", "--session", "crash", "--once", "--capture-only")
    # Killed once the captured log (the CD rows) is written, before the cycle's commit record.
    lake.wait_for_log("OK created sql incremental model lakerep_capture.captured_log", after=offset)
    runner.send_signal(signal.SIGKILL)
    runner.wait(timeout=60)
    assert runner.returncode == -signal.SIGKILL

    token_file = lake.home / "crash.tokens"
    recovered = lake.run(
        "run", "--session", "crash", "--start", "recover", "--token-file", str(token_file), "--capture-only"
    )
    assert "recovery cycle 1" in recovered
    tokens = read_token_file(token_file, registered=REGISTRATIONS)
    assert set(tokens.explicit) == set(REGISTRATIONS) and tokens.special is None

    offset = lake.log_size()
    runner = lake.start(
        "run",
        "--session",
        "crash",
        "--token-file",
        str(token_file),
        "--commit-interval",
        "1",
        "--capture-only",
    )
    lake.wait_for_log("START sql incremental model lakerep_capture.captured_log", after=offset)
    runner.send_signal(signal.SIGTERM)  # finishes the cycle, commits its state, ends
    output, _ = runner.communicate(timeout=900)
    assert runner.returncode == 0, output
    assert output.count("lakerep: session crash cycle") == 1, output

    assert lake.ccds_against_the_oracle() == {name: "equal" for name in REGISTRATIONS}
