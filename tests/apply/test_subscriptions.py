"""The subscription declaration (SPEC §2.4) and what `lakerep scaffold` derives from it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from lakerep import PROJECT_DIR
from lakerep.scaffold import APPLY_CONTRACTS_FILE, target_columns, target_unique_key
from lakerep.subscriptions import SubscriptionError, load_members


def declare(tmp_path: Path, members: list[dict], **set_options) -> Path:
    path = tmp_path / "subscriptions.yml"
    subscription_set = {"set_name": "S1", "members": members, **set_options}
    path.write_text(yaml.safe_dump({"apply_qualifiers": [{"apply_qual": "Q1", "sets": [subscription_set]}]}))
    return path


def test_the_project_declares_a_member_per_structure():
    members = load_members()
    assert {member.target_structure for member in members} == {"user_copy", "point_in_time", "ccd"}
    assert {member.on_operational_error for member in members} == {"stop", "continue"}


@pytest.mark.parametrize(
    ("members", "options", "problem"),
    [
        ([{"source": "SALES.NOPE", "target": "t1", "structure": "user_copy"}], {}, "not a registered table"),
        ([{"source": "SALES.CUSTOMERS", "target": "t1", "structure": "mirror"}], {}, "structure must be"),
        ([{"source": "SALES.CUSTOMERS", "target": "T1", "structure": "user_copy"}], {}, "lower case"),
        (
            [
                {"source": "SALES.CUSTOMERS", "target": "t1", "structure": "user_copy"},
                {"source": "SALES.ORDERS", "target": "t1", "structure": "ccd"},
            ],
            {},
            "declared twice",
        ),
        (
            [{"source": "SALES.ORDERS", "target": "t1", "structure": "user_copy"}],
            {},
            "cannot follow key updates",
        ),
        (
            [{"source": "SALES.ORDERS", "target": "t1", "structure": "ccd"}],
            {"on_operational_error": "skip"},
            "stop or",
        ),
    ],
)
def test_an_inconsistent_declaration_names_the_member_and_the_problem(tmp_path, members, options, problem):
    with pytest.raises(SubscriptionError, match=problem):
        load_members(declare(tmp_path, members, **options))


@pytest.mark.parametrize("structure", ["user_copy", "point_in_time", "ccd"])
def test_a_column_list_makes_the_targets_columns_in_the_sources_order(tmp_path, structure):
    listed = {"source": "SALES.ORDER_LINES", "target": "t1", "structure": structure,
              "columns": ["quantity", "line_no", "order_id"]}  # fmt: skip
    (member,) = load_members(declare(tmp_path, [listed]))
    assert member.listed_columns == ("quantity", "line_no", "order_id")
    user = [name for name, _ in target_columns(member) if not name.startswith("IBMSNAP_")]
    assert user == ["order_id", "line_no", "quantity"]
    assert target_unique_key(member)[-2:] == ["order_id", "line_no"]


def test_target_contracts_follow_each_structure():
    contracts = yaml.safe_load((PROJECT_DIR / APPLY_CONTRACTS_FILE).read_text(encoding="utf-8"))
    models = {model["name"]: model for model in contracts["models"]}
    for member in load_members():
        columns = [(c["name"], c["data_type"]) for c in models[member.target_table]["columns"]]
        assert columns == target_columns(member)
        user = [column.name for column in member.columns]
        assert [name for name, _ in columns if not name.startswith("IBMSNAP_")] == user
        if member.target_structure == "ccd":
            assert target_unique_key(member)[:2] == ["IBMSNAP_INTENTSEQ", "IBMSNAP_OPERATION"]
        else:
            assert target_unique_key(member) == list(member.registration.key_columns)
