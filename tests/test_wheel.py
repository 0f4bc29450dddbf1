"""The built wheel holds every package and module of lakerep/ and the package data that the runtime
reads (issue 25): a hand-kept package list once left lakerep.scenarios out of the wheel.

The wheel is built offline with this venv's setuptools (pip --no-build-isolation --no-index) from a
copy of what a build reads (pyproject.toml, the readme, lakerep/), so that the build's build/ and
lakerep.egg-info/ land in a temporary folder, not in the checkout, and no stale build/ of the
checkout can put into the wheel what discovery left out. Each module is then imported in a
subprocess that sees only the unpacked wheel (with the two project declarations that some modules
read on import beside it) and the venv's dependencies, from a folder outside the checkout. No Spark:
importing lakerep's modules must not start it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from lakerep.registrations import DECLARATION_PATH as REGISTRATIONS_PATH
from lakerep.subscriptions import DECLARATION_PATH as SUBSCRIPTIONS_PATH

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "lakerep"
DEMO_DATA = sorted(path.relative_to(REPO).as_posix() for path in (PACKAGE / "demo").glob("*.yml"))
# lakerep runs next to its dbt project (PROJECT_DIR, the folder above the package), whose files are
# not in the wheel by design. lakerep.scenarios.driver and .checks read these two declarations when
# imported, so the import test lays them beside the unpacked package, as a checkout has them.
PROJECT_FILES_READ_ON_IMPORT = (SUBSCRIPTIONS_PATH, REGISTRATIONS_PATH)

# Runs in the subprocess: argv[1] the unpacked wheel, argv[2:] the modules to import. Prints JSON.
IMPORT_EVERY_MODULE = """
import importlib, json, sys
from pathlib import Path

unpacked = Path(sys.argv[1]).resolve()
# The venv's editable install of lakerep (make install) adds a finder that maps lakerep to the
# checkout: dropped, so that a module missing from the wheel is not found there instead.
sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, "__module__", "").startswith("__editable__")]
failures = {}
for name in sys.argv[2:]:
    try:
        module = importlib.import_module(name)
    except BaseException as error:
        failures[name] = f"{type(error).__name__}: {error}"
        continue
    origin = Path(module.__file__).resolve() if getattr(module, "__file__", None) else None
    if origin is None or not origin.is_relative_to(unpacked):
        failures[name] = f"imported from {origin}, not from the wheel"

demo_unit_tests = []
if "lakerep.scaffold" not in failures:
    scaffold = importlib.import_module("lakerep.scaffold")
    demo_unit_tests = [demo.source.resolve() for demo in scaffold.DEMO_UNIT_TESTS]

spark_started = False
if "pyspark" in sys.modules:
    from pyspark import SparkContext

    spark_started = SparkContext._active_spark_context is not None or SparkContext._gateway is not None
print(json.dumps({
    "failures": failures,
    "demo_unit_tests": [str(path) for path in demo_unit_tests],
    "demo_unit_tests_readable": bool(demo_unit_tests) and all(path.is_file() for path in demo_unit_tests),
    "spark_started": spark_started,
}))
"""


def source_modules() -> list[str]:
    """Every package (a folder with __init__.py) and module (a .py file) of the source tree."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(REPO).with_suffix("").parts
        if "__pycache__" in parts:
            continue
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def build_inputs() -> list[Path]:
    """What the build reads: pyproject.toml, the readme it names and the package tree."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    readme = project.get("readme")
    readme = readme.get("file") if isinstance(readme, dict) else readme
    return [REPO / "pyproject.toml", *([REPO / readme] if readme else []), PACKAGE]


@pytest.fixture(scope="module")
def unpacked_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = tmp_path_factory.mktemp("source")
    for path in build_inputs():
        if path.is_dir():
            shutil.copytree(path, source / path.name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(path, source / path.name)
    dist = tmp_path_factory.mktemp("dist")
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
         "--check-build-dependencies", "--no-cache-dir", "--disable-pip-version-check", "--quiet",
         "--wheel-dir", str(dist), str(source)],
        capture_output=True, text=True, timeout=120, env={**os.environ, "PIP_NO_INPUT": "1"},
    )  # fmt: skip
    assert build.returncode == 0, f"building the wheel failed:\n{build.stdout}\n{build.stderr}"
    (wheel,) = dist.glob("lakerep-*.whl")
    unpacked = tmp_path_factory.mktemp("unpacked")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(unpacked)
    return unpacked


def test_the_wheel_holds_every_module_and_the_demo_data(unpacked_wheel: Path):
    in_wheel = {path.relative_to(unpacked_wheel).as_posix() for path in unpacked_wheel.rglob("*")}
    in_source = {
        path.relative_to(REPO).as_posix() for path in PACKAGE.rglob("*.py") if "__pycache__" not in path.parts
    }
    assert DEMO_DATA, "lakerep/demo/*.yml: the demo's unit tests are package data"
    missing = sorted((in_source | set(DEMO_DATA)) - in_wheel)
    assert not missing, f"missing from the wheel (see pyproject.toml, [tool.setuptools.*]): {missing}"
    for name in DEMO_DATA:
        assert (unpacked_wheel / name).read_bytes() == (REPO / name).read_bytes(), name


def test_every_module_imports_from_the_wheel_alone(unpacked_wheel: Path, tmp_path: Path):
    modules = source_modules()
    for relative in PROJECT_FILES_READ_ON_IMPORT:
        (unpacked_wheel / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / relative, unpacked_wheel / relative)
    assert {"lakerep", "lakerep.scenarios", "lakerep.sources", "lakerep.workload"} <= set(modules)
    environment = {
        **{name: value for name, value in os.environ.items() if not name.startswith("PYTHON")},
        "PYTHONPATH": str(unpacked_wheel),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    result = subprocess.run(
        [sys.executable, "-c", IMPORT_EVERY_MODULE, str(unpacked_wheel), *modules],
        cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, f"the import subprocess failed:\n{result.stdout}\n{result.stderr}"
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["failures"] == {}, "modules that do not import from the wheel alone:\n" + "\n".join(
        f"  {name}: {failure}" for name, failure in report["failures"].items()
    )
    assert report["demo_unit_tests_readable"], report["demo_unit_tests"]
    assert all(Path(path).is_relative_to(unpacked_wheel.resolve()) for path in report["demo_unit_tests"])
    assert not report["spark_started"], "importing lakerep's modules started Spark"
