"""Deterministic source workload and its oracle: the test data of lakerep.

Workload(seed) models a source database with the registered tables whose interleaved
transactions write a change log; next_batch() returns what lands in the lake, snapshot()
what an unload reads, and workload.oracle what a correct replica must hold.
"""

from lakerep.workload.config import WorkloadConfig
from lakerep.workload.generator import RECORD_FIELDS, UNREGISTERED_TABLE, LandingBatch, LogRecord, Workload
from lakerep.workload.oracle import Change, CommittedUow, Oracle, OracleError
from lakerep.workload.replay import ReplayError, replay_landing_records
from lakerep.workload.snapshot import Snapshot
from lakerep.workload.values import RowCodec, decode_value, encode_value

__all__ = [
    "RECORD_FIELDS",
    "UNREGISTERED_TABLE",
    "Change",
    "CommittedUow",
    "LandingBatch",
    "LogRecord",
    "Oracle",
    "OracleError",
    "ReplayError",
    "RowCodec",
    "Snapshot",
    "Workload",
    "WorkloadConfig",
    "decode_value",
    "encode_value",
    "replay_landing_records",
]
