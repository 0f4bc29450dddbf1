"""The per-table models and contracts agree with the one registration declaration."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from lakerep import PROJECT_DIR
from lakerep.registrations import DECLARATION_PATH as REGISTRATIONS_PATH
from lakerep.registrations import load_registrations
from lakerep.scaffold import (
    APPLY_CONTRACTS_FILE,
    CONTRACTS_FILE,
    GENERATED_DIRS,
    before_image_columns,
    ccd_model_name,
    cd_model_name,
    scaffold,
)
from lakerep.subscriptions import DECLARATION_PATH as SUBSCRIPTIONS_PATH


def test_generated_files_match_the_declaration():
    assert scaffold(check=True) == [], "run `lakerep scaffold`"


def test_a_new_registration_gets_its_models_and_a_removed_one_loses_them(tmp_path: Path):
    project = tmp_path / "project"
    (project / "models/capture/cd").mkdir(parents=True)
    (project / "models/capture/cd/cd_gone__table.sql").write_text("-- stale\n")
    for declaration in (REGISTRATIONS_PATH, SUBSCRIPTIONS_PATH):
        (project / declaration).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(PROJECT_DIR / declaration, project / declaration)
    written = scaffold(project)
    registrations = load_registrations()
    for registration in registrations.values():
        assert (project / "models/capture/cd" / f"{cd_model_name(registration)}.sql").exists()
        assert (project / "models/capture/ccd" / f"{ccd_model_name(registration)}.sql").exists()
    assert not (project / "models/capture/cd/cd_gone__table.sql").exists()
    assert Path("models/capture/cd/cd_gone__table.sql") in written


def test_each_generated_models_description_names_the_macro_that_holds_its_logic():
    """Issue 25: an analyst reading the docs knows where to look."""
    logic_in = re.compile(r"Its logic is in macro (\w+) \((macros/\w+/\w+\.sql)\)\.$")
    described = {}
    for contracts in (CONTRACTS_FILE, APPLY_CONTRACTS_FILE):
        for model in yaml.safe_load((PROJECT_DIR / contracts).read_text(encoding="utf-8"))["models"]:
            described[model["name"]] = " ".join(model["description"].split())
    stubs = [
        path
        for folder in GENERATED_DIRS
        if folder.parts[0] == "models"
        for path in (PROJECT_DIR / folder).glob("*.sql")
    ]
    assert stubs and {stub.stem for stub in stubs} <= set(described)
    for stub in stubs:
        named = logic_in.search(described[stub.stem])
        assert named, f"{stub.stem}: its description names no macro file: {described[stub.stem]!r}"
        macro, macro_file = named.groups()
        assert Path(macro_file).stem == macro
        assert re.search(
            rf"{{%-?\s*macro\s+{macro}\(", (PROJECT_DIR / macro_file).read_text(encoding="utf-8")
        ), f"{stub.stem}: {macro_file} does not define {macro}"
        assert f"{{{{ {macro}(" in stub.read_text(encoding="utf-8"), f"{stub.stem} does not call {macro}"


def test_contracts_declare_every_registered_column_with_its_type():
    contracts = yaml.safe_load((PROJECT_DIR / CONTRACTS_FILE).read_text(encoding="utf-8"))
    models = {model["name"]: model for model in contracts["models"]}
    for registration in load_registrations().values():
        cd_columns = {c["name"]: c["data_type"] for c in models[cd_model_name(registration)]["columns"]}
        for column in registration.columns:
            assert cd_columns[column.name] == column.data_type
        for name, data_type in before_image_columns(registration):
            assert cd_columns[name] == data_type
        ccd_columns = {c["name"]: c["data_type"] for c in models[ccd_model_name(registration)]["columns"]}
        assert {column.name for column in registration.columns} <= set(ccd_columns)


def test_a_project_without_the_demos_tables_parses(tmp_path: Path):
    """Issue 23: a user's own tables instead of the demo's; the demo's unit tests go with them."""
    from lakerep.bench_wide import copy_project
    from lakerep.scaffold import DEMO_UNIT_TESTS

    project = copy_project(tmp_path / "project")
    demo_files = [demo.generated for demo in DEMO_UNIT_TESTS]
    assert all((project / path).exists() for path in demo_files)
    accounts = {
        "name": "accounts",
        "config": {"meta": {"lakerep": {
            "source_owner": "public", "source_table": "accounts", "key_columns": ["aid"],
            "before_image_prefix": None, "key_updates_as_delete_insert": True,
        }}},
        "columns": [{"name": "aid", "data_type": "int"}, {"name": "abalance", "data_type": "int"}],
    }  # fmt: skip
    registered = {"name": "public", "schema": "public", "config": {"meta": {"lakerep_registered": True}}}
    (project / REGISTRATIONS_PATH).write_text(
        yaml.safe_dump({"version": 2, "sources": [{**registered, "tables": [accounts]}]})
    )
    member = {"source": "public.accounts", "target": "accounts_copy", "structure": "user_copy"}
    sets = [{"set_name": "BANK", "on_operational_error": "stop", "members": [member]}]
    (project / SUBSCRIPTIONS_PATH).write_text(
        yaml.safe_dump({"apply_qualifiers": [{"apply_qual": "APPLY1", "sets": sets}]})
    )

    written = scaffold(project)
    assert set(demo_files) <= set(written)
    assert not any((project / path).exists() for path in demo_files)
    assert not list((project / "models/capture/cd").glob("cd_sales__*"))
    parsed = subprocess.run(
        [str(Path(sys.executable).parent / "dbt"), "parse", "--project-dir", str(project),
         "--profiles-dir", str(project / "profiles"), "--target-path", str(tmp_path / "target"),
         "--log-path", str(tmp_path / "logs")],
        capture_output=True, text=True, check=False,
        env={**os.environ, "LAKEREP_HOME": str(tmp_path / "lake")},
    )  # fmt: skip
    assert parsed.returncode == 0, parsed.stdout[-3000:]
