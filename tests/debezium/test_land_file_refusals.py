"""`lakerep land` refuses a malformed file before Spark starts (no Spark in these tests): the
file and line are named, the exit code is 3, and nothing of the call lands. Debezium's tombstones
(`null` lines, as FileStreamSink writes a null value) and CRLF line ends are no malformation."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from lakerep.cli import EXIT_USER_ERROR, main
from lakerep.land_files import checked_lines, read_file

EVENT = '{"before": null, "after": {"id": 1}, "op": "c"}'


def customer_event(wrapped: bool = False, **values) -> str:
    """A change of the demo's SALES.CUSTOMERS (credit_limit decimal(12,2), updated_at timestamp)."""
    event = {"before": None, "after": {"customer_id": "C1", **values}, "op": "c",
             "source": {"schema": "SALES", "table": "CUSTOMERS"}}  # fmt: skip
    return json.dumps({"schema": {"type": "struct"}, "payload": event} if wrapped else event)


DOUBLE = customer_event(credit_limit=100.5)  # decimal.handling.mode=double
WRAPPED_DOUBLE = customer_event(wrapped=True, credit_limit=100.5)
PRECISE = customer_event(credit_limit="Jz4=")  # base64 of 10046: 100.46
PRECISE_DIGITS = customer_event(credit_limit="1234")  # base64 too: a scale-2 decimal has its point
MICROSECONDS = customer_event(updated_at=1796206272123456)  # MicroTimestamp, or Timestamp?


@pytest.mark.parametrize(
    ("file_format", "lines", "message"),
    [
        ("debezium", [EVENT, EVENT, "{not json"], "line 3: not JSON"),
        ("debezium", [EVENT, "", EVENT], "line 2: an empty line"),
        ("debezium", [EVENT, "42"], "line 2: not a Debezium event"),
        ("debezium", [EVENT, DOUBLE], "line 2: SALES.CUSTOMERS.credit_limit is a JSON number"),
        ("debezium", [WRAPPED_DOUBLE], "decimal.handling.mode=double"),
        (
            "debezium",
            [PRECISE],
            "SALES.CUSTOMERS.credit_limit is 'Jz4=', a decimal as decimal.handling.mode=precise",
        ),
        ("debezium", [PRECISE_DIGITS], "is '1234', a decimal as decimal.handling.mode=precise"),
        (
            "debezium",
            [MICROSECONDS],
            "SALES.CUSTOMERS.updated_at is the number 1796206272123456, a timestamp",
        ),
        ("canonical", ['{"log_position": "00000000000000010000"}', "[1, 2]"], "line 2: not a JSON object"),
        ("canonical", [], "the file is empty"),
    ],
)
def test_a_malformed_file_is_refused_naming_the_line(lake_home, tmp_path, file_format, lines, message):
    good = tmp_path / "good.jsonl"
    good.write_text(EVENT + "\n" if file_format == "debezium" else '{"uow_id": "x"}\n', encoding="utf-8")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    result = CliRunner().invoke(main, ["land", "--format", file_format, str(good), str(bad)])
    assert result.exit_code == EXIT_USER_ERROR, result.output
    assert f"lakerep: {bad}" in result.stderr and message in result.stderr


def test_a_file_that_is_not_utf8_is_refused(lake_home, tmp_path):
    bad = tmp_path / "latin1.jsonl"
    bad.write_bytes(EVENT.encode() + b"\n" + '{"after": {"name": "Zoë"}}'.encode("latin-1") + b"\n")
    result = CliRunner().invoke(main, ["land", "--format", "debezium", str(bad)])
    assert result.exit_code == EXIT_USER_ERROR
    assert "line 2: not UTF-8" in result.stderr


def test_tombstones_and_crlf_line_ends_are_read(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_bytes(f"{EVENT}\r\nnull\r\n{EVENT}".encode())
    landed = read_file(path, "debezium")
    assert [text for _, text in checked_lines(landed)] == [EVENT, "null", EVENT]
    assert len(landed.sha256) == 64 and landed.line_count == 3


def test_a_large_file_is_checked_in_bounded_memory_and_a_changed_one_refused(tmp_path):
    import tracemalloc

    path = tmp_path / "events.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for number in range(100_000):
            handle.write(EVENT.replace('"id": 1', f'"id": {number}, "pad": "{"x" * 200}"') + "\n")
    tracemalloc.start()
    try:
        checked = read_file(path, "debezium")
        landed = sum(1 for _ in checked_lines(checked))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert checked.line_count == landed == 100_000
    assert peak < path.stat().st_size // 10, (peak, path.stat().st_size)

    with path.open("a", encoding="utf-8") as handle:  # grown after it was checked
        handle.write(EVENT + "\n")
    with pytest.raises(ValueError, match=r"changed while it was landed; nothing landed"):
        list(checked_lines(checked))


def test_the_same_file_twice_in_one_call_is_refused(lake_home, tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text(EVENT + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["land", "--format", "debezium", str(path), str(path)])
    assert result.exit_code == EXIT_USER_ERROR
    assert "named twice in this call" in result.stderr


@pytest.mark.parametrize("file_format", ["debezium", "canonical"])
def test_two_files_of_one_name_in_one_call_are_refused(lake_home, tmp_path, file_format):
    """An event is known by its batch, file name and line: two events.jsonl of different topics
    in one batch would be taken for one file, their transactions mixed."""
    first, second = tmp_path / "topic-a" / "events.jsonl", tmp_path / "topic-b" / "events.jsonl"
    for path, key in ((first, 1), (second, 2)):
        path.parent.mkdir()
        line = (
            EVENT.replace('"id": 1', f'"id": {key}')
            if file_format == "debezium"
            else f'{{"uow_id": "{key}"}}'
        )
        path.write_text(line + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["land", "--format", file_format, str(first), str(second)])
    assert result.exit_code == EXIT_USER_ERROR, result.output
    assert f"lakerep: {second}: a file of the same name ({first}) is in this call" in result.stderr


def test_values_a_mapping_reads_are_no_refusal(lake_home, tmp_path):
    path = tmp_path / "readable.jsonl"
    lines = [
        customer_event(wrapped=True, credit_limit="Jz4=", updated_at=1796206272123456),  # the schema says
        customer_event(credit_limit="100.46", updated_at="2026-12-02T10:11:12.123456Z"),  # string mode
    ]
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    assert read_file(path, "debezium").line_count == 2


@pytest.fixture
def whole_number_credit_limit(monkeypatch):
    """SALES.CUSTOMERS.credit_limit registered as a whole number (decimal(12,0))."""
    from lakerep import land_files

    monkeypatch.setattr(
        land_files, "_registered_columns_to_check", lambda _: {("SALES", "CUSTOMERS"): {"credit_limit": 0}}
    )


def test_bare_digits_of_a_whole_number_decimal_are_refused_unless_the_call_says_decimals_are_text(
    lake_home, tmp_path, whole_number_credit_limit
):
    """Without the schema wrapper, '1234' in a whole-number decimal is 1234 as
    decimal.handling.mode=string writes it, or the bytes D7 6D F8 (another number) in base64 as
    the default precise mode writes it: only the schema tells them apart. Read as digits it was
    a wrong value, silently, for about 1 value in 1,700 of the precise mode."""
    path = tmp_path / "events.jsonl"
    path.write_text(customer_event(credit_limit="1234") + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["land", "--format", "debezium", str(path)])
    assert result.exit_code == EXIT_USER_ERROR, result.output
    assert "SALES.CUSTOMERS.credit_limit is '1234'" in result.stderr and "--decimals-as-text" in result.stderr
    assert read_file(path, "debezium", decimals_as_text=True).line_count == 1
    # Digits that are no base64 of whole bytes (not 4, 8, ... of them) are the string mode's.
    path.write_text(customer_event(credit_limit="12345") + "\n", encoding="utf-8")
    assert read_file(path, "debezium").line_count == 1
    # Said to be text, a decimal in base64 that is no digits is refused still.
    path.write_text(customer_event(credit_limit="BNI=") + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"a decimal as decimal\.handling\.mode=precise"):
        read_file(path, "debezium", decimals_as_text=True)
