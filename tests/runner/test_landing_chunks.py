"""How a landing through Spark Connect cuts its JSON lines into plans (lakerep.landing._chunks):
every line once, in order, no chunk over the limit unless one line alone is."""

from lakerep.landing import _chunks


def test_chunks_keep_every_line_in_order_within_the_limit():
    lines = [f"line {number:04d}" for number in range(1000)]  # 9 characters each
    chunks = list(_chunks(iter(lines), 100))
    assert [value for chunk in chunks for (value,) in chunk] == lines
    assert all(sum(len(value) for (value,) in chunk) <= 100 for chunk in chunks)
    assert [len(chunk) for chunk in chunks[:-1]] == [11] * (len(chunks) - 1)


def test_a_line_longer_than_the_limit_travels_alone():
    chunks = list(_chunks(iter(["a" * 5, "b" * 50, "c" * 5]), 10))
    assert chunks == [[("a" * 5,)], [("b" * 50,)], [("c" * 5,)]]


def test_no_lines_make_no_chunk():
    assert list(_chunks(iter([]), 10)) == []


def test_the_limit_counts_utf8_bytes_not_characters():
    chunks = list(_chunks(iter(["é" * 5, "é" * 5]), 12))  # 10 bytes each
    assert chunks == [[("é" * 5,)], [("é" * 5,)]]
