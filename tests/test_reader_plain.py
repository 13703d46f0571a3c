"""The fast path for plain one-line puzzles (readers.plain) against the general path:
the same records and bad lines, in the same order, for every mix of lines."""

from __future__ import annotations

import gc
import io
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backends.puzzle import Puzzle
from harness.puzzles.readers import (
    MAX_LINE,
    DatasetError,
    ReadResult,
    dispatch,
    read_puzzles,
    read_text,
)
from harness.puzzles.readers.plain import plain_kinds
from harness.puzzles.readers.records import new_record, new_records
from tests.test_reader_fuzz import FakeStdin
from tests.test_readers import (
    JUNK_PIECES,
    PUZ,
    PUZ2,
    PUZ4,
    PUZ16,
    PUZ25,
    SOL,
    SOL16,
    SOL25,
    rows_of,
)


@contextmanager
def reader(fast: bool, batch: int = 4096, min_run: int = 1) -> Iterator[None]:
    """The readers with the fast path on or off, parsing ``batch`` lines at a time, taking
    the fast path for runs of ``min_run`` plain lines or more."""
    saved = dispatch.FAST_PATH, dispatch.BATCH, dispatch.MIN_RUN
    dispatch.FAST_PATH, dispatch.BATCH, dispatch.MIN_RUN = fast, batch, min_run
    try:
        yield
    finally:
        dispatch.FAST_PATH, dispatch.BATCH, dispatch.MIN_RUN = saved


def both(
    data: bytes, batch: int = 4096, min_run: int = 1
) -> tuple[ReadResult | str, ReadResult | str]:
    """What the fast and the general path read from ``data`` on standard input (or the
    DatasetError's message)."""
    results: list[ReadResult | str] = []
    for fast in (True, False):
        with reader(fast, batch, min_run):
            try:
                results.append(read_puzzles("-", stdin=FakeStdin(io.BytesIO(data))))
            except DatasetError as exc:
                results.append(str(exc))
    return results[0], results[1]


def swap(text: str, index: int, ch: str) -> str:
    return text[:index] + ch + text[index + 1 :]


DUPLICATE_IN_ROW = swap(PUZ, 1, PUZ[0])  # the givens of r1c1 and r1c2 equal
DUPLICATE_IN_BOX = swap(PUZ, 10, PUZ[0])
PLAIN_LINES = [
    PUZ,
    PUZ2,
    SOL,
    PUZ.replace(".", "0"),
    PUZ.replace(".", "_"),
    PUZ.replace(".", "*"),
    DUPLICATE_IN_ROW,
    DUPLICATE_IN_BOX,
    SOL16,
    PUZ16,
    PUZ16.lower(),
    PUZ16.replace(".", "*"),
    SOL25,
    PUZ25,
    PUZ25.lower(),
    swap(PUZ16, 1, PUZ16[0]),
    swap(PUZ25, 1, PUZ25[0]),
]
OTHER_LINES = [
    "",
    "   ",
    "# a comment",
    f"#{PUZ}",
    PUZ4,
    PUZ[:80],
    PUZ + ".",
    swap(PUZ, 40, "x"),
    swap(PUZ, 0, "-"),
    swap(PUZ, 3, "-"),
    swap(PUZ, 80, "é"),
    " " + PUZ,
    PUZ + " ",
    f"{PUZ} 2.5",
    f"{PUZ}:1:{SOL}",
    f"{PUZ},{SOL}",
    f"{DUPLICATE_IN_ROW}:1:{SOL}",
    PUZ16.replace(".", "0"),
    PUZ16.replace("1", "0"),
    swap(PUZ16, 5, "H"),
    PUZ25.replace(".", "0"),
    "quizzes,solutions",
    "Grid 01",
    *rows_of(PUZ, 9),
    *JUNK_PIECES,
]
line = st.one_of(
    st.sampled_from(PLAIN_LINES),
    st.sampled_from(PLAIN_LINES),  # twice as likely: long runs of them
    st.sampled_from(OTHER_LINES),
    st.text(alphabet="123456789.0_*", min_size=80, max_size=82),  # often a digit twice
    st.text(alphabet="123456789ABCDEFG0.", min_size=256, max_size=256),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(line, max_size=40),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.booleans(),
    st.booleans(),
    st.sampled_from([1, 2, 3, 5, 4096]),
    st.sampled_from([1, 2, 3]),
)
def test_fast_path_reads_what_the_general_path_reads(
    lines: list[str], newline: str, bom: bool, last_newline: bool, batch: int, min_run: int
) -> None:
    """Mixed files, any batch size, fast-path stretch of any length: the general path's results."""
    text = newline.join(lines) + (newline if last_newline else "")
    data = ("\ufeff" if bom else "").encode() + text.encode("utf-8", "surrogatepass")
    fast, general = both(data, batch, min_run)
    assert general == fast


@pytest.mark.parametrize(
    "text",
    [
        f"{PUZ}\n{PUZ2}\n{DUPLICATE_IN_ROW}\n{DUPLICATE_IN_BOX}\n{SOL}\n",
        f"# header\n\n{PUZ}\n{swap(PUZ, 7, 'x')}\n{PUZ2}\n{PUZ2}",
        f"{PUZ}\r\n{PUZ2}\r\n\r\n{PUZ}\r\n",
        f"\ufeff{PUZ}\n{PUZ16}\n{PUZ25}\n{swap(PUZ16, 1, PUZ16[0])}\n{PUZ}\n",
        f"Grid 01\n{PUZ}\n{PUZ2}\n",
        "\n".join(rows_of(PUZ, 9)) + f"\n{PUZ}\n{PUZ2}\n",
        f"quizzes,solutions\n{PUZ},{SOL}\n{PUZ}\n",
        f"{PUZ4}\n{PUZ}\n{PUZ}\n",
        f"{PUZ}\n{PUZ}\n{'1' * (MAX_LINE + 5)}\n{PUZ2}\n{DUPLICATE_IN_BOX}\n{PUZ}\n",
        f"{PUZ}\n\n{PUZ2}\n# note\n  # note\n \n{DUPLICATE_IN_ROW}\n{PUZ}",
    ],
)
def test_fast_path_table(text: str) -> None:
    """Hand-picked files, read by both paths, in one batch and a line at a time."""
    for batch in (1, 4096):
        fast, general = both(text.encode(), batch)
        assert general == fast
        with reader(True, batch):
            assert fast == read_text(text, "-")


def test_fast_path_explains_a_repeated_digit() -> None:
    """A plain line with a digit twice in a unit: a bad line naming the first conflict."""
    with reader(True):
        result = read_text(f"{PUZ}\n{DUPLICATE_IN_BOX}\n{PUZ}\n", "x")
    assert [1, 3] == [r.line for r in result.records]
    expected = "x:2: digit 1 appears twice in column 2 (and 1 more conflict)"
    assert [expected] == [str(b) for b in result.bad]


def test_plain_kinds() -> None:
    """Plain lines are told by side, blank and comment lines are neutral; anything else is other."""
    lines = [f"{PUZ}\n", f"{PUZ16.lower()}\n", f"{PUZ25}\n", "\n", "# x\n", f"{PUZ} \n"]
    assert ("abc--.-.", None) == plain_kinds([*lines, "  \n", f"{PUZ4}\n"])
    assert ("abc--..", None) == plain_kinds([*lines, None])  # None: a line too long


def test_plain_kinds_of_a_uniform_batch() -> None:
    """A batch of plain 9x9 lines only is told as one, and handed out as bytes."""
    lines = [f"{PUZ}\n", f"{SOL}\n", f"{PUZ2}\n"]
    assert ("aaa", "".join(lines).encode()) == plain_kinds(lines)


def test_plain_kinds_of_an_unended_last_line() -> None:
    """The text's last line, without its line break, is never plain."""
    assert ("a-.", None) == plain_kinds([f"{PUZ}\n", "\n", PUZ])


def test_plain_puzzles_between_blank_lines_and_comments() -> None:
    """Plain lines with blank lines and comments between them: the general path's results."""
    text = "".join(f"{PUZ}\n\n# {k}\n{DUPLICATE_IN_ROW if k % 7 else PUZ2}\n" for k in range(50))
    fast, general = both(text.encode(), min_run=64)
    assert (58, 42) == (len(fast.records), len(fast.bad))  # type: ignore[union-attr]
    assert general == fast


def test_a_callers_frozen_objects_stay_frozen(tmp_path: Path) -> None:
    """Objects frozen before read_puzzles are still frozen after it."""
    path = tmp_path / "p.txt"
    path.write_text(f"{PUZ}\n{PUZ2}\n")
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        read_puzzles(path)
        assert frozen == gc.get_freeze_count()
    finally:
        gc.unfreeze()


def test_new_records_is_new_record_of_unchecked_puzzles() -> None:
    """new_records makes what new_record makes of Puzzle.unchecked, field for field."""
    grids = [Puzzle.parse(PUZ).cells, Puzzle.parse(SOL).cells]
    made = new_records("x", range(7, 9), 3, bytes(grids[0] + grids[1]))
    expected = [
        new_record("x", 7 + k, Puzzle.unchecked(3, g), None, None, "") for k, g in enumerate(grids)
    ]
    assert [vars(r) for r in expected] == [vars(r) for r in made]
    assert [vars(r.puzzle) for r in expected] == [vars(r.puzzle) for r in made]
