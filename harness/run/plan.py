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
    """Every (record, backend spec, repeat, is_warmup) in run order.

    For each puzzle and repeat the backends run in an order shuffled with the seed. The two
    sides of a pair (``SPEC@REV`` and ``SPEC`` of a run ``--against REV``) are one place in
    that order and run one right after the other: the old side first on every repeat of one
    puzzle, the new side first on every repeat of the next, so that neither always runs
    first, and a side's process seldom solves twice in a row (a process that does finds its
    caches warm: its second solve of 0.3 ms runs about 3 % faster)."""
    rng = random.Random(config.seed)
    pairs = {new: old for old, new in (config.against or {}).get("pairs", {}).items()}
    led: dict[tuple[str, ...], int] = {}  # a pair -> puzzles it ran before (odd: new leads)
    runnable: dict[int, list[tuple[str, ...]]] = {}  # grid side -> places of the specs it runs
    for record in records:
        n = record.puzzle.n
        units = runnable.get(n)
        if units is None:
            specs = [c.spec for c in config.backends if unsupported_reason(c, record) is None]
            units = runnable[n] = _units(specs, pairs)
        if config.repeat > 1:
            yield from ((record, spec, -1, True) for unit in units for spec in unit)
        for unit in units:  # a pair: old first on this puzzle, new first on the next
            if len(unit) == 2:
                led[unit] = led.get(unit, -1) + 1
        for repeat in range(config.repeat):
            shuffled = units
            if len(units) > 1:  # shuffling one unit would draw no random number either
                shuffled = list(units)
                rng.shuffle(shuffled)
            for unit in shuffled:
                for spec in unit[::-1] if led.get(unit, 0) % 2 else unit:
                    yield record, spec, repeat, False


def _units(specs: list[str], pairs: dict[str, str]) -> list[tuple[str, ...]]:
    """``specs`` as the places of the shuffled order: each pair, old and new (``pairs``: new
    -> old), as one place where the new spec stands, every other spec alone."""
    olds = {pairs[s] for s in specs if pairs.get(s) in specs}
    return [(pairs[s], s) if pairs.get(s) in olds else (s,) for s in specs if s not in olds]


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
