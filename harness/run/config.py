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
from harness.results import ResultsError
from harness.results.engine import Resumable, resumable

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


def check_out(config: RunConfig) -> Resumable | None:
    """What a resumed run needs of the rows already in ``config.out`` (see
    :func:`harness.results.engine.resumable`), else None; an existing ``out`` without
    ``resume`` raises :class:`harness.results.ResultsError`."""
    if config.out.exists() and not config.resume:
        raise ResultsError(
            f"{config.out} exists; pass --resume to complete it, or choose another --out"
        )
    if config.resume and config.out.exists():
        return resumable(config.out, config.limit)
    return None
