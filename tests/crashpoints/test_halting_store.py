"""The crash points' log store on its own, in a plain JVM (no Spark; part of `make test`): it
journals each commit before and after its file is written, and at event N kills its parent
process, then halts, leaving the commits before N and nothing after."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pyspark
from crashpoints.halting_store import halting_environment, storage_jar, store_classes
from crashpoints.journal import AT_VARIABLE, JOURNAL_VARIABLE

WRITER = """
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import java.util.List;

public class WriteCommits {
    public static void main(String[] arguments) throws Exception {
        var store = new lakerep.crashpoints.HaltingLogStore(new Configuration());
        for (int version = 0; version < 3; version++) {
            var name = String.format("%020d.json", version);
            var commit = new Path("file:" + arguments[0] + "/_delta_log/" + name);
            store.write(commit, List.of("{}").iterator(), false, new Configuration());
        }
    }
}
"""


def write_commits(
    tmp_path: Path, journal: Path, at: int | None, *, as_properties: bool = False
) -> subprocess.CompletedProcess:
    """Three commits written by the store in a JVM whose parent is a Python process of its own
    (the store kills its parent: the runner, in a crash point). The journal and the point go in
    as the environment, or `as_properties`, as system properties (next_run.halt_at's way)."""
    (tmp_path / "table" / "_delta_log").mkdir(parents=True, exist_ok=True)  # Delta makes it first
    source = tmp_path / "WriteCommits.java"
    source.write_text(WRITER)
    jars = Path(pyspark.__file__).parent / "jars" / "*"
    class_path = os.pathsep.join([str(store_classes()), str(storage_jar()), str(jars)])
    settings = halting_environment(journal, at)
    properties = []
    if as_properties:
        named = [name for name in (JOURNAL_VARIABLE, AT_VARIABLE) if name in settings]
        properties = [f"-D{name}={settings.pop(name)}" for name in named]
    java = ["java", *properties, "-cp", class_path, str(source), str(tmp_path / "table")]
    return subprocess.run(
        [sys.executable, "-c", f"import subprocess; subprocess.run({java!r}, check=True)"],
        env={**os.environ, **settings}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def commits(tmp_path: Path) -> list[str]:
    return sorted(path.name for path in (tmp_path / "table" / "_delta_log").glob("*.json"))


def test_without_a_point_every_commit_is_journaled_before_and_after(tmp_path):
    journal = tmp_path / "journal"
    done = write_commits(tmp_path, journal, None)
    assert done.returncode == 0, done.stderr
    assert [line.split()[:2] for line in journal.read_text().splitlines()] == [
        [str(number), phase] for number, phase in enumerate(["before", "after"] * 3, 1)
    ]
    assert commits(tmp_path) == [f"{version:020d}.json" for version in range(3)]


def test_at_its_point_the_parent_is_killed_and_nothing_more_is_written(tmp_path):
    journal = tmp_path / "journal"
    done = write_commits(tmp_path, journal, 3)  # before the second commit
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert len(journal.read_text().splitlines()) == 3
    assert commits(tmp_path) == [f"{0:020d}.json"]


def test_the_journal_and_the_point_can_be_system_properties(tmp_path):
    journal = tmp_path / "journal"
    done = write_commits(tmp_path, journal, 5, as_properties=True)  # before the third commit
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert len(journal.read_text().splitlines()) == 5
    assert commits(tmp_path) == [f"{version:020d}.json" for version in range(2)]
