"""The order of a run: puzzles x backends x repeats, the rows' key columns, what cannot run."""

from __future__ import annotations

import random
import socket
from collections.abc import Iterable, Iterator
from typing import Any

from backends.puzzle import grid_text
from harness.puzzles.readers import PuzzleRecord
from harness.run.config import BackendChoice, RunConfig

#: The machine the harness runs on: the ``host`` of every row solved locally.
HOST = socket.gethostname()


def base_row(record: PuzzleRecord, spec: str, repeat: int, config: RunConfig) -> dict[str, Any]:
    """The key and puzzle columns of one row, before it is solved."""
    digits, n = record.puzzle.digits, record.puzzle.n
    return {
        "dataset": record.dataset,
        "line": record.line,
        "puzzle": grid_text(n, digits),
        "size": n,
        "givens": len(digits) - digits.count(0),
        "backend": spec,
        "repeat": repeat,
        "limit": config.limit,
        "jobs": config.jobs,
        "host": HOST,
    }


def plan(
    records: Iterable[PuzzleRecord], config: RunConfig
) -> Iterator[tuple[PuzzleRecord, str, int, bool]]:
    """Every (record, backend spec, repeat, is_warmup) in run order."""
    rng = random.Random(config.seed)
    runnable: dict[int, list[str]] = {}  # grid side -> the specs that can run it
    for record in records:
        n = record.puzzle.n
        specs = runnable.get(n)
        if specs is None:
            specs = runnable[n] = [
                c.spec for c in config.backends if unsupported_reason(c, record) is None
            ]
        if config.repeat > 1:
            yield from ((record, spec, -1, True) for spec in specs)
        for repeat in range(config.repeat):
            shuffled = specs
            if len(specs) > 1:  # shuffling one spec would draw no random number either
                shuffled = list(specs)
                rng.shuffle(shuffled)
            for spec in shuffled:
                yield record, spec, repeat, False


def unsupported_reason(choice: BackendChoice, record: PuzzleRecord) -> str | None:
    """Why ``choice`` cannot run ``record`` at all (not installed, grid too large), or None."""
    if choice.unavailable is not None:
        return choice.unavailable
    largest = choice.cls.max_box**2
    if record.puzzle.n > largest:
        n = record.puzzle.n
        return f"{choice.spec} supports grids up to {largest}x{largest}; this one is {n}x{n}"
    return None


def total_steps(puzzles: int, config: RunConfig) -> int:
    """How many progress steps a run of ``puzzles`` reports: one per row."""
    return puzzles * len(config.backends) * config.repeat
