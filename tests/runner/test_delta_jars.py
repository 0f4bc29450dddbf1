"""Delta's jars are resolved through Ivy once, then handed to Spark as files: no resolution (and
none of its ~90 lines) at every JVM start. No Spark here: the profile is rendered as dbt renders it."""

from __future__ import annotations

from lakerep.delta_jars import DELTA_PACKAGE, JARS_VARIABLE, resolved_delta_jars, use_resolved_delta_jars
from lakerep.profile import spark_settings


def ivy_jars(home, *names):
    folder = home / ".ivy2.5.2" / "jars"
    folder.mkdir(parents=True)
    for name in names:
        (folder / name).write_bytes(b"")
    return folder


def test_nothing_is_resolved_before_ivy_has_fetched_delta(tmp_path):
    ivy_jars(tmp_path, "io.delta_delta-storage-4.4.0.jar")  # no delta-spark: resolve again
    environment = {"HOME": str(tmp_path)}
    assert resolved_delta_jars(environment=environment) == []
    use_resolved_delta_jars(environment)
    assert JARS_VARIABLE not in environment


def test_deltas_own_jars_of_its_version_are_taken_delta_spark_first(tmp_path):
    folder = ivy_jars(
        tmp_path,
        "io.delta_delta-storage-4.4.0.jar",
        "io.delta_delta-spark_4.2_2.13-4.4.0.jar",
        "io.delta_delta-kernel-api-4.4.0.jar",
        "io.delta_delta-storage-4.3.0.jar",  # another version
        "org.apache.hadoop_hadoop-client-api-3.4.2.jar",  # Spark ships its own
    )
    environment = {"HOME": str(tmp_path)}
    use_resolved_delta_jars(environment)
    assert environment[JARS_VARIABLE].split(",") == [
        str(folder / "io.delta_delta-spark_4.2_2.13-4.4.0.jar"),
        str(folder / "io.delta_delta-kernel-api-4.4.0.jar"),
        str(folder / "io.delta_delta-storage-4.4.0.jar"),
    ]


def test_a_jar_list_given_is_kept(tmp_path):
    ivy_jars(tmp_path, "io.delta_delta-spark_4.2_2.13-4.4.0.jar")
    environment = {"HOME": str(tmp_path), JARS_VARIABLE: "/opt/delta.jar"}
    use_resolved_delta_jars(environment)
    assert environment[JARS_VARIABLE] == "/opt/delta.jar"


def test_the_profile_asks_for_the_package_until_the_jars_are_given():
    settings = spark_settings("local", {})
    assert (settings["spark.jars.packages"], settings["spark.jars"]) == (DELTA_PACKAGE, "")
    jars = "/a/delta-spark.jar,/a/delta-storage.jar"
    settings = spark_settings("local", {JARS_VARIABLE: jars})
    assert (settings["spark.jars.packages"], settings["spark.jars"]) == ("", jars)
