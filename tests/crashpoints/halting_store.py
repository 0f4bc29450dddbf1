"""The test-only Delta log store that kills a runner at its N-th durable event
(HaltingLogStore.java), compiled into a jar once per version of its source, and the environment
that puts it in a runner's JVM with no product change: the jar joins Delta's jars in the profile's
`spark.jars` (LAKEREP_DELTA_JARS), so that the store and Delta's HDFSLogStore, which it extends,
come from one class loader, and the JVM's own class path stays the one its class archive was made
for (lakerep.class_archive: a JVM on another class path starts without the archive, and loads every
class again). Delta reads `spark.delta.logStore.class` from the JVM's static configuration, so the
store's name goes in through PYSPARK_SUBMIT_ARGS."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pyspark
from crashpoints.journal import AT_VARIABLE, JOURNAL_VARIABLE, OBSERVER

from lakerep import PROJECT_DIR
from lakerep.delta_jars import JARS_VARIABLE, resolved_delta_jars
from lakerep.durable import OBSERVER_VARIABLE

SOURCE = Path(__file__).with_name("HaltingLogStore.java")
STORE_CLASS = "lakerep.crashpoints.HaltingLogStore"
CLASSES_HOME = PROJECT_DIR / ".venv" / "crashpoint-classes"
JAR_NAME = "halting-log-store.jar"


def storage_jar() -> Path:
    """Delta's storage jar (io.delta.storage.HDFSLogStore), which the store extends."""
    jars = [jar for jar in resolved_delta_jars() if "delta-storage" in jar.name]
    if not jars:
        raise RuntimeError("Delta's jars are not resolved yet: run `make install` (lakerep.delta_jars)")
    return jars[0]


def store_classes() -> Path:
    """The folder of the compiled store and its jar, made now when this version of its source has
    none."""
    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]
    classes = CLASSES_HOME / f"{digest}-jar"
    if not (classes / JAR_NAME).is_file():
        hadoop = sorted((Path(pyspark.__file__).parent / "jars").glob("hadoop-client-api-*.jar"))
        class_path = os.pathsep.join(str(jar) for jar in [storage_jar(), *hadoop])
        CLASSES_HOME.mkdir(parents=True, exist_ok=True)
        # A folder of this process's own: two test workers may compile at once.
        building = Path(tempfile.mkdtemp(prefix=f"{digest}.", dir=CLASSES_HOME))
        subprocess.run(
            ["javac", "--release", "17", "-cp", class_path, "-d", str(building), str(SOURCE)],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
        packed = ["jar", "--create", "--file", str(building / JAR_NAME), "-C", str(building), "lakerep"]
        subprocess.run(packed, check=True, capture_output=True, text=True)
        try:
            building.rename(classes)
        except OSError:  # the other worker's is in place: the same source, the same classes
            shutil.rmtree(building)
    return classes


def store_jar() -> Path:
    """The compiled store as a jar, for `spark.jars`."""
    return store_classes() / JAR_NAME


def halting_environment(journal: Path, at: int | None = None) -> dict[str, str]:
    """The variables of a runner whose durable steps (Delta commits in its JVM, its own files and
    slot confirmations in Python: crashpoints.journal) are journaled to `journal`, and which is
    killed at step event `at` (None: never)."""
    variables = {**halting_capable_environment(), JOURNAL_VARIABLE: str(journal)}
    if at is not None:
        variables[AT_VARIABLE] = str(at)
    return variables


def halting_capable_environment() -> dict[str, str]:
    """The variables of a process with the log store and the observer in place and no journal
    yet: one that sets the journal later (crashpoints.next_run)."""
    jars = ",".join(str(jar) for jar in [*resolved_delta_jars(), store_jar()])
    return {
        JARS_VARIABLE: jars,
        "PYSPARK_SUBMIT_ARGS": f"--conf spark.delta.logStore.class={STORE_CLASS} pyspark-shell",
        OBSERVER_VARIABLE: OBSERVER,  # the runner's own durable steps, in the same journal
    }
