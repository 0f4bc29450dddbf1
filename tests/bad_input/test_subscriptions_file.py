"""A bad subscriptions.yml is refused with one line naming the file, the set or member and what
is wrong, before `lakerep scaffold` writes anything.

Before validation a target `orders_h<newline>` passed the name check (`re.match` with `$`), a
target named `apply_plan` collided with the model of that name, a `row_filter` or a misspelt
`on_operational_eror` was silently ignored, and a member written as a string, an empty file or a
YAML error gave a traceback.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from lakerep import PROJECT_DIR
from lakerep.scaffold import scaffold
from lakerep.subscriptions import DECLARATION_PATH, SubscriptionError, load_members

NAME_RULE = "letters, digits and underscores, starting with a letter, at most 128 characters"
UNSAFE = ["orders_h\n", "it's", "a\\b", "a`b", "../x", "", "x" * 129]


def member(**fields) -> dict:
    """A valid member (SALES.ORDERS as a CCD target t1), with `fields` overriding its keys."""
    return {"source": "SALES.ORDERS", "target": "t1", "structure": "ccd", **fields}


def document(*members: object, set_name: object = "S1", apply_qual: object = "Q1", **set_options) -> dict:
    subscription_set = {"set_name": set_name, **set_options, "members": list(members)}
    return {"apply_qualifiers": [{"apply_qual": apply_qual, "sets": [subscription_set]}]}


def declare(tmp_path: Path, declared: dict | str) -> Path:
    path = tmp_path / "subscriptions.yml"
    text = declared if isinstance(declared, str) else yaml.safe_dump(declared, sort_keys=False)
    path.write_text(text, encoding="utf-8")
    return path


def refusal(path: Path) -> str:
    with pytest.raises(SubscriptionError) as error:
        load_members(path)
    message = str(error.value)
    assert "\n" not in message
    return message


def name_cases() -> list:
    cases = []
    for value in UNSAFE:
        rule = f"is not a name ({NAME_RULE})"
        cases += [
            (document(member(), apply_qual=value), f"apply qualifier 1: apply_qual {value!r} {rule}"),
            (document(member(), set_name=value), f"apply qualifier Q1: set 1: set_name {value!r} {rule}"),
            (document(member(target=value)), f"set Q1.S1: member 1: target {value!r} {rule}"),
        ]
    return cases


@pytest.mark.parametrize(("declared", "problem"), name_cases())
def test_a_name_that_is_not_safe_is_refused(tmp_path, declared, problem):
    path = declare(tmp_path, declared)
    assert refusal(path) == f"{path}: {problem}"


@pytest.mark.parametrize(
    ("declared", "problem"),
    [
        (
            document(member(target="apply_plan")),
            "set Q1.S1: target apply_plan collides with the model models/apply/apply_plan.sql",
        ),
        (
            document(member(target="stg_lakerep_raw__source_log")),
            "set Q1.S1: target stg_lakerep_raw__source_log collides with the model "
            "models/staging/stg_lakerep_raw__source_log.sql",
        ),
        (
            document(member(target="cd_sales__orders")),
            "set Q1.S1: target cd_sales__orders collides with the CD view of SALES.ORDERS",
        ),
        (
            document(member(target="ccd_inventory__stock")),
            "set Q1.S1: target ccd_inventory__stock collides with the CCD view of INVENTORY.STOCK",
        ),
        (
            document(member(target="captured_log")),
            "set Q1.S1: target captured_log collides with the model models/capture/captured_log.sql",
        ),
    ],
)
def test_a_target_named_like_another_model_is_refused(tmp_path, declared, problem):
    path = declare(tmp_path, declared)
    assert refusal(path) == f"{path}: {problem}"


@pytest.mark.parametrize(
    ("declared", "problem"),
    [
        (
            document(member(row_filter="status = 'PAID'")),
            "set Q1.S1: member 1: unknown key 'row_filter' (known: source, target, structure, columns)",
        ),
        (
            document(member(), on_operational_eror="continue"),
            "apply qualifier Q1: set 1: unknown key 'on_operational_eror' "
            "(known: set_name, on_operational_error, members)",
        ),
        (
            {"apply_qualifiers": [{"apply_qual": "Q1", "set": []}]},
            "apply qualifier 1: unknown key 'set' (known: apply_qual, sets)",
        ),
        ({"apply_qualifier": []}, "the document: unknown key 'apply_qualifier' (known: apply_qualifiers)"),
    ],
)
def test_an_unknown_key_is_refused_naming_the_known_ones(tmp_path, declared, problem):
    path = declare(tmp_path, declared)
    assert refusal(path) == f"{path}: {problem}"


@pytest.mark.parametrize(
    ("declared", "problem"),
    [
        (
            document("SALES.ORDERS -> t1"),
            "set Q1.S1: member 1 must be a mapping (source, target, structure, columns), "
            "not 'SALES.ORDERS -> t1'",
        ),
        (
            document(member(source=["SALES.ORDERS"])),
            "set Q1.S1: source ['SALES.ORDERS'] is not a registered table",
        ),
        (
            document(member(source="SALES.ORDERS\n")),
            "set Q1.S1: source 'SALES.ORDERS\\n' is not a registered table",
        ),
        (
            {"apply_qualifiers": [{"apply_qual": "Q1", "sets": "S1"}]},
            "apply qualifier Q1: sets must be a list, not 'S1'",
        ),
        (
            {"apply_qualifiers": [{"apply_qual": "Q1", "sets": [{"set_name": "S1", "members": None}]}]},
            "set Q1.S1: members must be a list, not None",
        ),
        (
            {"apply_qualifiers": {"apply_qual": "Q1"}},
            "apply_qualifiers must be a list, not {'apply_qual': 'Q1'}",
        ),
        ({}, "apply_qualifiers must be a list, not None"),
        ("", "is empty"),
        ("# nothing yet\n", "is empty"),
        ("- APPLY1\n", "the document must be a mapping (apply_qualifiers), not ['APPLY1']"),
        (
            "apply_qualifiers: [\n",
            "not valid YAML: expected the node content, but found '<stream end>' at line 2, column 1",
        ),
        (
            "apply_qualifiers:\n  - apply_qual: Q1\n    apply_qual: Q2\n    sets: []\n",
            "not valid YAML: key 'apply_qual' is written twice at line 3, column 5",
        ),
    ],
)
def test_a_file_of_the_wrong_shape_is_refused(tmp_path, declared, problem):
    path = declare(tmp_path, declared)
    assert refusal(path) == f"{path}: {problem}"


def test_an_empty_list_of_qualifiers_declares_no_members(tmp_path):
    assert load_members(declare(tmp_path, {"apply_qualifiers": []})) == []


def project_copy(tmp_path: Path) -> Path:
    """The parts of the project `lakerep scaffold` reads and writes, under tmp_path/project."""
    project = tmp_path / "project"
    for part in ("models", "macros"):
        shutil.copytree(PROJECT_DIR / part, project / part)
    shutil.copy2(PROJECT_DIR / DECLARATION_PATH, project / DECLARATION_PATH)
    return project


def files_under(folder: Path) -> dict[Path, bytes | None]:
    return {path: path.read_bytes() if path.is_file() else None for path in sorted(folder.rglob("*"))}


ORDERS_COLUMNS = "order_id, customer_id, order_date, status, total, note"


@pytest.mark.parametrize(
    ("columns", "problem"),
    [
        ("status", "columns must be a list of column names, not 'status'"),
        ([], "columns must be a list of column names, not []"),
        (["order_id", 7], "columns must be a list of column names, not ['order_id', 7]"),
        (
            ["order_id", "nope"],
            f"columns: 'nope' is not a column of SALES.ORDERS (its columns: {ORDERS_COLUMNS})",
        ),
        (["order_id", "Status"], "columns: 'Status' is not a column of SALES.ORDERS"),
        (["order_id", "status", "order_id"], "columns: 'order_id' is listed twice"),
        (
            ["status", "total"],
            "columns must include the key of SALES.ORDERS, which finds each row in the target: "
            "order_id is missing",
        ),
    ],
)
def test_a_column_list_names_registered_columns_with_the_key(tmp_path, columns, problem):
    path = declare(tmp_path, document(member(columns=columns)))
    assert refusal(path).startswith(f"{path}: set Q1.S1: t1: {problem}")


@pytest.mark.parametrize(
    "declared",
    [
        document(member(target="../../../evil")),
        document(member(target="apply_plan")),
        document(member(target="t1\n")),
        document(member(row_filter="1 = 1")),
        "apply_qualifiers: [\n",
    ],
)
def test_scaffold_of_a_bad_declaration_writes_nothing(tmp_path, declared):
    project = project_copy(tmp_path)
    declare(project, declared)
    before = files_under(tmp_path)
    with pytest.raises(SubscriptionError, match=f"^{re.escape(str(project / DECLARATION_PATH))}: "):
        scaffold(project)
    assert files_under(tmp_path) == before
