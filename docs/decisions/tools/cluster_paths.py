"""ADR 0010: the same work through the two ways to a cluster, Spark Connect and the Thrift Server.

Run from the project root with the project's environment, alone on the machine:
    python docs/decisions/tools/cluster_paths.py [HOME]
For each server kind it starts a local standalone cluster (lakerep.spark_cluster) under HOME
(default /tmp/lakerep-cluster-paths), then times, as separate processes, the same three dbt
invocations against an empty lake: `dbt run` (the first, which creates every table), `dbt run`
again (nothing landed) and `dbt build` (the models again and the data tests). dbt is the only
client both servers serve, so the figures compare the ways, not what the runner adds.
"""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from lakerep import PROJECT_DIR, spark_cluster

HOME = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/lakerep-cluster-paths")
STEPS = [
    ("first run", ["run"]),
    ("second run", ["run"]),
    ("build", ["build", "--exclude-resource-type", "unit_test"]),
]

for server in ("connect", "thrift"):
    home = HOME / server
    shutil.rmtree(home, ignore_errors=True)
    started = time.monotonic()
    with spark_cluster.running_cluster(home, server=server) as cluster:
        print(f"{server}: cluster up in {time.monotonic() - started:.1f} s", flush=True)
        environment = {
            **os.environ,
            **cluster.environment(),
            "LAKEREP_HOME": str(home / "runner"),
            "DBT_TARGET_PATH": str(home / "target"),
            "DBT_LOG_PATH": str(home / "logs"),
        }
        for name, args in STEPS:
            started = time.monotonic()
            done = subprocess.run(
                [str(Path(sys.executable).parent / "dbt"), *args, "--project-dir", str(PROJECT_DIR),
                 "--profiles-dir", str(PROJECT_DIR / "profiles")],
                env=environment, capture_output=True, text=True,
            )  # fmt: skip
            seconds = time.monotonic() - started
            summary = next(
                (line for line in done.stdout.splitlines() if "Done. PASS" in line), done.stdout[-300:]
            )
            print(f"{server}: {name}: {seconds:.1f} s, exit {done.returncode}; {summary.strip()}", flush=True)
