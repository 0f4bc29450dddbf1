"""`lakerep` run as its own process on a lakerep home of its own, for tests of what a real
runner process does (kill -9, two runners, a cluster): the test process keeps its own embedded
SparkSession, and the embedded metastore admits one process at a time."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from lakerep import PROJECT_DIR


class LakerepProcesses:
    """`lakerep` commands with their own home (and dbt's target and logs in it) and `extra_env`."""

    def __init__(self, home: Path, extra_env: dict[str, str] | None = None) -> None:
        home.mkdir(parents=True, exist_ok=True)
        self.home = home
        self.env = {
            **os.environ,
            **(extra_env or {}),
            "LAKEREP_HOME": str(home),
            "DBT_TARGET_PATH": str(home / "target"),
            "DBT_LOG_PATH": str(home / "logs"),
        }

    def start(self, *args: str) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "-m", "lakerep.cli", *args],
            cwd=PROJECT_DIR,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def run(self, *args: str, expect: int = 0) -> str:
        """Run a command to its end; its output, once its exit code is `expect`."""
        process = self.start(*args)
        output, _ = process.communicate(timeout=900)
        assert process.returncode == expect, output
        return output
