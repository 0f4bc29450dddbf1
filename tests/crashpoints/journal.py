"""The runner's side of the crash points' journal: lakerep.durable calls observe() around each of
the runner's own durable steps (its files, a slot's confirmation) when LAKEREP_DURABLE_OBSERVER
names it. The steps go in the journal the log store (HaltingLogStore.java) writes the Delta
commits to, numbered in one sequence with them; at the step numbered LAKEREP_CRASHPOINT_AT the
runner and its JVM (its process group: the test starts the runner in a session of its own) are
killed, as kill -9 would, and nothing of either runs after."""

from __future__ import annotations

import os
import signal
from pathlib import Path

OBSERVER = "crashpoints.journal:observe"
# The journal's settings, read here and by HaltingLogStore.java (which takes them from system
# properties of the same names first).
JOURNAL_VARIABLE = "LAKEREP_CRASHPOINT_JOURNAL"
AT_VARIABLE = "LAKEREP_CRASHPOINT_AT"


def observe(moment: str, what: str) -> None:
    journal = os.environ.get(JOURNAL_VARIABLE)
    if not journal:
        return
    path = Path(journal)
    number = len(path.read_text(encoding="utf-8").splitlines()) + 1 if path.exists() else 1
    with path.open("a", encoding="utf-8") as out:
        out.write(f"{number} {moment} {what}\n")
        out.flush()
        os.fsync(out.fileno())
    if os.environ.get(AT_VARIABLE) == str(number):
        os.killpg(os.getpgid(0), signal.SIGKILL)
