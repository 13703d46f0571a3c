"""The dispatcher: numbered lines in, each to its layout, records and bad lines out in order
(:func:`parse`), or the puzzles counted and the bad lines alone (:func:`count`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import compress, repeat
from operator import ne

from harness.puzzles.readers.check import Item, PendingPuzzle, Sink
from harness.puzzles.readers.csv_layout import NOT_A_HEADER, CsvLayout, looks_like_header
from harness.puzzles.readers.grids import GridLayout
from harness.puzzles.readers.messages import LINE_TOO_LONG
from harness.puzzles.readers.plain import (
    NEUTRAL,
    SIDE,
    plain_bad_lines,
    plain_items,
    plain_kinds,
    stretches,
)
from harness.puzzles.readers.records import BadLines
from harness.puzzles.readers.symbols import BIG_CELL_COUNTS, RULE_START, is_token

BATCH = 4096  # lines parsed, then their puzzles checked together

#: Whether runs of plain one-line puzzles take the fast path (:mod:`.plain`). Off, every line
#: takes the general path, with the same results: for the tests and benchmarks that compare.
FAST_PATH = True
#: The fewest plain lines a stretch takes the fast path with: checking them has a fixed cost
#: however few they are (81 cells' bit planes), where the general path costs per puzzle.
MIN_RUN = 64


def parse(batches: Iterable[list[str | None]], dataset: str) -> Iterator[list[Item]]:
    """Records and bad lines of the lines of ``batches`` (``None``: a line too long), in
    line order, a list at a time (what a batch of lines gave, if anything)."""
    return _run(_Dispatcher(Sink(dataset)), batches)


def count(batches: Iterable[list[str | None]], dataset: str, bad: BadLines) -> tuple[int, int]:
    """How many puzzles the lines of ``batches`` hold, and the largest side among them (0:
    none), with their bad lines added to ``bad``: what :func:`parse` finds, without making
    a record of any puzzle."""
    sink = Sink(dataset, counting=True)
    for found in _run(_Dispatcher(sink), batches):
        bad.add(found)
    return sink.puzzles, sink.largest


def _run(dispatcher: _Dispatcher, batches: Iterable[list[str | None]]) -> Iterator[list[Item]]:
    """What ``dispatcher``'s sink takes from each batch of lines, then from the end (lines
    are parsed a batch at a time)."""
    first = 1
    for batch in batches:
        if FAST_PATH:
            dispatcher.batch(first, batch)
        else:
            dispatcher.lines(first, batch)
        done = dispatcher.sink.take()
        first += len(batch)
        if done:
            yield done
    dispatcher.grids.end()
    done = dispatcher.sink.take()
    if done:
        yield done


class _Dispatcher:
    """Sends each line to its layout; what a line is may depend on the lines before it."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.grids = GridLayout(self.sink)
        self.csv: CsvLayout | None = None
        self.seen_content = False

    def batch(self, first: int, lines: list[str | None]) -> None:
        """Lines ``first``, ``first + 1``...: stretches of plain lines (:mod:`.plain`), and
        of blank and comment lines between them, read together where a lone one-line puzzle
        is expected, every other line on its own."""
        kinds, data = plain_kinds(lines)
        index = 0
        for segment in stretches(MIN_RUN).finditer(kinds):
            start, stop = segment.span()
            if index < start:
                self.lines(first + index, lines[index:start])
            index = start
            while index < stop and not self.expects_one_line():
                self.lines(first + index, lines[index : index + 1])
                index += 1
            part = kinds[index:stop]
            if len(part) - part.count(NEUTRAL) >= MIN_RUN:
                self._plain(first, lines, index, stop, part, data)
            elif index < stop:
                self.lines(first + index, lines[index:stop])
            index = stop
        if index < len(lines):
            self.lines(first + index, lines[index:])

    def _plain(
        self,
        first: int,
        lines: list[str | None],
        start: int,
        stop: int,
        kinds: str,
        data: bytes | None,
    ) -> None:
        """The plain lines among lines ``start`` to ``stop`` (their ``kinds``), through the
        fast path; the neutral lines between them, skipped (they change nothing here)."""
        n = SIDE[kinds.replace(NEUTRAL, "")[0]]
        if NEUTRAL not in kinds:
            numbers: Sequence[int] = range(first + start, first + stop)
            plain: list[str] = lines[start:stop]  # type: ignore[assignment]
            size = n * n + 1  # a plain line's length
            data = None if data is None else data[start * size : stop * size]
        else:
            chosen = list(compress(range(start, stop), map(ne, kinds, repeat(NEUTRAL))))
            numbers = [first + index for index in chosen]
            plain = list(map(lines.__getitem__, chosen))  # type: ignore[arg-type]
            data = None
        sink = self.sink
        if not sink.counting:
            sink.extend(plain_items(sink.dataset, numbers, plain, n, data))
            return
        bad = plain_bad_lines(sink.dataset, numbers, plain, n, data)
        sink.extend(bad)
        sink.count(n, len(numbers) - len(bad))

    def expects_one_line(self) -> bool:
        """Whether a one-line puzzle alone on the next line would be read on its own, as a
        candidate for the batch check (no CSV, no grid, not the first line)."""
        return self.csv is None and self.seen_content and self.grids.idle

    def lines(self, first: int, lines: list[str | None]) -> None:
        """Lines ``first``, ``first + 1``..., one by one (``None``: a line too long)."""
        sink = self.sink
        grids = self.grids
        csv = self.csv
        seen_content = self.seen_content
        for number, raw in enumerate(lines, start=first):
            if raw is None:
                grids.end()
                sink.bad(number, LINE_TOO_LONG)
                seen_content = True
                continue
            line = raw.strip()
            if not line:
                grids.end()
                continue
            if line[0] == "#":
                continue
            if (  # the common case: a one-line 9x9 or larger puzzle, alone on its line
                len(line) in BIG_CELL_COUNTS
                and csv is None
                and seen_content
                and line[0] not in RULE_START
                and grids.idle
                and is_token(line)
            ):
                sink.candidate(PendingPuzzle(number, line, raw))
                continue
            if csv is not None:
                sink.put(number, csv.row(number, raw, line))
                continue
            if not seen_content:
                seen_content = True
                csv = CsvLayout.from_header(line)
                if csv is not None:
                    continue
                if looks_like_header(line):
                    sink.bad(number, NOT_A_HEADER)
                    continue
            grids.line(number, raw, line)
        self.csv = csv
        self.seen_content = seen_content
