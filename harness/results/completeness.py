"""Whether a run wrote every row it planned, and the command that completes one that did not.

A run's ``.meta.json`` records its plan: each dataset's puzzle count, the backends and the
repeat. The runner plans one row per puzzle, backend and repeat, except that a backend
that cannot run a puzzle at all (not installed, a grid too large for it) gets one
UNAVAILABLE row for the puzzle, which stands for its repeats. A run stopped early:

- its metadata says it did not end (``complete: false``: it is written so before the first
  solve and set at the end);
- rows are missing against that plan;
- or its last row was torn by a kill (the results engine drops it,
  :attr:`harness.results.engine.Results.torn`).

A run whose metadata lacks the plan (an older one, or none) is judged by its torn row alone.
``harness run --resume --out FILE`` completes it (:func:`resume_command`).
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from backends.base import Status

if TYPE_CHECKING:
    from harness.results.engine import Results


@dataclass(frozen=True)
class Completeness:
    """How much of its plan one results CSV holds."""

    path: Path
    #: rows the plan holds (None: the metadata does not say)
    planned: int | None
    #: rows written, an UNAVAILABLE row counted once for each repeat it stands for
    written: int
    #: the metadata's ``complete`` (None: it does not say)
    ended: bool | None
    torn: bool

    @property
    def missing(self) -> int:
        return max(0, self.planned - self.written) if self.planned is not None else 0

    @property
    def incomplete(self) -> bool:
        return self.ended is False or self.torn or self.missing > 0

    def said(self) -> str:
        """What is missing, in words: ``13 of 570 planned rows missing, its last row torn``."""
        parts = [f"{self.missing} of {self.planned} planned rows missing"] if self.missing else []
        parts += ["its last row torn"] if self.torn else []
        return ", ".join(parts) or "its run did not end"


def of(results: Results, index: int) -> Completeness:
    """The completeness of file ``index`` of ``results`` (its table ``file_<index>`` holds
    the ``status`` column)."""
    meta = results.metas[index] or {}
    repeat = meta.get("repeat") if isinstance(meta.get("repeat"), int) else None
    written = results.con.execute(
        f"SELECT count(*) FILTER (WHERE status <> ?) + ? * count(*) FILTER (WHERE status = ?) "
        f"FROM file_{int(index)}",
        [Status.UNAVAILABLE.value, repeat or 1, Status.UNAVAILABLE.value],
    ).fetchone()[0]
    ended = meta.get("complete") if isinstance(meta.get("complete"), bool) else None
    return Completeness(
        results.paths[index], _planned(meta, repeat), int(written), ended, results.torn[index]
    )


def _planned(meta: dict[str, Any], repeat: int | None) -> int | None:
    """The rows a run's plan holds: its datasets' puzzles x its backends x its repeat."""
    datasets, backends = meta.get("datasets"), meta.get("backends")
    if repeat is None or not isinstance(datasets, list) or not isinstance(backends, list):
        return None
    counts = [d.get("puzzles") for d in datasets if isinstance(d, dict)]
    if len(counts) != len(datasets) or not all(isinstance(c, int) for c in counts):
        return None
    return sum(counts) * len(backends) * repeat


def resume_command(path: Path, meta: dict[str, Any] | None) -> str | None:
    """The command that completes the run of ``path`` (``harness run --resume``, which takes
    the run's settings from its metadata), or None for a run that cannot be resumed (made
    with ``--against``, or without metadata). A program or library to start is named again
    (a resume never starts one from the metadata alone), standard input is given again as
    ``-``, and the command runs where the run started (its dataset paths are relative to it)."""
    from harness.run.resume import STARTS_CODE  # code a resume starts only when named

    if not meta or "against" in meta or not isinstance(meta.get("backends"), list):
        return None
    specs = [str(b.get("spec")) for b in meta["backends"] if isinstance(b, dict)]
    words = ["harness", "run", "--resume", "--out"]
    where = meta.get("cwd")
    moved = isinstance(where, str) and os.path.realpath(where) != os.path.realpath(os.curdir)
    words.append(str(path.resolve()) if moved else str(path))
    if any(s.split(":", 1)[0] in STARTS_CODE for s in specs):
        words += [word for spec in specs for word in ("-b", spec)]
    if isinstance(meta.get("jobs"), int) and meta["jobs"] > 1 and "cluster" not in meta:
        words += ["--jobs", str(meta["jobs"])]
    paths = [d.get("path") for d in meta.get("datasets") or [] if isinstance(d, dict)]
    if "-" in paths:
        words.append("-")
    command = shlex.join(words)
    if "-" in paths:
        command += " < PUZZLES"
    return f"cd {shlex.quote(where)} && {command}" if moved else command
