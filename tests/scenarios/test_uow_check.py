"""The UOW completeness rule of the scenario checks, without Spark: every UOW that changed a source
after that source's CD_OLD_SYNCHPOINT, up to Capture's synchpoint, must be in the UOW table."""

from __future__ import annotations

from types import SimpleNamespace

from lakerep.scenarios.checks import uows_missing


def uow(uow_id: str, commit: str, *tables: str):
    return SimpleNamespace(
        uow_id=uow_id, commit_position=commit, changes=[SimpleNamespace(table=t) for t in tables]
    )


COMMITTED = [
    uow("U1", "0010", "SHOP.ORDERS"),
    uow("U2", "0020", "SHOP.STOCK"),
    uow("U3", "0030", "SHOP.ORDERS", "SHOP.STOCK"),
    uow("U4", "0040", "SHOP.STOCK"),
]


def test_a_uow_pruned_with_its_source_changes_is_not_missing():
    cd_old = {"SHOP.ORDERS": "0030", "SHOP.STOCK": "0020"}
    assert uows_missing(COMMITTED, {"U3", "U4"}, cd_old, "0040") == []


def test_a_uow_gone_while_one_of_its_sources_still_needs_it_is_missing():
    # U3 is at ORDERS' CD_OLD_SYNCHPOINT, but STOCK's CD rows after 0020 still need it.
    cd_old = {"SHOP.ORDERS": "0030", "SHOP.STOCK": "0020"}
    assert uows_missing(COMMITTED, {"U4"}, cd_old, "0040") == ["U3"]


def test_a_source_never_pruned_needs_every_uow_that_changed_it():
    assert uows_missing(COMMITTED, {"U2", "U3", "U4"}, {"SHOP.ORDERS": None}, "0040") == ["U1"]


def test_uows_committed_after_capture_synchpoint_are_not_yet_needed():
    assert uows_missing(COMMITTED, {"U1", "U2"}, {}, "0020") == []
