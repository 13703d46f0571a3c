"""The dispatcher: numbered lines in, each to its layout, records and bad lines out in order."""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from itertools import islice

from harness.readers.check import Candidate, Item, Sink
from harness.readers.csv_layout import NOT_A_HEADER, CsvLayout, looks_like_header
from harness.readers.grids import GridLayout
from harness.readers.messages import LINE_TOO_LONG
from harness.readers.symbols import BIG_CELL_COUNTS, RULE_START, is_token

_BATCH = 4096  # lines parsed, then their puzzles checked together


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block, then restore it as it was."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def parse(lines: Iterable[str | None], dataset: str) -> Iterator[Item]:
    """Records and bad lines of ``lines`` (``None``: a line too long), in line order.

    Lines are parsed a batch at a time, with the cyclic garbage collector paused (never while
    the caller holds control): a batch allocates thousands of objects and no cycles, and the
    collector's repeated passes over them tripled the time of a large file.
    """
    sink = Sink(dataset)
    grids = GridLayout(sink)
    csv: CsvLayout | None = None
    seen_content = False
    numbered = enumerate(lines, start=1)
    while chunk := list(islice(numbered, _BATCH)):
        with gc_paused():
            for number, raw in chunk:
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
                    sink.candidate(Candidate(number, line, raw))
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
            done = sink.take()
        yield from done
    with gc_paused():
        grids.end()
        done = sink.take()
    yield from done
