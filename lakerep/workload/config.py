"""Knobs of the workload generator; the defaults give a mixed OLTP load with a long tail."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

LandingOrder = Literal["log", "commit"]


@dataclass(frozen=True)
class WorkloadConfig:
    # "log": records land as they are written (DB2 log readers); "commit": a transaction lands
    # whole in the batch in which it ends (PostgreSQL logical decoding, Debezium).
    landing_order: LandingOrder = "log"
    # Ordinary transactions open at once; the target wanders between the two bounds.
    min_open_transactions: int = 3
    max_open_transactions: int = 8
    max_transaction_operations: int = 50
    rollback_rate: float = 0.05
    # Long-running transactions act rarely, so they stay open across many others.
    long_transaction_rate: float = 0.02
    max_long_transactions: int = 2
    # Share of DML on the unregistered table AUDIT.EVENTS (0 leaves it out of the log).
    unregistered_share: float = 0.03
    null_rate: float = 0.06
    # Deletes grow more frequent once a table holds more rows than this, which bounds memory.
    target_rows_per_table: int = 5_000
    first_position: int = 0x10000
    base_time: datetime = datetime(2026, 1, 1)

    def __post_init__(self) -> None:
        if self.landing_order not in ("log", "commit"):
            raise ValueError(f"landing_order must be 'log' or 'commit', not {self.landing_order!r}")
        if not 1 <= self.min_open_transactions <= self.max_open_transactions:
            raise ValueError("need 1 <= min_open_transactions <= max_open_transactions")
        if self.max_transaction_operations < 1:
            raise ValueError("max_transaction_operations must be at least 1")
        for name in ("rollback_rate", "long_transaction_rate", "unregistered_share", "null_rate"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1")
        if self.first_position < 0 or self.first_position % 0x10:
            # Multi-row insert records number their rows in the lowest hex digit.
            raise ValueError("first_position must be a non-negative multiple of 0x10")
        if self.target_rows_per_table < 1:
            raise ValueError("target_rows_per_table must be at least 1")
