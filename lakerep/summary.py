"""The run summary: what the landing batches processed by a run held, and what became of them."""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from lakerep import PROJECT_DIR


def relation_name(model: str) -> str:
    """The warehouse name dbt gives a model of this project (from dbt's last parse)."""
    target = Path(os.environ.get("DBT_TARGET_PATH") or PROJECT_DIR / "target")
    manifest = (target if target.is_absolute() else PROJECT_DIR / target) / "manifest.json"
    return _relation_names(manifest, manifest.stat().st_mtime_ns)[model]


@functools.lru_cache(maxsize=4)
def _relation_names(manifest: Path, modified_ns: int) -> dict[str, str]:
    """Each model's relation name in a manifest.json, read once per version of the file (it is
    1.5 MB of JSON, and a cycle asks several times)."""
    nodes = json.loads(manifest.read_text(encoding="utf-8"))["nodes"]
    models = {key: node for key, node in nodes.items() if key.startswith("model.lakerep.")}
    return {key.removeprefix("model.lakerep."): node["relation_name"] for key, node in models.items()}


@dataclass
class RunSummary:
    batches: list[int] = field(default_factory=list)
    records_landed: int = 0
    records_valid: int = 0
    records_quarantined: int = 0
    row_changes: int = 0
    row_changes_unregistered: int = 0
    uows_committed: int = 0
    uows_rolled_back: int = 0
    quarantined_by_reason: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        if not self.batches:
            return "no new landing batches"
        reasons = ", ".join(
            f"{reason} {count:,}" for reason, count in sorted(self.quarantined_by_reason.items())
        )
        span = f"{self.batches[0]}" if len(self.batches) == 1 else f"{self.batches[0]}-{self.batches[-1]}"
        return (
            f"landing batches {span}: {self.records_landed:,} records read, "
            f"{self.records_valid:,} valid, {self.records_quarantined:,} quarantined"
            + (f" ({reasons})" if reasons else "")
            + f"; {self.uows_committed:,} UOWs committed, {self.uows_rolled_back:,} rolled back; "
            f"{self.row_changes:,} row changes, {self.row_changes_unregistered:,} of unregistered tables"
        )


def highest_staged_batch(spark) -> int:
    """The highest landing batch validation has read (0 before the first): the batches above it
    are what the next cycle reads. Read from int_log_records_judged, whose max Delta answers from
    its statistics; landing_batch_summary is a view over it with the same batches."""
    table = relation_name("int_log_records_judged")
    if not spark.catalog.tableExists(table):
        return 0
    return spark.sql(f"select coalesce(max(landing_batch), 0) from {table}").collect()[0][0]


def summarize(spark, after_batch: int) -> RunSummary:
    """Totals over the landing batches above `after_batch` (those the last run processed)."""
    table = relation_name("landing_batch_summary")
    summary = RunSummary()
    for row in spark.sql(
        f"select * from {table} where landing_batch > {int(after_batch)} order by landing_batch"
    ).collect():
        summary.batches.append(row["landing_batch"])
        for name in (
            "records_landed",
            "records_valid",
            "records_quarantined",
            "row_changes",
            "row_changes_unregistered",
            "uows_committed",
            "uows_rolled_back",
        ):
            setattr(summary, name, getattr(summary, name) + row[name])
        for reason, count in (row["quarantined_by_reason"] or {}).items():
            summary.quarantined_by_reason[reason] = summary.quarantined_by_reason.get(reason, 0) + count
    return summary


def snapshot_rows_quarantined(spark, after_batch: int, up_to_batch: int) -> dict[str, int]:
    """Rows of unloads landed in the landing batches (after_batch, up_to_batch] that validation
    held back, counted by reason (source_snapshot_quarantine)."""
    table = relation_name("source_snapshot_quarantine")
    rows = spark.sql(
        f"select quarantine_reason, count(*) as row_count from {table} "
        f"where landing_batch > {int(after_batch)} and landing_batch <= {int(up_to_batch)} "
        "group by quarantine_reason"
    ).collect()
    return {row["quarantine_reason"]: row["row_count"] for row in rows}


def quarantine_text(records: dict[str, int], snapshot_rows: dict[str, int]) -> str:
    """What a cycle quarantined, for its line: empty when nothing was."""
    parts = []
    for what, reasons in (("records", records), ("snapshot rows", snapshot_rows)):
        if reasons:
            counts = ", ".join(f"{reason} {count:,}" for reason, count in sorted(reasons.items()))
            parts.append(f"{sum(reasons.values()):,} {what} quarantined ({counts})")
    return "; ".join(parts)


def capture_line(spark) -> str:
    """What the last completed capture cycle did, from its capture_cycles row."""
    table = relation_name("capture_cycles")
    rows = spark.sql(
        f"select * from {table} where record_kind = 'cycle' order by cycle_number desc limit 1"
    ).collect()
    if not rows:
        return "capture: no cycle completed yet"
    cycle = rows[0]
    return (
        f"capture cycle {cycle['cycle_number']}: {cycle['row_changes']:,} row changes and "
        f"{cycle['uows_committed']:,} committed UOWs captured; synchpoint {cycle['synchpoint']}, "
        f"restart position {cycle['resync_position']}"
    )


def apply_lines(spark) -> list[str]:
    """What the last Apply cycle did, a line per subscription set, from its apply_trail rows."""
    table = relation_name("apply_trail")
    if not spark.catalog.tableExists(table):
        return ["apply: no cycle completed yet"]
    rows = spark.sql(
        f"select * from {table} where apply_cycle = (select max(apply_cycle) from {table}) order by set_name"
    ).collect()
    return [
        f"apply cycle {row['apply_cycle']} set {row['apply_qual']}.{row['set_name']}: {row['status']}; "
        f"{row['rows_loaded']:,} rows loaded, {row['rows_fetched']:,} changes fetched, "
        f"{row['rows_reworked']:,} reworked, {row['exceptions']:,} exceptions; "
        f"synchpoint {row['synchpoint'] or 'none'}"
        + (f" ({row['description']})" if row["description"] else "")
        for row in rows
    ]
