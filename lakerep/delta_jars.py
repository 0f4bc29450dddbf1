"""Delta Lake's jars, resolved through Ivy once and then taken from where Ivy keeps them.

The profile asks Spark for Delta as a Maven package (`spark.jars.packages`), which makes every JVM
start run an Ivy resolution: a second or two and about 90 lines of output (with "Host ... not
found" for every repository it cannot reach). Once one start has resolved it, Delta's jars lie in
Ivy's jars folder; from then on the runner hands Spark those files (`spark.jars`, through the
variable LAKEREP_DELTA_JARS that the profile reads) and no resolution runs. A missing jar, another
Ivy folder or another Delta version simply resolves again.

Only Delta's own jars are taken, not the rest of what Ivy resolves with them (Hadoop's client,
Parquet, Jackson, log4j): Spark ships those itself, and a second copy on the class path could
only shadow Spark's (the cluster's class paths have held Delta's jars alone since ADR 0010).
"""

from __future__ import annotations

import os
from pathlib import Path

JARS_VARIABLE = "LAKEREP_DELTA_JARS"
DELTA_PACKAGE = "io.delta:delta-spark_4.2_2.13:4.4.0"
"""The Maven coordinate of Delta Lake for this Spark: the profile's `spark.jars.packages` when the
jars are not resolved yet (profiles/profiles.yml names it too)."""


def ivy_jars_folder(environment: dict | None = None) -> Path:
    """Where Spark's Ivy resolution leaves the jars it fetched (Spark 4's default `spark.jars.ivy`)."""
    variables = os.environ if environment is None else environment
    return Path(variables.get("HOME", str(Path.home()))) / ".ivy2.5.2" / "jars"


def resolved_delta_jars(package: str = DELTA_PACKAGE, environment: dict | None = None) -> list[Path]:
    """Delta's jars of `package`'s version in Ivy's jars folder, delta-spark first, or [] while the
    package has not been resolved there."""
    group, artifact, version = package.split(":")
    folder = ivy_jars_folder(environment)
    main = folder / f"{group}_{artifact}-{version}.jar"
    if not main.is_file():
        return []
    others = sorted(jar for jar in folder.glob(f"{group}_*-{version}.jar") if jar != main and jar.is_file())
    return [main, *others]


def use_resolved_delta_jars(environment: dict | None = None) -> None:
    """Point the profile at Delta's resolved jars (LAKEREP_DELTA_JARS), unless it is set already
    or nothing is resolved yet: then the JVM resolves the package, as before, for the next start."""
    variables = os.environ if environment is None else environment
    if variables.get(JARS_VARIABLE):
        return
    jars = resolved_delta_jars(environment=variables)
    if jars:
        variables[JARS_VARIABLE] = ",".join(str(jar) for jar in jars)


def resolve_delta_jars() -> list[Path]:
    """Resolve Delta's package through Ivy once, unless it lies resolved already: `make install`
    calls it, so that no two JVMs of the tests (or of a demo beside them) ever resolve it at
    once. Two resolutions into one empty Ivy cache race on its files, and both fail."""
    jars = resolved_delta_jars()
    if jars:
        return jars
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[1]")
        .appName("lakerep-resolve-delta")
        .config("spark.jars.packages", DELTA_PACKAGE)
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    spark.stop()
    jars = resolved_delta_jars()
    if not jars:
        raise SystemExit(f"Ivy did not leave {DELTA_PACKAGE}'s jars in {ivy_jars_folder()}")
    return jars


if __name__ == "__main__":
    print("Delta's jars:", ", ".join(jar.name for jar in resolve_delta_jars()))
