"""`lakerep land --format debezium|canonical PATH...`: files of log records landed as one landing
batch (SPEC §2.1, §2.2; ADR 0009).

A Debezium file is what Kafka Connect's FileStreamSink writes with the StringConverter: one event
value per line, JSON (with or without JsonConverter's schema/payload wrapper), `null` for a
tombstone. Each line lands as text in lakerep_raw.debezium_events, with its file and line, and
staging maps it (stg_debezium_log, stg_debezium_snapshot): an event lakerep cannot map is
quarantined there with a reason, never lost. A canonical file holds JSON lines of the source_log
columns and lands in lakerep_raw.source_log.

A file is refused, with nothing of the call landed, when a line is no JSON (or, canonical, no
object of source_log's text columns), or holds a registered decimal or timestamp that no mapping
reads right (Debezium's decimal.handling.mode=double; without the schema wrapper, a precise
decimal or a timestamp as a number), naming the file and the line; when a file of the same
name and content has landed before (lakerep_raw.landed_files), since its records would land twice;
and when two files of the call have one name (a batch knows its files by name). A change event's
row schema (JsonConverter's wrapper) that differs from the lake's shape of its table becomes rows
of the schema history, committed before the events land (docs/schema-evolution.md); an event
without the wrapper that holds a column the lake does not know is refused.
Kafka Connect delivers at least once, and its file sink appends to the same file: a file that
grew, a renamed copy, or a call cut off between its two commits repeats records. A record that
has landed already (the same event text; a canonical record equal in every column), or that
the call holds twice, is left out and counted: only what is new lands.
Like refresh and prune, it refuses while a session runs and writes inside the lake's critical
section.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from lakerep import dbt, landing
from lakerep.lake import lake_home, lake_session
from lakerep.locks import critical_section, refuse_if_active
from lakerep.registrations import decimal_scale, load_registrations
from lakerep.sources.debezium_schema import change_of, field_default, source_columns, unwrapped
from lakerep.sources.schema_history import (
    HistoryRow,
    SchemaHistory,
    declared_shapes,
    read_history,
    record_history,
)

FORMATS = ("debezium", "canonical")
_LANDED_COLUMNS = {"landing_batch", "landed_at"}


@dataclass(frozen=True)
class LandFile:
    """A file checked line by line: its content's hash and line count, not its lines (a file of
    any size lands in bounded memory: the landing reads it again, line by line)."""

    path: Path
    sha256: str
    line_count: int
    # (line, schema.table, log position, row) where a registered table's row schema differs from
    # its previous event's in the file: row is {"fields": [...]}, or {"names": [...]} unwrapped
    shapes: tuple[tuple[int, str, str, dict], ...] = ()

    @property
    def name(self) -> str:
        return self.path.name


def land_files(paths: list[Path], file_format: str, decimals_as_text: bool = False) -> list[str]:
    """Land the files as one landing batch; the lines saying what landed. ValueError (the file,
    the line, what is wrong) when a file is refused: then nothing lands. decimals_as_text: the
    caller says the connector writes decimals as text (decimal.handling.mode=string)."""
    if file_format not in FORMATS:
        raise ValueError(f"--format {file_format}: one of {', '.join(FORMATS)}")
    registrations = load_registrations() if file_format == "debezium" else {}
    files = [read_file(path, file_format, decimals_as_text, registrations) for path in paths]  # fails fast
    _refuse_repeats(files)
    home = lake_home()
    refuse_if_active(home)
    with critical_section(home):
        refuse_if_active(home)  # a runner may have started while we waited
        spark = lake_session()
        dbt.run_operation("lakerep_create_land_tables", {"debezium": file_format == "debezium"})
        _refuse_landed_before(spark, files)
        if file_format == "debezium":
            changed = _schema_changes(spark, files, registrations)  # ValueError before anything lands
            # An event's text says its position, transaction and row: the same text is the same event.
            rows = _debezium_rows(files)
            batch, count = landing.land_debezium_events(
                spark, rows, new_only_by=("event_value",),
                before_write=(lambda: record_history(spark, changed)) if changed else None,
            )  # fmt: skip
        else:
            columns = [
                name
                for name in spark.table(landing.SOURCE_LOG_TABLE).schema.names
                if name not in _LANDED_COLUMNS
            ]
            rows = _canonical_rows(files, columns)
            batch, count = landing.land_log_records(spark, rows, new_only_by=tuple(columns))
        if count:  # a call that landed nothing new takes no batch: its files may come again
            landing.land_file_records(spark, [_file_record(f, file_format) for f in files], batch)
    what = "events" if file_format == "debezium" else "log records"
    repeated = sum(f.line_count for f in files) - count
    return [
        *(f"{f.path}: {f.line_count:,} lines" for f in files),
        *([f"{repeated:,} {what} had landed before (delivered again): left out"] if repeated else []),
        f"landed {count:,} {what} from {len(files)} files as landing batch {batch}"
        if count
        else f"landed nothing: every one of the {what} had landed before",
    ]


def read_file(
    path: Path, file_format: str, decimals_as_text: bool = False, registrations: dict | None = None
) -> LandFile:
    """The file checked, line by line: each line JSON (a Debezium event value: an object, or null
    for a tombstone, whose registered decimals and timestamps a mapping reads right; a canonical
    record: an object). ValueError names the file and line. registrations: the project's, when
    the caller has them read already."""
    digest, count = hashlib.sha256(), 0
    if file_format != "debezium":
        registrations = {}
    elif registrations is None:
        registrations = load_registrations()
    checked = _registered_columns_to_check(registrations)
    shapes: list[tuple[int, str, str, dict]] = []
    last_row: dict[str, dict] = {}  # each registered table's row schema at its last event
    for number, text in _numbered_lines(path, digest):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as error:
            raise ValueError(f"{path}, line {number}: not JSON ({error.msg}, column {error.colno})") from None
        if file_format == "canonical" and not isinstance(value, dict):
            raise ValueError(f"{path}, line {number}: not a JSON object of source_log columns")
        if file_format == "debezium" and not (value is None or isinstance(value, dict)):
            raise ValueError(
                f"{path}, line {number}: not a Debezium event (a JSON object, or null for a tombstone)"
            )
        if checked and value is not None:
            _refuse_values_that_cannot_be_read(value, checked, f"{path}, line {number}", decimals_as_text)
        change = change_of(value) if registrations else None
        if change is not None and change[0] in registrations and change[2] is not None:
            name, position, row = change
            if "names" in row:  # unwrapped: the names met so far (a delete's image may hold fewer)
                row = {"names": sorted({*last_row.get(name, {}).get("names", ()), *row["names"]})}
            if row != last_row.get(name):
                last_row[name] = row
                shapes.append((number, name, position, row))
        count = number
    if count == 0:
        raise ValueError(f"{path}: the file is empty, nothing to land")
    return LandFile(path, digest.hexdigest(), count, tuple(shapes))


def _registered_columns_to_check(registrations: dict) -> dict[tuple[str, str], dict[str, int | None]]:
    """(owner, table) of each registered table with decimal or timestamp columns: each column's
    decimal scale, None for a timestamp."""
    found = {
        (r.source_owner, r.source_table): {
            c.name: decimal_scale(c.data_type)
            for c in r.columns
            if decimal_scale(c.data_type) is not None or c.data_type.lower() == "timestamp"
        }
        for r in registrations.values()
    }
    return {table: columns for table, columns in found.items() if columns}


_DECIMAL_TEXT = re.compile(r"-?[0-9]+(\.[0-9]+)?")


def _refuse_values_that_cannot_be_read(
    event: dict, checked: dict[tuple[str, str], dict[str, int | None]], where: str, decimals_as_text: bool
) -> None:
    """ValueError for a registered column's value that no mapping reads right: a decimal written
    as a double (decimal.handling.mode=double: its digits past a double's are gone); and, in an
    event without the schema wrapper, a decimal in base64 (the `precise` mode: only the schema
    says so; a decimal with a scale always has its point in the `string` mode), a whole number's
    digits that base64 may spell too, unless the caller says decimals are text
    (decimals_as_text), or a timestamp written as a number (milliseconds or microseconds: only
    the schema says which)."""
    wrapped, payload = unwrapped(event)
    source = payload.get("source") if isinstance(payload, dict) else None
    if not isinstance(source, dict):
        return
    table = f"{source.get('schema')}.{source.get('table')}"
    columns = checked.get((source.get("schema"), source.get("table")), {})
    for image in (payload.get("before"), payload.get("after")):
        for name, scale in sorted(columns.items()) if isinstance(image, dict) else ():
            value = image.get(name)
            if scale is not None and isinstance(value, float):
                raise ValueError(
                    f"{where}: {table}.{name} is a JSON number, as Debezium writes a decimal under "
                    "decimal.handling.mode=double, which loses its digits past a double's: set "
                    "decimal.handling.mode to precise (the default) or string"
                )
            if wrapped or value is None:
                continue
            if scale is not None and isinstance(value, str) and not _is_decimal_text(value, scale):
                raise ValueError(
                    f"{where}: {table}.{name} is {value!r}, a decimal as decimal.handling.mode=precise "
                    "writes it, whose scale only the schema says: land events with JsonConverter's "
                    "schema wrapper (schemas.enable=true), or set decimal.handling.mode=string"
                )
            if scale == 0 and not decimals_as_text and isinstance(value, str) and _may_be_base64(value):
                raise ValueError(
                    f"{where}: {table}.{name} is {value!r}, a whole number as decimal.handling.mode=string "
                    "writes it, or base64 bytes of another as the default precise mode does: only the "
                    "schema tells them apart. Land events with JsonConverter's schema wrapper "
                    "(schemas.enable=true), or, if the connector sets decimal.handling.mode=string, say "
                    "so: lakerep land --decimals-as-text"
                )
            if scale is None and isinstance(value, int) and not isinstance(value, bool):
                raise ValueError(
                    f"{where}: {table}.{name} is the number {value}, a timestamp whose unit "
                    "(milliseconds or microseconds) only the schema says: land events with "
                    "JsonConverter's schema wrapper (schemas.enable=true)"
                )


def _may_be_base64(digits: str) -> bool:
    """Digits that spell whole bytes in base64 too: four characters for every three bytes."""
    return digits.isascii() and digits.isdigit() and len(digits) % 4 == 0


def _is_decimal_text(value: str, scale: int) -> bool:
    """The digits of a decimal as the `string` mode writes them: with its point when it has a scale."""
    return bool(_DECIMAL_TEXT.fullmatch(value)) and (scale == 0 or "." in value)


def _numbered_lines(path: Path, digest) -> Iterator[tuple[int, str]]:
    """The file's lines (numbered from 1, without their line breaks), feeding `digest` the
    bytes as they are read. ValueError for a line that is not UTF-8 or is empty."""
    try:
        handle = path.open("rb")
    except OSError as error:
        raise ValueError(f"{path}: cannot read it: {error.strerror}") from None
    with handle:
        for number, raw in enumerate(handle, start=1):
            digest.update(raw)
            try:
                text = raw.removesuffix(b"\n").decode("utf-8").removesuffix("\r")
            except UnicodeDecodeError:
                raise ValueError(f"{path}, line {number}: not UTF-8") from None
            if not text.strip():
                raise ValueError(f"{path}, line {number}: an empty line (one JSON value per line)")
            yield number, text


def checked_lines(f: LandFile) -> Iterator[tuple[int, str]]:
    """The checked file's lines again, for the landing; ValueError (and nothing lands) when the
    file changed since it was checked."""
    digest = hashlib.sha256()
    yield from _numbered_lines(f.path, digest)
    if digest.hexdigest() != f.sha256:
        raise ValueError(f"{f.path}: changed while it was landed; nothing landed, land it again")


def _refuse_repeats(files: list[LandFile]) -> None:
    """A landing batch knows each of its files by name (a Debezium event is its batch, file name
    and line): two files of one name in one call would be taken for one, their events mixed."""
    seen: dict[str, LandFile] = {}
    for f in files:
        if f.name in seen:
            first = seen[f.name]
            if f.sha256 == first.sha256:
                raise ValueError(f"{f.path}: named twice in this call (same name and content)")
            raise ValueError(
                f"{f.path}: a file of the same name ({first.path}) is in this call; a landing batch "
                "knows its files by name: land them in separate calls"
            )
        seen[f.name] = f


def _refuse_landed_before(spark, files: list[LandFile]) -> None:
    hashes = ", ".join(f"'{f.sha256}'" for f in files)  # hex digits only: safe in a literal
    landed = {
        (row.file_name, row.file_sha256): row.landing_batch
        for row in spark.sql(
            f"select file_name, file_sha256, landing_batch from {landing.LANDED_FILES_TABLE} "
            f"where file_sha256 in ({hashes})"
        ).collect()
    }
    for f in files:
        if (f.name, f.sha256) in landed:
            raise ValueError(
                f"{f.path}: already landed (a file of this name and content, landing batch "
                f"{landed[(f.name, f.sha256)]}); nothing landed"
            )


def _schema_changes(spark, files: list[LandFile], registrations: dict) -> list[HistoryRow]:
    """The schema history's new rows for the row schemas the files' events carry (ADR 0012),
    each compared with the lake's shape of its table at its position. ValueError for an event
    without the schema wrapper that holds a column the shape lacks: its type is unknown."""
    seen = [(f, shape) for f in files for shape in f.shapes]
    if not seen:
        return []
    history = SchemaHistory(declared_shapes(registrations), read_history(spark))
    found: list[HistoryRow] = []
    for f, (line, name, position, row) in seen:
        shape = history.shape_at(name, position)
        if shape is None or shape.stopped:
            continue
        if "names" in row:
            unknown = sorted(set(row["names"]) - set(shape.live()))
            if unknown:
                raise ValueError(
                    f"{f.path}, line {line}: {name} has columns the lake does not know "
                    f"({', '.join(unknown)}), and an event without JsonConverter's schema wrapper "
                    "gives no types: land events with the wrapper (schemas.enable=true)"
                )
            continue
        fields = row["fields"]
        # an event value holds no key: the shape's is taken as the log's (a key change goes unseen)
        for new in history.observe(name, position, source_columns(fields, shape.live()), shape.key_columns):
            if new.change.kind == "add_column":
                default = field_default(fields, new.change.column_name)
                new = replace(new, change=replace(new.change, column_default=default))
            found.append(new)
    return found


def _file_record(f: LandFile, file_format: str) -> dict:
    return {
        "file_name": f.name,
        "file_sha256": f.sha256,
        "file_format": file_format,
        "line_count": f.line_count,
    }


def _debezium_rows(files: list[LandFile]) -> Iterator[dict]:
    for f in files:
        for number, text in checked_lines(f):
            yield {"event_value": text, "landed_file": f.name, "landed_line": number}


def _canonical_rows(files: list[LandFile], columns: list[str]) -> Iterator[dict]:
    """The records, checked against source_log's columns (text or null, no other name)."""
    for f in files:
        for number, text in checked_lines(f):
            record = json.loads(text)
            unknown = sorted(set(record) - set(columns))
            if unknown:
                raise ValueError(f"{f.path}, line {number}: {', '.join(unknown)} is no source_log column")
            wrong = sorted(
                name for name, value in record.items() if value is not None and not isinstance(value, str)
            )
            if wrong:
                raise ValueError(f"{f.path}, line {number}: {', '.join(wrong)} must be text or null")
            yield record
