"""Reading at scale: millions of lines streamed in bounded memory, bad lines counted, not kept."""

from __future__ import annotations

import gzip
import io
import tracemalloc
from pathlib import Path

from harness.puzzles.readers import KEPT_BAD, read_puzzles
from harness.puzzles.readers.files import PuzzleFiles
from tests.test_readers import PUZ, SOL

#: The most memory (Python's allocations) a reading may take at its peak, MiB.
BOUND_MIB = 24


def peak_mib(work) -> tuple[object, float]:
    """What ``work()`` returns, and the peak of Python's allocations meanwhile, MiB."""
    tracemalloc.start()
    try:
        result = work()
        return result, tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def test_a_gzip_of_many_bad_lines_is_counted_in_bounded_memory(tmp_path: Path) -> None:
    """100,000 bad lines in a gzip (held, some 40 MB): the first 20 kept, all counted."""
    path = tmp_path / "bad.txt.gz"
    path.write_bytes(gzip.compress(b"x\n" * 100_000))
    with PuzzleFiles([str(path)]) as files:
        scan, peak = peak_mib(lambda: files.scan(20))
    bad = scan.bad  # type: ignore[attr-defined]
    assert (100_000, 20, 0) == (bad.count, len(bad.kept), scan.total)  # type: ignore[attr-defined]
    assert f"{path}:1: " in str(bad)
    assert str(bad).endswith("... and 99980 more bad lines")
    assert peak < BOUND_MIB, f"{peak:.0f} MiB"


def test_read_puzzles_keeps_the_first_bad_lines_and_counts_the_rest(tmp_path: Path) -> None:
    """read_puzzles keeps KEPT_BAD bad lines and counts the others in more_bad."""
    path = tmp_path / "bad.txt"
    path.write_text("x\n" * (KEPT_BAD + 5))
    result = read_puzzles(path)
    assert (KEPT_BAD, 5) == (len(result.bad), result.more_bad)


def test_a_kaggle_csv_gzip_streams_in_bounded_memory(tmp_path: Path) -> None:
    """20,000 quizzes,solutions rows in a gzip (held, some 30 MB): counted, streamed."""
    path = tmp_path / "sudoku.csv.gz"
    with gzip.open(path, "wt") as f:
        f.write("quizzes,solutions\n")
        f.writelines(f"{PUZ},{SOL}\n" for _ in range(20_000))
    with PuzzleFiles([str(path)]) as files:
        scan, peak_scan = peak_mib(lambda: files.scan(20))

        def stream() -> tuple[int, int]:
            count = last = 0
            for record in files.records():
                count, last = count + 1, record.line
                assert record.expected_solution is not None
            return count, last

        streamed, peak_stream = peak_mib(stream)
    assert ({str(path): 20_000}, (20_000, 20_001)) == (scan.counts, streamed)  # type: ignore[attr-defined]
    assert max(peak_scan, peak_stream) < BOUND_MIB, f"{peak_scan:.0f}, {peak_stream:.0f} MiB"


def test_standard_input_is_read_twice_from_a_copy() -> None:
    """Standard input is scanned, then streamed again, from its copy, named -."""
    stdin = io.TextIOWrapper(io.BytesIO(f"{PUZ}\nx\n{PUZ}\n".encode()))
    with PuzzleFiles(["-"], stdin=stdin) as files:
        scan = files.scan(5)
        lines = [(r.dataset, r.line) for r in files.records()]
    assert ({"-": 2}, ["-:2: "]) == (scan.counts, [str(b)[:5] for b in scan.bad.kept])
    assert [("-", 1), ("-", 3)] == lines
