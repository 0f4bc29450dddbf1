"""`python -m lakerep.scenarios.crashing_runner --crash-at N -- <lakerep arguments>`: the lakerep
command line, killed with SIGKILL (with its JVM) just before its N-th SQL statement, if it gets
that far. Start it in a session of its own (its own process group)."""

from __future__ import annotations

import sys

from lakerep import cli
from lakerep.scenarios.crash import CrashInjector, injected


def main(argv: list[str]) -> None:
    if len(argv) < 3 or argv[0] != "--crash-at" or argv[2] != "--":
        sys.exit("usage: python -m lakerep.scenarios.crashing_runner --crash-at N -- <lakerep arguments>")
    with injected(CrashInjector(int(argv[1]), mode="kill")):
        cli.main(argv[3:], standalone_mode=True)


if __name__ == "__main__":
    main(sys.argv[1:])
