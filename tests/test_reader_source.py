"""Lines read a block at a time (readers.source.bounded_batches) against lines read one
``readline`` at a time with a length limit: the same lines, batches and errors."""

from __future__ import annotations

import io
from collections.abc import Iterator
from itertools import islice
from typing import TextIO

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.puzzles.readers import source
from harness.puzzles.readers.records import DatasetError


def readline_lines(handle: TextIO, max_line: int, text_only: bool) -> Iterator[str | None]:
    """The reference: one ``readline(limit)`` per line, the rest of a long line skipped."""
    limit = max_line + 1
    first = True
    while line := handle.readline(limit):
        if first:
            first = False
            line = line.removeprefix("\ufeff")
        if not text_only and "\x00" in line:
            raise DatasetError("t: binary data (a NUL byte), not a text puzzle file")
        if len(line) < limit or line[-1] == "\n":
            yield line
            continue
        while (rest := handle.readline(limit)) and rest[-1] != "\n":
            if not text_only and "\x00" in rest:
                raise DatasetError("t: binary data (a NUL byte), not a text puzzle file")
        if not text_only and "\x00" in rest:
            raise DatasetError("t: binary data (a NUL byte), not a text puzzle file")
        yield None


def batches_until_error(batches: Iterator[list[str | None]]) -> tuple[list[list], str | None]:
    """Every batch handed out, then the DatasetError's message (None: no error)."""
    seen = []
    try:
        for batch in batches:
            seen.append(batch)
    except DatasetError as exc:
        return seen, str(exc)
    return seen, None


def reference(handle: TextIO, size: int, max_line: int, text_only: bool) -> Iterator[list]:
    lines = readline_lines(handle, max_line, text_only)
    while batch := list(islice(lines, size)):
        yield batch


def handles(text: str, stream: str) -> tuple[TextIO, TextIO]:
    """Two equal streams of ``text``: a file's (bytes decoded, universal newlines), a
    text-only one with universal newlines, or a text-only one that keeps ``\\r``."""
    if stream == "file":
        data = text.encode("utf-8", "surrogatepass")
        return tuple(  # type: ignore[return-value]
            io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", newline=None) for _ in range(2)
        )
    newline = None if stream == "text" else "\n"
    return io.StringIO(text, newline=newline), io.StringIO(text, newline=newline)


@settings(max_examples=400, deadline=None)
@given(
    st.text(alphabet="ab \n\r\x00\ufeff\x0b\x85\u2028", max_size=60),
    st.integers(1, 9),
    st.integers(1, 4),
    st.integers(1, 8),
    st.sampled_from(["file", "text", "keep-cr"]),
)
def test_blocks_read_what_readline_reads(
    text: str, block: int, size: int, max_line: int, stream: str
) -> None:
    """Any text, long lines, NULs, odd line breaks, BOMs, any block and batch size: the same."""
    text_only = stream != "file"
    ours, theirs = handles(text, stream)
    saved = source.BLOCK, source.MAX_LINE
    source.BLOCK, source.MAX_LINE = block, max_line
    try:
        got = batches_until_error(source.bounded_batches(ours, "t", size, text_only))
    finally:
        source.BLOCK, source.MAX_LINE = saved
    assert batches_until_error(reference(theirs, size, max_line, text_only)) == got


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\ufeffab\ncd", ["ab\n", "cd"]),
        ("\ufeff" + "a" * 6 + "\nb\n", ["a" * 5, "a\n", "b\n"]),  # BOM: read, then dropped
        ("a\n" + "b" * 6 + "\nc\n", ["a\n", None, "c\n"]),
        ("a" * 5 + "\n" + "b" * 6, ["a" * 5 + "\n", None]),
        ("a\r\nb\rc\x0bd\n", ["a\n", "b\n", "c\x0bd\n"]),
    ],
)
def test_blocks_table(text: str, expected: list[str | None]) -> None:
    """Hand-picked texts, read 2 characters at a time, lines of at most 5 characters."""
    saved = source.BLOCK, source.MAX_LINE
    source.BLOCK, source.MAX_LINE = 2, 5
    try:
        handle = io.StringIO(text, newline=None)
        lines = [line for batch in source.bounded_batches(handle, "t", 3) for line in batch]
    finally:
        source.BLOCK, source.MAX_LINE = saved
    assert expected == lines
