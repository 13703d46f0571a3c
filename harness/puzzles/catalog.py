"""What ``datasets/`` ships and which public collections users may bring: ``harness datasets``.

:func:`shipped_datasets` reads every ``datasets/*.txt`` with :mod:`harness.puzzles.readers` and
summarises it: how many puzzles, of which sizes, how many givens, what the file says about
solution counts (tdoku's ``puzzle:count`` lines), the difficulty mix by
:mod:`harness.puzzles.rating`'s tiers, and the command its header says made it.

:data:`PUBLIC_COLLECTIONS` describes the well-known public puzzle sets, which the project
does not ship: where to get them, how big they are and how their files look. Every figure
there comes from the collection's own page or from a benchmark that used it, as each entry
says; ``harness run FILE`` reads all of these formats.
"""

from __future__ import annotations

import re
import statistics
import textwrap
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from backends.errors import SudokuError
from harness.puzzles import rating
from harness.puzzles.rating import ALL_TIERS, COUNT_BACKEND, MULTI
from harness.puzzles.readers import PuzzleRecord, read_puzzles

#: The project's own datasets folder.
DATASETS_DIR = Path(__file__).resolve().parents[2] / "datasets"
#: Seconds :func:`shipped_datasets` lets :func:`harness.puzzles.rating.rate` spend on one puzzle.
RATE_TIME_LIMIT = 10.0
#: Text width of ``harness datasets``.
WIDTH = 100

_REPRODUCE = re.compile(r"reproduce:\s*(.+?)\s*$")

__all__ = [
    "DATASETS_DIR",
    "PUBLIC_COLLECTIONS",
    "PublicCollection",
    "ShippedDataset",
    "catalog_text",
    "count_record",
    "describe_public",
    "describe_shipped",
    "rate_record",
    "shipped_datasets",
    "summarise",
]


@dataclass(frozen=True)
class ShippedDataset:
    """One file of ``datasets/``, summarised.

    ``sizes`` maps a grid side to how many puzzles have it; ``givens`` is (min, median, max);
    ``stated`` maps the solution counts the file states (tdoku's ``puzzle:count``) to how
    many lines state each, empty when it states none; ``found`` maps ``unique``, ``none``
    and ``2+`` to how many puzzles :data:`COUNT_BACKEND` finds so with ``limit=2`` (None:
    not counted); ``tiers`` maps a difficulty tier to its puzzles (None: not rated);
    ``summary`` is the header's first line and ``command`` its ``reproduce:`` command.
    """

    name: str
    puzzles: int
    sizes: dict[int, int]
    givens: tuple[int, float, int]
    stated: dict[int, int]
    found: dict[str, int] | None
    tiers: dict[str, int] | None
    summary: str
    command: str | None
    bad_lines: int = 0


#: What a count of solutions under ``limit=2`` is called.
FOUND_WORDS: dict[int, str] = {0: "none", 1: "unique", 2: "2+"}

RecordRate = Callable[[PuzzleRecord], str]
RecordCount = Callable[[PuzzleRecord], int]


def _header(path: Path) -> list[str]:
    """The leading ``#`` comment lines of a file, without the ``#``."""
    lines = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.startswith("#"):
                break
            lines.append(line[1:].strip())
    return lines


def rate_record(record: PuzzleRecord) -> str:
    """A puzzle's tier by :func:`harness.puzzles.rating.rate` (at most :data:`RATE_TIME_LIMIT` s
    of rating)."""
    return rating.rate(record.puzzle, time_limit=RATE_TIME_LIMIT).tier


def count_record(record: PuzzleRecord) -> int:
    """Solutions :data:`~harness.puzzles.rating.COUNT_BACKEND` finds for a puzzle with
    ``limit=2`` (0, 1 or 2): :func:`harness.puzzles.rating.count_solutions`."""
    found = rating.count_solutions(record.puzzle)
    if found is None:  # no time limit: only a failing backend gives no count
        raise SudokuError(f"{record.dataset}:{record.line}: {COUNT_BACKEND} gave no count")
    return found


def _tier(record: PuzzleRecord, found: int | None, rate: RecordRate) -> str:
    """A record's tier; a puzzle with no or several solutions is named so, not rated."""
    if found == 0 or (found is None and record.expected_count == 0):
        return "unsolvable"
    if (found or 0) >= 2 or (record.expected_count or 0) >= 2:
        return MULTI
    return rate(record)


def summarise(
    path: Path, rate: RecordRate | None = rate_record, count: RecordCount | None = count_record
) -> ShippedDataset:
    """Summarise one dataset file; ``rate`` gives a record's tier and ``count`` its
    solutions under ``limit=2`` (None: skip that)."""
    result = read_puzzles(str(path))
    records = result.records
    header = _header(path)
    command = next((m.group(1) for m in map(_REPRODUCE.search, header) if m), None)
    givens = [r.puzzle.givens for r in records] or [0]
    stated = Counter(r.expected_count for r in records if r.expected_count is not None)
    counts = [count(r) for r in records] if count is not None else [None] * len(records)
    found = None
    if count is not None:
        named = Counter(FOUND_WORDS[min(k or 0, 2)] for k in counts)
        found = {word: named[word] for word in FOUND_WORDS.values() if named[word]}
    tiers = None
    if rate is not None:
        counted = Counter(_tier(r, k, rate) for r, k in zip(records, counts, strict=True))
        tiers = dict(sorted(counted.items(), key=lambda item: _tier_order(item[0])))
    return ShippedDataset(
        name=path.name,
        puzzles=len(records),
        sizes=dict(sorted(Counter(r.puzzle.n for r in records).items())),
        givens=(min(givens), statistics.median(givens), max(givens)),
        stated=dict(sorted(stated.items())),
        found=found,
        tiers=tiers,
        summary=header[0] if header else "",
        command=command,
        bad_lines=len(result.bad),
    )


def _tier_order(tier: str) -> tuple[int, str]:
    return (ALL_TIERS.index(tier) if tier in ALL_TIERS else len(ALL_TIERS), tier)


def shipped_datasets(
    directory: Path = DATASETS_DIR,
    rate: RecordRate | None = rate_record,
    count: RecordCount | None = count_record,
) -> list[ShippedDataset]:
    """Every ``*.txt`` of ``directory``, by name, summarised by :func:`summarise`."""
    return [summarise(path, rate, count) for path in sorted(directory.glob("*.txt"))]


def _sizes_text(sizes: dict[int, int]) -> str:
    if len(sizes) == 1:
        (n,) = sizes
        return f"{n}x{n}"
    return ", ".join(f"{count} {n}x{n}" for n, count in sizes.items())


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def _givens_text(givens: tuple[int, float, int]) -> str:
    low, median, high = givens
    if low == high:
        return f"givens {low}"
    return f"givens {low}-{high} (median {_fmt(median)})"


def _wrap(label: str, text: str) -> list[str]:
    return textwrap.wrap(
        text,
        WIDTH,
        initial_indent=f"    {label}",
        subsequent_indent=" " * (4 + len(label)),
        break_long_words=False,
        break_on_hyphens=False,
    )


def describe_shipped(datasets: Sequence[ShippedDataset]) -> list[str]:
    """Lines describing the shipped datasets: one block per file."""
    lines = []
    for d in datasets:
        facts = [f"{d.puzzles} puzzles", _sizes_text(d.sizes), _givens_text(d.givens)]
        lines.append(f"{d.name}: {'; '.join(facts)}")
        if d.summary:
            lines += _wrap("", d.summary)
        if d.found is not None:
            found = ", ".join(f"{word} {count}" for word, count in d.found.items())
            lines += _wrap("solutions: ", f"{found} ({COUNT_BACKEND}, limit=2)")
        if d.stated:
            stated = ", ".join(f"{k}: {count} puzzle(s)" for k, count in d.stated.items())
            lines += _wrap("the file states solution counts: ", stated)
        if d.tiers is not None:
            lines += _wrap("difficulty: ", ", ".join(f"{t} {c}" for t, c in d.tiers.items()))
        if d.command:
            lines += _wrap("made by: ", d.command)
        if d.bad_lines:
            lines.append(f"    ({d.bad_lines} line(s) could not be read)")
    return lines


@dataclass(frozen=True)
class PublicCollection:
    """A public puzzle collection users may download: where, how big, what format."""

    name: str
    where: tuple[str, ...]
    size: str
    format: str
    notes: str = ""


PUBLIC_COLLECTIONS: tuple[PublicCollection, ...] = (
    PublicCollection(
        name="Norvig's top95 (and hardest)",
        where=(
            "https://norvig.com/top95.txt and https://norvig.com/hardest.txt (from the essay "
            "'Solving Every Sudoku Puzzle', https://norvig.com/sudoku.html)",
            "the same files in https://github.com/norvig/pytudes: py/sudoku-top95.txt, "
            "py/sudoku-hardest.txt",
        ),
        size="95 puzzles in top95; 11 in hardest",
        format="one puzzle per line, 81 characters, '.' for an empty cell",
        notes="hard for simple backtracking; the benchmark most Sudoku write-ups quote",
    ),
    PublicCollection(
        name="Royle's 17-clue list",
        where=(
            "Gordon Royle (University of Western Australia) kept it on his 'minimum Sudoku' "
            "page, now gone; the Wayback Machine's copy of 2012 is at "
            "https://web.archive.org/web/2012/http://mapleta.maths.uwa.edu.au/~gordon/sudokumin.php",
            "a copy with later additions: data/puzzles2_17_clue in "
            "https://github.com/t-dillon/tdoku/raw/master/data.zip",
        ),
        size="49,151 puzzles as Royle collected them (2005-2009, per Lin, Wu and Wei, ICGA "
        "Journal 2013); 49,158 in tdoku's copy as of January 2020",
        format="one puzzle per line, 81 digits, '0' for an empty cell (tdoku's copy: "
        "'#' comment lines first)",
        notes="17 clues each, the fewest a unique puzzle can have; about half are solved by "
        "naked and hidden singles alone (tdoku's benchmark notes)",
    ),
    PublicCollection(
        name="magictour top1465",
        where=(
            "http://magictour.free.fr/top1465 (page http://magictour.free.fr/sudoku.htm)",
            "data/puzzles3_magictour_top1465 in tdoku's data.zip",
        ),
        size="1,465 puzzles",
        format="one puzzle per line, 81 characters, '.' for an empty cell",
        notes="an old list of hard puzzles, a common solver benchmark",
    ),
    PublicCollection(
        name="the Enjoy Sudoku forum's hardest lists",
        where=(
            "thread 'The hardest sudokus (new thread)': "
            "http://forum.enjoysudoku.com/the-hardest-sudokus-new-thread-t6539.html",
            "tdoku's data.zip: data/puzzles4_forum_hardest_1905, "
            "puzzles5_forum_hardest_1905_11+, puzzles6_forum_hardest_1106",
        ),
        size="the list of May 2019 (ph_1905) holds over 2 million puzzles, generally rated "
        "above 10.0 by Sudoku Explainer; tdoku's sample of those rated above 11.0, around "
        "49,000; the list that started the thread, 376 puzzles (tdoku's figures)",
        format="tdoku's copies: '#' comment lines, then one 81-character puzzle per line",
        notes="the hardest known puzzles for backtracking; the forum's own files may add "
        "ratings after each puzzle, which harness.puzzles.readers keeps as metadata",
    ),
    PublicCollection(
        name="the Kaggle set ('1 Million Sudoku Games', by bryanpark)",
        where=("https://www.kaggle.com/datasets/bryanpark/sudoku (sudoku.csv)",),
        size="1,000,000 puzzles with their solutions",
        format="CSV with the header 'quizzes,solutions': 81 digits each, '0' for empty",
        notes="very easy: tdoku's benchmark notes that naked singles alone solve all of them",
    ),
)


def describe_public(collections: Sequence[PublicCollection] = PUBLIC_COLLECTIONS) -> list[str]:
    """Lines describing the public collections."""
    lines = []
    for c in collections:
        lines.append(c.name)
        for where in c.where:
            lines += _wrap("where:  ", where)
        lines += _wrap("size:   ", c.size)
        lines += _wrap("format: ", c.format)
        if c.notes:
            lines += _wrap("note:   ", c.notes)
    return lines


def catalog_text(
    directory: Path = DATASETS_DIR,
    rate: RecordRate | None = rate_record,
    count: RecordCount | None = count_record,
) -> str:
    """What ``harness datasets`` prints: the shipped datasets, then the public collections.
    Without ``rate`` and ``count`` the files are only read, and a line says how to have
    their puzzles solved."""
    solved = rate is not None or count is not None
    lines = [
        f"Shipped datasets ({directory}):",
        *([] if solved else ["(as read; --solve also counts solutions and rates difficulty)"]),
        "",
        *describe_shipped(shipped_datasets(directory, rate, count)),
        "",
        "Public collections to bring (not shipped; `harness run FILE` reads these formats):",
        "",
        *describe_public(),
    ]
    return "\n".join(lines) + "\n"
