"""The scenario's reread token files lose nothing (the oracle's own rule, without Spark): reading a
source from RESTART1, skipping transactions committed at or before RESTART2, still sees every
change of every transaction that commits after RESTART2, whether it began before the commit
reread from or not. Seed 8 found a reread from a bare commit position losing the early changes
of a transaction open there, which, landed in commit order, arrived whole in a later batch."""

from __future__ import annotations

import pytest

from lakerep.scenarios.driver import reread_tokens_at
from lakerep.workload.config import WorkloadConfig
from lakerep.workload.generator import Workload


@pytest.mark.parametrize("landing_order", ["commit", "log"])
def test_reading_from_the_reread_tokens_loses_no_change_committed_after_them(landing_order):
    workload = Workload(seed=8, config=WorkloadConfig(landing_order=landing_order))
    for records in (400, 300):
        workload.next_batch(records)
    oracle = workload.oracle
    straddled = 0
    for commit in oracle.commit_positions()[::5]:
        for source in ("SALES.CUSTOMERS", "INVENTORY.STOCK"):
            tokens = reread_tokens_at(oracle, source, commit)
            assert tokens.restart2 == commit and tokens.restart1 <= commit
            later = [c for c in oracle.history(source, after=commit)] + [
                c for c in oracle.open_changes() if c.table == source
            ]
            assert all(change.log_position >= tokens.restart1 for change in later)
            straddled += any(change.log_position < commit for change in later)
    assert straddled, "no transaction was open at a commit reread from: the case seed 8 found is not here"
