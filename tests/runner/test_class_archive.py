"""The class archive (lakerep.class_archive): the profile maps it into the driver's JVM options only
when the runner found one, and the runner points at it only when this environment has made it."""

from __future__ import annotations

from lakerep import class_archive
from lakerep.profile import spark_settings

OPTIONS = "spark.driver.extraJavaOptions"


def test_the_profile_maps_the_archive_only_when_one_is_named():
    named = spark_settings(environment={class_archive.ARCHIVE_VARIABLE: "/venv/archive/abc.jsa"})[OPTIONS]
    assert named.endswith(" -XX:SharedArchiveFile=/venv/archive/abc.jsa -Xlog:cds=off -Xlog:cds+dynamic=off")
    assert "SharedArchiveFile" not in spark_settings(environment={})[OPTIONS]


def test_the_runner_names_the_archive_only_when_it_exists(tmp_path, monkeypatch):
    archive = tmp_path / "made.jsa"
    monkeypatch.setattr(class_archive, "archive_path", lambda: archive)
    environment: dict[str, str] = {}
    class_archive.use_class_archive(environment)
    assert environment == {}  # none made: the JVM loads its classes as before
    archive.write_bytes(b"archive")
    class_archive.use_class_archive(environment)
    assert environment == {class_archive.ARCHIVE_VARIABLE: str(archive)}
    chosen = {class_archive.ARCHIVE_VARIABLE: "/elsewhere.jsa"}
    class_archive.use_class_archive(chosen)
    assert chosen == {class_archive.ARCHIVE_VARIABLE: "/elsewhere.jsa"}  # a choice of the user's stays


def test_another_pyspark_delta_or_jdk_names_another_archive(monkeypatch):
    import pyspark

    class_archive.archive_path.cache_clear()
    first = class_archive.archive_path()
    class_archive.archive_path.cache_clear()
    monkeypatch.setattr(pyspark, "__version__", pyspark.__version__ + ".other")
    try:
        assert class_archive.archive_path() != first and class_archive.archive_path().parent == first.parent
    finally:
        class_archive.archive_path.cache_clear()
