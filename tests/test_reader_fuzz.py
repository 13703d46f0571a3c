"""Property tests: malformed input of every kind gives records and bad lines, or one
DatasetError, never another exception; and a long input is read in bounded memory."""

from __future__ import annotations

import gzip
import io
import tracemalloc

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backends.puzzle import Puzzle
from harness.puzzles.readers import MAX_LINE, DatasetError, ReadResult, read_puzzles
from tests.test_readers import JUNK_PIECES, PUZ, PUZ4, PUZ16, SOL, fuzz_line


class FakeStdin:
    """Standard input as the readers see a real one: bytes behind a ``buffer``."""

    def __init__(self, raw: io.RawIOBase | io.BytesIO) -> None:
        self.buffer = raw


def read_bytes(data: bytes) -> ReadResult | DatasetError:
    """What the readers make of ``data`` on standard input: a result, or the DatasetError."""
    try:
        return read_puzzles("-", stdin=FakeStdin(io.BytesIO(data)))
    except DatasetError as exc:
        return exc


def check_result(outcome: ReadResult | DatasetError, lines: int) -> None:
    """A DatasetError names the input; otherwise every item is in order and well formed."""
    if isinstance(outcome, DatasetError):
        assert str(outcome).startswith("-: ")
        return
    numbers = [r.line for r in outcome.records]
    assert sorted(numbers) == numbers
    bad_numbers = [b.line for b in outcome.bad]
    assert sorted(bad_numbers) == bad_numbers
    assert all(1 <= n <= lines for n in numbers + bad_numbers)
    assert all(b.reason and "\n" not in b.reason for b in outcome.bad)
    for record in outcome.records:
        puzzle = record.puzzle
        assert puzzle == Puzzle(puzzle.box, puzzle.cells)  # the constructor's own check
        assert [] == puzzle.conflicts()
        solution = record.expected_solution
        if solution is not None:
            assert 0 not in solution.cells
            assert [] == solution.conflicts()
            assert all(g in (0, s) for g, s in zip(puzzle.cells, solution.cells, strict=True))


def line_count(data: bytes) -> int:
    return data.count(b"\n") + data.count(b"\r") + 1


# Lines of the supported layouts, right and wrong, to mix.
LAYOUT_LINES = [
    PUZ,
    f"{PUZ}:1:{SOL}",
    f"{PUZ} {SOL}",
    f"{PUZ},{SOL}",
    "quizzes,solutions",
    "foo,bar",
    "Grid 01",
    PUZ4,
    PUZ16,
    *[PUZ[i : i + 9] for i in range(0, 81, 9)],
    "+-------+-------+-------+",
]
wrong_solution = st.builds(
    lambda cut, sep: f"{PUZ}{sep}{SOL[:cut]}",
    st.integers(0, 90),
    st.sampled_from([":1:", " ", ",", ";", ":0:", "#"]),
)
huge_line = st.builds(
    lambda size, ch: ch * size, st.integers(MAX_LINE - 3, MAX_LINE + 3), st.sampled_from("1.x ")
)
any_line = st.one_of(
    fuzz_line, st.sampled_from(LAYOUT_LINES + JUNK_PIECES), wrong_solution, huge_line
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400))
def test_random_bytes(data: bytes) -> None:
    """Random bytes: records and bad lines, or one DatasetError (binary, not UTF-8, gzip)."""
    check_result(read_bytes(data), line_count(data))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(any_line, max_size=25), st.sampled_from(["\n", "\r\n", "\r"]))
def test_mixed_layouts_and_bad_solutions(lines: list[str], newline: str) -> None:
    """Layouts mixed with junk, huge lines and solutions of every wrong length."""
    data = newline.join(lines).encode("utf-8", "surrogatepass")
    check_result(read_bytes(data), line_count(data))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(any_line, min_size=1, max_size=10), st.data())
def test_truncated_gzip(lines: list[str], data: st.DataObject) -> None:
    """Gzip cut anywhere: whatever was read, or 'corrupt gzip data', nothing else."""
    packed = gzip.compress("\n".join(lines).encode("utf-8", "surrogatepass"))
    cut = data.draw(st.integers(2, len(packed)))
    outcome = read_bytes(packed[:cut])
    check_result(outcome, sum(line_count(line.encode("utf-8", "surrogatepass")) for line in lines))
    if cut < len(packed) - 8 and isinstance(outcome, DatasetError):
        assert "gzip" in str(outcome) or "UTF-8" in str(outcome) or "binary" in str(outcome)


class Endless(io.RawIOBase):
    """``total`` bytes of ``1`` with a line break every ``every`` bytes, made as they are read."""

    ONES = b"1" * (1 << 16)

    def __init__(self, total: int, every: int) -> None:
        self.left = total
        self.every = every
        self.at = 0  # where in a line the next byte is

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        size = min(len(buffer), self.left, self.every - self.at, len(self.ONES))
        buffer[:size] = self.ONES[:size]
        self.at += size
        if self.at == self.every:
            buffer[size - 1 : size] = b"\n"
            self.at = 0
        self.left -= size
        return size


def test_long_input_reads_in_bounded_memory() -> None:
    """256 MiB of 64 MiB lines on stdin: 4 'line too long', under 8 MiB traced at the peak."""
    stdin = FakeStdin(Endless(256 << 20, 64 << 20))
    tracemalloc.start()
    try:
        result = read_puzzles("-", stdin=stdin)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (0, 4) == (len(result.records), len(result.bad))
    assert peak < 8 << 20, f"peak {peak / 2**20:.1f} MiB"
