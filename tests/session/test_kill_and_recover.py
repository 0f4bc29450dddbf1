"""A runner killed with kill -9 in the middle of a cycle, then `lakerep run --start recover`, then a
warm run stopped with SIGTERM: the CCDs equal the oracle (SPEC §4).

The runners are real `lakerep` processes on a lake of their own (the embedded metastore admits
one process at a time); this test reads their Delta tables by path."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest
from capture.ccd_support import actual_ccd_history, actual_condensed_state, expected_ccd_history
from lakerep_process import LakerepProcesses

from lakerep.registrations import load_registrations
from lakerep.scaffold import ccd_model_name
from lakerep.token_file import read_token_file
from lakerep.workload.generator import Workload

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

    def table(self, schema: str, name: str) -> str:
        return f"delta.`{self.home / 'warehouse' / f'lakerep_{schema}.db' / name}`"


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

    workload = Workload(seed=SEED)
    workload.next_batch(RECORDS)
    oracle = workload.oracle
    synchpoint = max(oracle.commit_positions())
    for name, registration in REGISTRATIONS.items():
        ccd = lake.table("capture", ccd_model_name(registration))
        if registration.ccd_condensed:
            assert actual_condensed_state(spark, registration, ccd) == oracle.state_at(name, synchpoint), name
        else:
            expected = expected_ccd_history(oracle, registration, synchpoint)
            assert actual_ccd_history(spark, registration, ccd) == expected, name
