"""Each run's puzzles, reduced once and kept beside the results: what makes a history of many
runs quick to ask again.

A results CSV is read by the results engine (every row checked,
:func:`harness.results.engine.read`), its repeats reduced to each puzzle's median
(:func:`harness.tables.stats.per_puzzle`), and the columns a history needs are written to a
Parquet file: backend, dataset (by file name), line, a hash of the puzzle's text, status,
the three solve clocks and the counters. It is kept in ``.history-cache/`` in the CSV's
folder, named by the CSV's name, size and modification time and by :data:`VERSION`: a CSV
that changed (a resumed run, a copy) is read again and its older entry removed. The cache
is never the only copy of anything: remove it at will. Where its folder cannot be written,
the reduction goes to a temporary folder for this command alone.
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import tempfile
from pathlib import Path

from backends.base import COUNTERS
from harness.gate import clocks
from harness.results import engine
from harness.tables.stats import literal, per_puzzle, q

#: The cache's layout: a change of what it holds changes this, so older entries are unused.
VERSION = 1
FOLDER = ".history-cache"
#: The columns read of each results CSV (native statistics come too).
COLUMNS = ("dataset", "line", "puzzle", "backend", "repeat", "status")
COLUMNS += ("solve_s", "solve_cpu_s", "own_solve_s", *COUNTERS)


def _name(csv: Path) -> str:
    info = csv.stat()
    return f"{csv.name}.{info.st_size}-{info.st_mtime_ns}.v{VERSION}.parquet"


def reduced(csv: Path, scratch: Path) -> Path:
    """The Parquet file of ``csv``'s puzzles: the cached one when it is current, else made
    now (in the cache, or in ``scratch`` where the cache cannot be written). Raises
    :class:`harness.results.ResultsError` for a CSV that is not a results CSV."""
    try:
        name = _name(csv)
    except OSError as exc:
        from harness.results import ResultsError

        raise ResultsError(f"{csv}: cannot read it: {exc.strerror}") from None
    folder = csv.parent / FOLDER
    cached = folder / name
    if cached.is_file():
        return cached
    try:
        folder.mkdir(exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
        os.close(fd)
    except OSError:
        target = scratch / f"{len(list(scratch.iterdir()))}-{name}"
        _write(csv, target)
        return target
    try:
        _write(csv, Path(temporary))
        os.replace(temporary, cached)
    finally:
        Path(temporary).unlink(missing_ok=True)
    earlier = re.compile(re.escape(csv.name) + r"\.\d+-\d+\.v\d+\.parquet")
    for old in folder.glob(f"{glob.escape(csv.name)}.*.parquet"):
        if old.name != name and earlier.fullmatch(old.name):
            with contextlib.suppress(OSError):
                old.unlink()
    return cached


def _write(csv: Path, target: Path) -> None:
    """Reduce ``csv`` to its puzzles and write them to ``target`` (see the module)."""
    with engine.read([csv], COLUMNS) as results:
        con = results.con
        per_puzzle(con, "rows", name="reduced")
        natives = [c for c in results.numeric_natives if not clocks.is_time(c)]
        counters = ", ".join(f"CAST({q(c)} AS DOUBLE) AS {q(c)}" for c in [*COUNTERS, *natives])
        con.execute(
            f"""COPY (
                SELECT backend, regexp_replace(dataset, '^.*/', '') AS dataset,
                       CAST(line AS BIGINT) AS line, hash(puzzle) AS puzzle, status,
                       solve_s, solve_cpu_s, own_solve_s, {counters}
                FROM reduced
            ) TO {literal(str(target))} (FORMAT parquet)"""
        )
