"""A bad registration declaration (models/staging/_registrations__sources.yml) is refused with one
line naming the file, the table and what is wrong, before anything is written.

Names of the declaration reach SQL and file paths raw (generated stubs, `cast(... as <type>)`,
backquoted columns); before validation a table `/../../../../evil` made `lakerep scaffold` write
outside the project, `SAL'ES` failed with a SQL syntax error, `S.T` and `s.T` shared one CD stub,
`ccd_condensed: 'false'` read as true, `key_columns: id` as the keys `i` and `d`, and a missing
key or a YAML error gave a traceback.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from lakerep import PROJECT_DIR
from lakerep.registrations import DECLARATION_PATH, RegistrationError, load_registrations
from lakerep.scaffold import APPLY_CONTRACTS_FILE, CONTRACTS_FILE, scaffold
from lakerep.subscriptions import DECLARATION_PATH as SUBSCRIPTIONS_PATH

NAME_RULE = "letters, digits and underscores, starting with a letter or underscore, at most 128 characters"
TYPE_RULE = (
    "one of string, tinyint, smallint, int, integer, bigint, float, double, boolean, date, "
    "timestamp, or decimal(p,s) with 1 <= p <= 38 and 0 <= s <= p"
)
KNOWN_KEYS = (
    "source_owner, source_table, key_columns, before_image_prefix, key_updates_as_delete_insert, "
    "ccd_condensed, ccd_complete, disable_refresh"
)
# What must never pass through a name: each breaks a SQL string, a backquoted identifier, a
# Jinja literal or a generated file's one line.
UNSAFE = ["SAL'ES", "A\\B", "A`B", "A\nB"]


def table(columns: list | None = None, **lakerep) -> dict:
    """A valid registered table S.T (keys id), with `lakerep` overriding its meta.lakerep keys;
    a key whose value is `...` is left out."""
    meta = {"source_owner": "S", "source_table": "T", "key_columns": ["id"], **lakerep}
    return {
        "name": "t",
        "config": {"meta": {"lakerep": {key: value for key, value in meta.items() if value is not ...}}},
        "columns": columns if columns is not None else [{"name": "id", "data_type": "int"}],
    }


def declaration_text(*tables: dict, registered: object = True) -> str:
    source = {"name": "s", "config": {"meta": {"lakerep_registered": registered}}, "tables": list(tables)}
    return yaml.safe_dump({"version": 2, "sources": [source]}, sort_keys=False)


def declare(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "registrations.yml"
    path.write_text(text, encoding="utf-8")
    return path


def refusal(path: Path) -> str:
    with pytest.raises(RegistrationError) as error:
        load_registrations(path)
    message = str(error.value)
    assert "\n" not in message
    return message


def name_cases() -> list:
    """Every kind of name with every unsafe value, and the line that refuses it."""
    cases = []
    for value in [*UNSAFE, "../../x", "", "1ST", "x" * 129]:
        rule = f"is not a name ({NAME_RULE})"
        cases += [
            (table(source_owner=value), f"table t: source_owner {value!r} {rule}"),
            (table(source_table=value), f"table t: source_table {value!r} {rule}"),
            (
                table([{"name": "id", "data_type": "int"}, {"name": value, "data_type": "int"}]),
                f"S.T: column name {value!r} {rule}",
            ),
            (table(key_columns=["id", value]), f"S.T: key column {value!r} {rule}"),
            (table(before_image_prefix=value), f"S.T: before_image_prefix {value!r} {rule}"),
        ]
    for value in ["int'", "int\\", "int`", "int\n", "int) as x, (1", "varchar(10)", "decimal", ""]:
        cases.append(
            (
                table([{"name": "id", "data_type": value}]),
                f"S.T: column id: data_type {value!r} is not a supported type ({TYPE_RULE})",
            )
        )
    return cases


@pytest.mark.parametrize(("declared", "problem"), name_cases())
def test_a_name_or_type_that_is_not_safe_is_refused(tmp_path, declared, problem):
    path = declare(tmp_path, declaration_text(declared))
    assert refusal(path) == f"{path}: {problem}"


@pytest.mark.parametrize(
    "data_type",
    ["decimal(0,0)", "decimal(39,2)", "decimal(5,6)", "decimal(12,\n2)", "decimal(12,-1)", " int"],
)
def test_a_decimal_out_of_bounds_or_a_type_spelt_loosely_is_refused(tmp_path, data_type):
    path = declare(tmp_path, declaration_text(table([{"name": "id", "data_type": data_type}])))
    assert refusal(path) == (
        f"{path}: S.T: column id: data_type {data_type!r} is not a supported type ({TYPE_RULE})"
    )


@pytest.mark.parametrize(
    "data_type", ["decimal(38,38)", "decimal(1,0)", "Decimal(12, 2)", "BIGINT", "boolean"]
)
def test_supported_types_are_accepted(tmp_path, data_type):
    path = declare(tmp_path, declaration_text(table([{"name": "id", "data_type": data_type}])))
    assert load_registrations(path)["S.T"].columns[0].data_type == data_type


@pytest.mark.parametrize(
    ("declared", "problem"),
    [
        (table(ccd_condensed="false"), "S.T: ccd_condensed must be true or false, not 'false'"),
        (table(ccd_complete=1), "S.T: ccd_complete must be true or false, not 1"),
        (table(disable_refresh=None), "S.T: disable_refresh must be true or false, not None"),
        (
            table(key_updates_as_delete_insert="yes"),
            "S.T: key_updates_as_delete_insert must be true or false, not 'yes'",
        ),
        (table(key_columns="id"), "S.T: key_columns must be a non-empty list of column names, not 'id'"),
        (table(key_columns=[]), "S.T: key_columns must be a non-empty list of column names, not []"),
        (table(key_columns=["id", "id"]), "S.T: key column id is listed twice"),
        (table(key_columns=["ID"]), "S.T: key columns ['ID'] are not declared columns"),
        (
            table(disable_refesh=True),
            f"table t: meta.lakerep: unknown key 'disable_refesh' (known: {KNOWN_KEYS})",
        ),
        (table(source_owner=...), "table t: meta.lakerep has no source_owner"),
        (table(source_table=...), "table t: meta.lakerep has no source_table"),
        (table(key_columns=...), "S.T: meta.lakerep has no key_columns"),
        (table([{"name": "id"}]), "S.T: column id has no data_type"),
        (table([{"data_type": "int"}]), "S.T: column 1 has no name"),
        (table(["id int"]), "S.T: column 1 must be a mapping with name and data_type, not 'id int'"),
        (table([]), "S.T: columns must be a non-empty list of mappings with name and data_type, not []"),
        (table(source_owner=["S"]), f"table t: source_owner ['S'] is not a name ({NAME_RULE})"),
    ],
)
def test_a_wrong_value_or_a_missing_key_is_refused(tmp_path, declared, problem):
    path = declare(tmp_path, declaration_text(declared))
    assert refusal(path) == f"{path}: {problem}"


def test_the_registered_flag_must_be_a_boolean(tmp_path):
    path = declare(tmp_path, declaration_text(table(), registered="false"))
    assert refusal(path) == f"{path}: source s: lakerep_registered must be true or false, not 'false'"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "is empty"),
        ("# only a comment\n", "is empty"),
        (
            "sources: [\n",
            "not valid YAML: expected the node content, but found '<stream end>' at line 2, column 1",
        ),
        ("a: 1\na: 2\n", "not valid YAML: key 'a' is written twice at line 2, column 1"),
        ("- sources\n", "the document must be a mapping with a sources list, not ['sources']"),
        ("version: 2\n", "sources must be a list, not None"),
        ("sources: {name: s}\n", "sources must be a list, not {'name': 's'}"),
        ("sources: [s]\n", "source 1 must be a mapping, not 's'"),
        (
            "sources: [{name: s, config: {meta: {lakerep_registered: true}}, tables: t}]\n",
            "source s: tables must be a list, not 't'",
        ),
        (
            "sources: [{name: s, config: {meta: {lakerep_registered: true}}, tables: [t]}]\n",
            "source s: table 1 must be a mapping, not 't'",
        ),
        (
            "sources: [{name: s, config: {meta: {lakerep_registered: true}}, "
            "tables: [{name: t, config: {meta: {lakerep: [1]}}}]}]\n",
            "table t: meta.lakerep must be a mapping, not [1]",
        ),
    ],
)
def test_a_file_that_is_not_a_declaration_is_refused(tmp_path, text, problem):
    path = declare(tmp_path, text)
    assert refusal(path) == f"{path}: {problem}"


def test_a_missing_file_is_refused(tmp_path):
    path = tmp_path / "missing.yml"
    assert refusal(path) == f"{path}: cannot be read: No such file or directory"


@pytest.mark.parametrize(
    ("tables", "problem"),
    [
        ([table(), table(source_owner="s")], "S.T and s.T both make the model cd_s__t (cd_<owner>__<table>)"),
        (
            [table(source_owner="S_"), table(source_table="_T")],
            "S_.T and S._T both make the model cd_s___t (cd_<owner>__<table>)",
        ),
        (
            [table(source_owner="O" * 60, source_table="T" * 63)],
            f"{'O' * 60}.{'T' * 63}: CCD model name {'ccd_' + 'o' * 60 + '__' + 't' * 63!r} "
            f"is not a name ({NAME_RULE})",
        ),
    ],
)
def test_registrations_whose_model_names_collide_or_overflow_are_refused(tmp_path, tables, problem):
    path = declare(tmp_path, declaration_text(*tables))
    assert refusal(path) == f"{path}: {problem}"


def columns(*names: str) -> list[dict]:
    return [{"name": name, "data_type": "int"} for name in names]


@pytest.mark.parametrize(
    ("declared", "problem"),
    [
        (table(columns("id", "ID")), "S.T: column ID has the name of column id (column names ignore case)"),
        (
            table(columns("id", "name", "xname"), before_image_prefix="X"),
            "S.T: before-image column Xname has the name of column xname (column names ignore case)",
        ),
        (
            table(columns("id", "b_id", "b_b_id"), before_image_prefix="B_"),
            "S.T: before-image column B_id has the name of column b_id (column names ignore case)",
        ),
        (
            table(columns("id", "landing_batch")),
            "S.T: column landing_batch is a name the generated models use (IBMSNAP_*, apply_cycle, "
            "change_count, change_order, change_rank, conflicts, copy_rank, existed, first_change, "
            "first_commitseq, first_operation, lakerep_deletes_key, landing_batch, mitigated, "
            "operational_error, reworked, row_action)",
        ),
        (table(columns("id", "ibmsnap_commitseq")), "S.T: column ibmsnap_commitseq is a name the generated"),
        (
            table(before_image_prefix="IBMSNAP_"),
            "S.T: before-image column IBMSNAP_id is a name the generated models use",
        ),
        (
            table(columns("id", "c" * 127), before_image_prefix="XY"),
            f"S.T: before-image column name {'XY' + 'c' * 127!r} is not a name ({NAME_RULE})",
        ),
    ],
)
def test_columns_that_collide_are_refused(tmp_path, declared, problem):
    path = declare(tmp_path, declaration_text(declared))
    assert refusal(path).startswith(f"{path}: {problem}")


def test_the_reserved_names_cover_every_column_the_generated_models_add(tmp_path):
    """A column of the generated contracts that is neither declared nor a before image is one
    the models add: declared by a table, it is refused."""
    registrations = load_registrations().values()
    declared = {name.lower() for registration in registrations for name in registration.column_names}
    prefixes = {r.before_image_prefix.lower() for r in registrations if r.before_image_prefix is not None}
    added = set()
    for contracts in (CONTRACTS_FILE, APPLY_CONTRACTS_FILE):
        models = yaml.safe_load((PROJECT_DIR / contracts).read_text(encoding="utf-8"))["models"]
        added |= {column["name"] for model in models for column in model["columns"]}
    added = {
        name
        for name in added
        if name.lower() not in declared
        and not any(name.lower().removeprefix(p) in declared for p in prefixes)
    }
    assert "landing_batch" in added and "IBMSNAP_COMMITSEQ" in added
    for name in sorted(added):
        path = declare(tmp_path, declaration_text(table(columns("id", name))))
        assert "is a name the generated models use" in refusal(path), name


def project_copy(tmp_path: Path) -> Path:
    """The parts of the project `lakerep scaffold` reads and writes, under tmp_path/project."""
    project = tmp_path / "project"
    for part in ("models", "macros"):
        shutil.copytree(PROJECT_DIR / part, project / part)
    shutil.copy2(PROJECT_DIR / SUBSCRIPTIONS_PATH, project / SUBSCRIPTIONS_PATH)
    return project


def files_under(folder: Path) -> dict[Path, bytes | None]:
    return {path: path.read_bytes() if path.is_file() else None for path in sorted(folder.rglob("*"))}


@pytest.mark.parametrize(
    "declared",
    [
        table(source_owner="../../x"),
        table(source_table="/../../../../../evil"),
        table(source_owner="SAL'ES"),
        table([{"name": "id", "data_type": "int) as x, (1"}]),
        table(ccd_condensed="false"),
    ],
)
def test_scaffold_of_a_bad_declaration_writes_nothing(tmp_path, declared):
    project = project_copy(tmp_path)
    (project / DECLARATION_PATH).write_text(declaration_text(declared), encoding="utf-8")
    before = files_under(tmp_path)
    with pytest.raises(RegistrationError, match=f"^{re.escape(str(project / DECLARATION_PATH))}: "):
        scaffold(project)
    assert files_under(tmp_path) == before
