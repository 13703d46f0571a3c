"""The scan of a run's puzzle files (PuzzleFiles.scan), which counts puzzles without making
their records: the counts, largest side and bad lines that reading the records gives."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.puzzles.readers import DatasetError, ReadResult, read_puzzles
from harness.puzzles.readers.files import PuzzleFiles
from tests.test_reader_fuzz import FakeStdin, any_line
from tests.test_reader_plain import DUPLICATE_IN_BOX, DUPLICATE_IN_ROW, line, reader, swap
from tests.test_readers import PUZ, PUZ4, PUZ16, PUZ25, SOL, SOL16

Found = tuple[int, int, list[str], int] | str  # puzzles, largest side, bad lines, more bad


def scanned(data: bytes, keep: int) -> tuple[Found, list[tuple[int, object]]]:
    """What a scan of ``data`` on standard input finds (or the DatasetError's message), and
    the lines and puzzles its records() then give."""
    with PuzzleFiles(["-"], stdin=FakeStdin(io.BytesIO(data))) as files:
        try:
            scan = files.scan(keep)
        except DatasetError as exc:
            return str(exc), []
        found = (scan.total, scan.largest, [str(b) for b in scan.bad.kept], scan.bad.more)
        return found, [(r.line, r.puzzle) for r in files.records()]


def read(data: bytes, keep: int) -> tuple[Found, list[tuple[int, object]]]:
    """What reading every record of ``data`` finds, in the terms of :func:`scanned`."""
    try:
        result: ReadResult = read_puzzles("-", stdin=FakeStdin(io.BytesIO(data)))
    except DatasetError as exc:
        return str(exc), []
    bad = [str(b) for b in result.bad]
    largest = max((r.puzzle.n for r in result.records), default=0)
    more = max(len(bad) - keep, 0) + result.more_bad
    return (len(result.records), largest, bad[:keep], more), [
        (r.line, r.puzzle) for r in result.records
    ]


def same_both_paths(data: bytes, keep: int, batch: int = 4096, min_run: int = 1) -> None:
    """The scan finds what reading the records finds, with the fast path on and off."""
    for fast in (True, False):
        with reader(fast, batch, min_run):
            assert read(data, keep) == scanned(data, keep)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.one_of(line, any_line), max_size=40),
    st.sampled_from(["\n", "\r\n"]),
    st.sampled_from([1, 3, 4096]),
    st.sampled_from([1, 3]),
    st.sampled_from([0, 2, 1000]),
)
def test_scan_finds_what_the_records_give(
    lines: list[str], newline: str, batch: int, min_run: int, keep: int
) -> None:
    """Mixed lines, any batch, stretch and number of bad lines kept: the records' findings."""
    data = newline.join(lines).encode("utf-8", "surrogatepass")
    same_both_paths(data, keep, batch, min_run)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"{PUZ}\n{DUPLICATE_IN_ROW}\n{PUZ}\n", (2, 9, ["-:2: digit"], 0)),
        (f"{PUZ}\n{swap(PUZ16, 1, PUZ16[0])}\n", (1, 9, ["-:2: digit"], 0)),
        (f"{PUZ4}\n{PUZ}\n{PUZ16}\n", (3, 16, [], 0)),
        (f"{PUZ25}\n{PUZ}:1:{SOL}\n{PUZ16},{SOL16}\n", (3, 25, [], 0)),
        (f"{DUPLICATE_IN_BOX}\n{PUZ}:1:{PUZ}\nx\n", (0, 0, ["-:1: digit", "-:2: expected"], 1)),
        (
            "quizzes,solutions\n" + f"{PUZ},{SOL}\n" * 3 + f"{PUZ},{PUZ}\n",
            (3, 9, ["-:5: expected"], 0),
        ),
    ],
)
def test_scan_table(text: str, expected: Found) -> None:
    """Hand-picked files: puzzles, largest side of a good puzzle, bad lines kept and more."""
    found, _ = scanned(text.encode(), 2)
    puzzles, largest, bad, more = found
    assert expected == (puzzles, largest, [" ".join(b.split()[:2]) for b in bad], more)
    same_both_paths(text.encode(), 2, batch=1)
    same_both_paths(text.encode(), 2)


def test_scan_of_a_large_plain_file_keeps_the_first_bad_lines(tmp_path: Path) -> None:
    """10,000 plain lines, one in 100 with a digit twice: counted, the first 5 kept."""
    path = tmp_path / "p.txt"
    path.write_text(
        "".join(f"{DUPLICATE_IN_ROW if k % 100 == 7 else PUZ}\n" for k in range(10_000))
    )
    with PuzzleFiles([str(path)]) as files:
        scan = files.scan(5)
        records = sum(1 for _ in files.records())
    kept = [b.line for b in scan.bad.kept]
    assert ({str(path): 9_900}, 9, [8, 108, 208, 308, 408], 95) == (
        scan.counts,
        scan.largest,
        kept,
        scan.bad.more,
    )
    assert 9_900 == records
