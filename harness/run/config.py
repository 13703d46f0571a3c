"""A run's settings: the backends asked for, the limits, the output; checked up front."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from backends import NAMED_ONLY, REGISTRY, availability, backend_class, make_backend, parse_spec
from backends.base import Backend
from backends.errors import SudokuError
from harness.puzzles.readers import BadLine
from harness.results import ResultsError, companions
from harness.results.engine import Resumable, resumable
from harness.results.identity import check_run
from harness.results.lock import regular_or_absent
from harness.results.metadata import read_meta

if TYPE_CHECKING:
    from harness.run.cluster import ClusterTarget

DEFAULT_TIMEOUT_S = 30.0
DEFAULT_MEMORY_MIB = 2048.0


@dataclass(frozen=True)
class BackendChoice:
    """One backend the user asked for: its canonical spec, and why it cannot run (or None)."""

    spec: str
    cls: type[Backend]
    unavailable: str | None


def resolve_backends(names: Sequence[str]) -> list[BackendChoice]:
    """Expand ``all`` and validate every spec (name and options) before anything runs.

    Raises the contract's errors (unknown name, bad option) with the bad value in the message.
    Duplicates are dropped, keeping the first.
    """
    specs: list[str] = []
    for name in names:
        specs.extend([n for n in REGISTRY if n not in NAMED_ONLY] if name == "all" else [name])
    choices: dict[str, BackendChoice] = {}
    for spec in specs:
        backend = make_backend(spec)  # validates the name and every option now
        cls = backend_class(parse_spec(spec)[0])
        choices.setdefault(backend.spec, BackendChoice(backend.spec, cls, availability(cls)))
    return list(choices.values())


@dataclass
class RunConfig:
    backends: list[BackendChoice]
    out: Path
    limit: int = 1
    timeout: float | None = DEFAULT_TIMEOUT_S
    memory_limit_mib: float | None = DEFAULT_MEMORY_MIB
    repeat: int = 1
    jobs: int = 1
    seed: int = 0
    resume: bool = False
    skipped: Sequence[BadLine] = ()  # the first bad lines skipped
    skipped_more: int = 0  # bad lines skipped beyond those
    datasets: Sequence[str] = ()
    cluster: ClusterTarget | None = None  # None: local worker processes (``jobs`` of them)
    against: dict[str, Any] | None = None  # --against: the revision (harness.run.against)
    history: dict[str, Any] | None = None  # history run: each backend's commit (harness.history)


class RunError(SudokuError):
    """Settings a run cannot start with; the message says which and why."""


def bare_worker_mib() -> float:
    """Resident memory of a worker that has done nothing yet: a fork of this process."""
    try:  # Linux: what psutil reads, without importing psutil
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        import psutil

        return psutil.Process().memory_info().rss / 2**20


def validate(config: RunConfig) -> None:
    """Refuse settings the run cannot work with, before anything is read, run or written.

    Raises :class:`RunError` or :class:`harness.results.ResultsError` with one line: a
    memory limit below what a bare worker needs (every solve would be MEMOUT), or an
    ``out`` that :func:`check_out` refuses. :func:`run` checks ``out`` again, under its lock.
    """
    if config.memory_limit_mib is not None:
        footprint = bare_worker_mib()
        if config.memory_limit_mib < 1.5 * footprint:
            raise RunError(
                f"--memory-limit {config.memory_limit_mib:g} MiB is below what a bare worker "
                f"needs ({footprint:.0f} MiB here, so give at least {1.5 * footprint:.0f})"
            )
    check_out(config)


def check_out(config: RunConfig, made: bool = False) -> Resumable | None:
    """What a resumed run needs of the rows already in ``config.out`` (see
    :func:`harness.results.engine.resumable`), else None; :func:`check_out_file` first,
    with ``made`` (``out`` is the empty file the run's lock has just made: see
    :func:`harness.results.exclusive`)."""
    exists = check_out_file(config.out, config.resume, made)
    return resumable(config.out, config.limit) if exists else None


def check_out_file(out: Path, resume: bool, made: bool = False) -> bool:
    """Whether ``out`` holds rows a run with ``resume`` is to complete (its rows not read).

    Raises :class:`harness.results.ResultsError`, one line, for an ``out`` the run must
    not write: named like a companion file, not a regular file, existing without
    ``resume``, not a harness run (:func:`harness.results.identity.check_run`), or with
    companions that are not its own (:func:`check_companions`).
    """
    suffix = companions.companion_suffix(out)
    if suffix is not None:
        raise ResultsError(
            f"--out {out}: a name ending in {suffix} is kept for the files beside a run's "
            "CSV; choose another"
        )
    exists = regular_or_absent(out) is not None and not made
    if exists and not resume:
        raise ResultsError(f"{out} exists; pass --resume to complete it, or choose another --out")
    if exists:
        check_run(out)
    check_companions(out)
    return exists


def check_companions(out: Path) -> None:
    """Raise :class:`harness.results.ResultsError` unless the metadata and log a run to
    ``out`` writes (:mod:`harness.results.companions`) are absent or its own: a regular
    file each; the metadata a run's, and not another CSV's (an older harness's
    ``x.meta.json`` of ``x.csv`` is at the name of ``x``'s); the log not this command's
    output, and beside a run's metadata (a log no run made is not appended to)."""
    meta_path, log_path = companions.meta_path_for(out), companions.log_path_for(out)
    regular_or_absent(meta_path, "a run's metadata")
    meta = read_meta(out)  # its own, or an older harness's naming it
    owner = companions.older_owner(meta, out) if os.path.lexists(meta_path) else None
    if owner is not None:
        raise ResultsError(f"{meta_path} is the metadata of {owner}; choose another --out")
    if regular_or_absent(log_path, "a run's log") is None:
        return
    if _is_output(log_path):
        raise ResultsError(
            f"{log_path} is where the run writes its log, and this command's output goes "
            "there too; send the output elsewhere"
        )
    if meta is None:
        raise ResultsError(
            f"{log_path} exists, but no run to {out} made it; move it, or choose another --out"
        )


def _is_output(path: Path) -> bool:
    """Whether ``path`` is this process's standard output or error."""
    info = os.stat(path)
    for fd in (1, 2):
        try:
            mine = os.fstat(fd)
        except OSError:
            continue
        if (mine.st_dev, mine.st_ino) == (info.st_dev, info.st_ino):
            return True
    return False
