"""`make bench-live RATE=... DURATION=...`: a session keeping up with a live source (issue 61's
`live` case). A throw-away PostgreSQL server with pgbench at scale 2 (200,000 accounts), its three
keyed tables registered from the catalog in a scratch copy of the project and refreshed; then
`lakerep run --source` (COMMIT_INTERVAL 10 s, the default data-test schedule) while pgbench runs
its TPC-B-like transaction at RATE transactions/s for DURATION seconds. Printed, never asserted: each
cycle's line with its lag, the rate pgbench reached (the run counts only at >= 98 % of RATE), the
highest lag of the cycles that read pgbench's transactions, and how long after pgbench exited the
cycle that applied its last transaction ended (the cycle before the first idle one).
"""

from __future__ import annotations

import argparse
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sources.postgresql_server import pgbench, postgresql_server

from lakerep.bench_wide import copy_environment, copy_project

TABLES = ["public.pgbench_accounts", "public.pgbench_branches", "public.pgbench_tellers"]
MEMBERS = [f"{table.split('.')[1]}_copy" for table in TABLES]
COMMIT_INTERVAL = 10  # seconds
LAG = re.compile(r"; lag ([0-9,.]+) s")


def lakerep(project: Path, *arguments: str) -> None:
    """A lakerep command in the copy; its time and what it said (the rows it unloaded)."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "lakerep.cli", *arguments],
        cwd=project, env=copy_environment(project), check=True, capture_output=True, text=True,
    )  # fmt: skip
    print(f"  lakerep {arguments[0]}: {time.monotonic() - started:.1f} s", flush=True)
    for line in done.stdout.splitlines():
        print(f"    {line}", flush=True)


class Session:
    """`lakerep run --source` in the project, its lines kept with the time each came."""

    def __init__(self, project: Path, dsn: str):
        self.lines: list[tuple[float, str]] = []
        self.process = subprocess.Popen(
            [sys.executable, "-m", "lakerep.cli", "run", "--source", dsn,
             "--commit-interval", str(COMMIT_INTERVAL)],
            cwd=project, env=copy_environment(project), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True,
        )  # fmt: skip
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append((time.monotonic(), line.rstrip()))
            print(f"  {time.strftime('%H:%M:%S')} {line.rstrip()}", flush=True)

    def cycle_lines(self, after: float = 0.0) -> list[tuple[float, str]]:
        return [(at, line) for at, line in self.lines if at > after and " cycle " in line]

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)  # finishes the cycle under way
        self.process.wait(timeout=600)


def main(rate: int, seconds: int) -> None:
    with postgresql_server(settings={"max_wal_size": "4GB"}) as dsn:
        started = time.monotonic()
        pgbench(dsn, "-i", "-s", "2", "-q")
        print(f"  pgbench -i -s 2: {time.monotonic() - started:.1f} s", flush=True)
        project = copy_project(Path(tempfile.mkdtemp(prefix="lakerep-bench-live-")) / "project")
        lakerep(
            project, "register", "--from-postgresql", dsn, "--only", "--subscribe", "APPLY1.BANK", *TABLES
        )
        lakerep(project, "refresh", "--source", dsn, *(f"--member={member}" for member in MEMBERS))

        session = Session(project, dsn)
        while not session.cycle_lines():  # the first cycle loads the refresh
            if session.process.poll() is not None:
                raise SystemExit(f"lakerep run ended: {session.process.returncode}")
            time.sleep(1)
        traffic_started = time.monotonic()
        ran = pgbench(dsn, "-n", "-c", "4", "-j", "2", "-R", str(rate), "-T", str(seconds), "-b", "tpcb-like")
        traffic_ended = time.monotonic()
        processed = int(re.search(r"actually processed: (\d+)", ran.stdout)[1])
        while not any(" idle" in line for _, line in session.cycle_lines(after=traffic_ended)):
            if time.monotonic() - traffic_ended > 1800:
                break
            time.sleep(1)
        session.stop()

    after = session.cycle_lines(traffic_ended)
    first_idle = next((n for n, (_, line) in enumerate(after) if " idle" in line), None)
    caught_up = after[first_idle - 1][0] if first_idle else None  # the cycle before the first idle one
    # the cycles that read pgbench's transactions: from its start to the one that applied its last
    read = [line for at, line in session.cycle_lines(traffic_started) if at <= (caught_up or traffic_ended)]
    lags = [float(match[1].replace(",", "")) for line in read if (match := LAG.search(line))]
    reached = processed / seconds
    print(
        f"bench live: pgbench {processed:,} transactions in {seconds} s = {reached:,.1f}/s of {rate}/s "
        f"({reached / rate:.1%}{'' if reached >= 0.98 * rate else ': below 98 %, the run does not count'}); "
        f"{len(read)} cycles read its transactions, lag at most {max(lags, default=0):,.1f} s; "
        + (
            f"the cycle that applied its last transaction ended {caught_up - traffic_ended:,.1f} s after it"
            if caught_up is not None
            else "its last transaction was applied before it exited, or never"
        )
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=int, default=500, help="pgbench transactions per second")
    parser.add_argument("--seconds", type=int, default=300, help="how long pgbench runs")
    arguments = parser.parse_args()
    main(arguments.rate, arguments.seconds)
