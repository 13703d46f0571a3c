"""The runner: puzzles x backends x repeats -> checked, timed rows in a CSV, as they finish.

Order and fairness: puzzles run in file order; for each puzzle and repeat the backends run in
an order shuffled with ``seed``, so slow drift of the machine spreads over all backends.
With ``repeat > 1`` each (puzzle, backend) first gets one untimed warm-up solve.

Every solve runs in a worker process (:mod:`harness.run.worker`); the answer is then checked
in the harness process, by :func:`harness.check.judge.judge`, against the file's expected count
and solution when it gives them. At the end, :func:`harness.results.cross_check` marks as
WRONG any claim (UNSAT, or uniqueness) another backend's checked answer refutes.
"""

from __future__ import annotations

import contextlib
import gc
import os
import random
import socket
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from backends import REGISTRY, backend_class, make_backend, parse_spec
from backends.base import Backend, Status
from backends.errors import SudokuError
from harness.check.judge import grid_text, judge, settle_count
from harness.puzzles.readers import BadLine, PuzzleRecord
from harness.results import (
    ResultsError,
    RowWriter,
    check_resumable,
    columns_for,
    exclusive,
    provenance,
    row_key,
)
from harness.run.worker import Task, WorkerPool
from harness.run.worker.handle import FORK_LOCK

if TYPE_CHECKING:
    import subprocess

    from harness.run.cluster import ClusterPool, ClusterTarget

DEFAULT_TIMEOUT_S = 30.0
#: The machine the harness runs on: the ``host`` of every row solved locally.
HOST = socket.gethostname()
DEFAULT_MEMORY_MIB = 2048.0
#: The interpreter's thread switch interval during a run (see :func:`run`), seconds.
SWITCH_S = 0.0005


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
        specs.extend(REGISTRY if name == "all" else [name])
    choices: dict[str, BackendChoice] = {}
    for spec in specs:
        backend = make_backend(spec)  # validates the name and every option now
        cls = backend_class(parse_spec(spec)[0])
        choices.setdefault(backend.spec, BackendChoice(backend.spec, cls, cls.available()))
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
    skipped: Sequence[BadLine] = ()
    datasets: Sequence[str] = ()
    cluster: ClusterTarget | None = None  # None: local worker processes (``jobs`` of them)


@dataclass
class RunResult:
    csv_path: Path
    meta_path: Path
    rows: list[dict[str, str]] = field(default_factory=list)  # the whole CSV, as text
    resumed: int = 0
    cross_checked: int = 0


def _base_row(record: PuzzleRecord, spec: str, repeat: int, config: RunConfig) -> dict[str, Any]:
    return {
        "dataset": record.dataset,
        "line": record.line,
        "puzzle": grid_text(record.puzzle.n, record.puzzle.cells),  # its to_string(), faster
        "size": record.puzzle.n,
        "givens": len(record.puzzle.cells) - record.puzzle.cells.count(0),
        "backend": spec,
        "repeat": repeat,
        "limit": config.limit,
        "jobs": config.jobs,
        "host": HOST,
    }


def plan(
    records: Sequence[PuzzleRecord], config: RunConfig
) -> Iterator[tuple[PuzzleRecord, str, int, bool]]:
    """Every (record, backend spec, repeat, is_warmup) in run order."""
    rng = random.Random(config.seed)
    for record in records:
        specs = [c.spec for c in config.backends if unsupported_reason(c, record) is None]
        if config.repeat > 1:
            yield from ((record, spec, -1, True) for spec in specs)
        for repeat in range(config.repeat):
            shuffled = list(specs)
            rng.shuffle(shuffled)
            yield from ((record, spec, repeat, False) for spec in shuffled)


def unsupported_reason(choice: BackendChoice, record: PuzzleRecord) -> str | None:
    """Why ``choice`` cannot run ``record`` at all (not installed, grid too large), or None."""
    if choice.unavailable is not None:
        return choice.unavailable
    largest = choice.cls.max_box**2
    if record.puzzle.n > largest:
        n = record.puzzle.n
        return f"{choice.spec} supports grids up to {largest}x{largest}; this one is {n}x{n}"
    return None


class RunError(SudokuError):
    """Settings a run cannot start with; the message says which and why."""


#: What a resumed run shares with the run it completes: setting -> (its flag, where the
#: metadata keeps it).
RESUMED: dict[str, tuple[str, Callable[[dict[str, Any]], Any]]] = {
    "backends": ("-b", lambda m: [b["spec"] for b in m["backends"]]),
    "files": ("FILES", lambda m: [d["path"] for d in m["datasets"]]),
    "timeout": ("--timeout", lambda m: m["limits"]["timeout_s"]),
    "memory_limit": ("--memory-limit", lambda m: m["limits"]["memory_limit_mib"]),
    "limit_solutions": ("--limit-solutions", lambda m: m["limits"]["solutions_limit"]),
    "repeat": ("--repeat", lambda m: m["repeat"]),
    "seed": ("--seed", lambda m: m["seed"]),
}


def resume_settings(out: Path, given: dict[str, Any]) -> dict[str, Any]:
    """The settings of the run recorded beside ``out``, which a ``--resume`` completes.

    ``given`` holds the settings named on the command line; each must equal the recorded
    one (backends and files as sets). Raises :class:`RunError` naming what differs, or a
    dataset file changed since. Returns ``{}`` when there is no metadata (an older run).
    """
    meta = provenance.read_meta(out)
    if meta is None:
        if provenance.meta_path_for(out).exists():
            raise RunError(f"{provenance.meta_path_for(out)}: cannot read it to resume {out}")
        return {}
    try:
        recorded = {name: get(meta) for name, (_, get) in RESUMED.items()}
    except (KeyError, TypeError):
        raise RunError(f"{provenance.meta_path_for(out)}: no run settings in it") from None
    differ = [
        f"{RESUMED[name][0]} {_shown(value)} (the run used {_shown(recorded[name])})"
        for name, value in given.items()
        if name in recorded and not _same(value, recorded[name])
    ]
    if differ:
        raise RunError(
            f"--resume: {'; '.join(differ)}; drop them to take the run's settings "
            f"from {provenance.meta_path_for(out)}, or choose another --out"
        )
    for entry in meta["datasets"]:
        path = entry.get("path")
        if path == "-" and "files" not in given:
            raise RunError("--resume: the run read standard input; give - again to resume it")
        digest = None if path == "-" else provenance.file_sha256(path)
        if path != "-" and digest is None:
            where = meta.get("cwd", "?")
            raise RunError(f"--resume: cannot read {path} (the run was started in {where})")
        if path != "-" and entry.get("sha256") != digest:
            raise RunError(f"--resume: {path} is not the file the run read (SHA-256 differs)")
    return recorded


def _same(given: Any, recorded: Any) -> bool:
    if isinstance(given, list | tuple):
        return set(map(str, given)) == set(map(str, recorded))
    return given == recorded or str(given) == str(recorded)


def _shown(value: Any) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)


def bare_worker_mib() -> float:
    """Resident memory of a worker that has done nothing yet: a fork of this process."""
    try:  # Linux: what psutil reads, without importing it (~10 ms of every start)
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


def check_out(config: RunConfig) -> tuple[list[str], list[dict[str, str]]] | None:
    """The rows already in ``config.out`` when resuming (see
    :func:`harness.results.check_resumable`), else None; an existing ``out`` without
    ``resume`` raises :class:`harness.results.ResultsError`."""
    if config.out.exists() and not config.resume:
        raise ResultsError(
            f"{config.out} exists; pass --resume to complete it, or choose another --out"
        )
    if config.resume and config.out.exists():
        return check_resumable(config.out, config.limit)
    return None


def run(
    records: Sequence[PuzzleRecord],
    config: RunConfig,
    progress: Callable[[int, dict[str, Any] | None], None] | None = None,
) -> RunResult:
    """Run every planned solve, append each checked row to ``config.out`` as it finishes.

    The CSV is locked for the run (a second run on it is refused) and checked by
    :func:`check_out` under the lock. ``progress(steps, row)`` is called as rows finish
    (``row`` is None for a row a resumed run already had).
    """
    began = time.perf_counter()
    config.out.parent.mkdir(parents=True, exist_ok=True)
    switching = sys.getswitchinterval()
    # The background threads (metadata, calibration) give the interpreter back every
    # 0.5 ms, not 5: the thread serving the workers waits that long at most to hand out
    # tasks, so a worker does not sit idle while they run.
    sys.setswitchinterval(SWITCH_S)
    gc.freeze()  # what lives through the run (modules, puzzles): out of the collector's sight
    background: list[provenance.Background[Any]] = []  # waited for on every way out
    try:  # (~1 % of a run of fast solves), and shared with the forked workers; given back
        with exclusive(config.out):
            existing = check_out(config)
            meta_path = provenance.meta_path_for(config.out)
            git = provenance.git_started()  # in the thread that forks the workers
            gathered = provenance.Background(
                lambda: _first_metadata(records, config, git), "metadata"
            )
            start = provenance.BackgroundCalibration()
            end = provenance.BackgroundCalibration()  # see _solve_all for when it starts
            background += (gathered, start, end)

            def long_run() -> bool:  # only a run this long is calibrated at its end too
                return time.perf_counter() - began >= provenance.CALIBRATE_END_AFTER_S

            def calibrate_end() -> None:
                if long_run():
                    end.start()

            def overlap() -> None:
                """Start the ~30 ms of background work (git's answer, versions, hashes, the
                start calibration), once every worker has its first task: it then delays
                no fork and no hand-out, and the solves overlap it (a cluster run starts
                it sooner, while Dask starts: see :func:`executor`)."""
                gathered.start()
                start.start()

            with executor(config, gathered, overlap) as pool:
                try:
                    result = _solve_all(
                        records, config, existing, progress, pool, calibrate_end, overlap
                    )
                except BaseException:
                    with contextlib.suppress(Exception):
                        gathered.result()  # an interrupted run's metadata is written too
                    raise
            meta = gathered.result()
            meta.update(
                finished=provenance.now_iso(), complete=True, cross_checked=result.cross_checked
            )
            # a short run's start calibration stands for all of it
            end_s = end.seconds() if end.started or long_run() else None
            meta["calibration"].update(start_s=start.seconds(), end_s=end_s)
            provenance.write_json(meta_path, meta)
    finally:
        for work in background:  # a failed run's too: a fork while one ran could hang
            work.finish()
        gc.unfreeze()
        sys.setswitchinterval(switching)
    return result


def _first_metadata(
    records: Sequence[PuzzleRecord], config: RunConfig, git: subprocess.Popen[str] | None
) -> dict[str, Any]:
    """The metadata of a run starting (``git``: see :func:`provenance.environment`),
    written now for a local run; a cluster run writes it once it has its hosts' (see
    :func:`executor`)."""
    meta = _metadata(records, config, git)
    if config.cluster is None:
        provenance.write_json(provenance.meta_path_for(config.out), meta)
    return meta


def _metadata(
    records: Sequence[PuzzleRecord], config: RunConfig, git: subprocess.Popen[str] | None
) -> dict[str, Any]:
    """The metadata of a run about to start (see :mod:`harness.results.provenance`)."""
    meta_path = provenance.meta_path_for(config.out)
    meta: dict[str, Any] = {
        **provenance.environment(git, spawning=FORK_LOCK),
        "csv": str(config.out),
        "started": provenance.now_iso(),
        "finished": None,
        "complete": False,
        "calibration": {
            "workload": provenance.CALIBRATION_WORKLOAD,
            "start_s": None,  # measured as the run starts (see run()); written at the end
            "end_s": None,
        },
        "limits": {
            "timeout_s": config.timeout,
            "memory_limit_mib": config.memory_limit_mib,
            "solutions_limit": config.limit,
        },
        "seed": config.seed,
        "jobs": config.jobs,
        "repeat": config.repeat,
        "datasets": [
            {"path": d, "sha256": provenance.file_sha256(d), "puzzles": _count(records, d)}
            for d in config.datasets
        ],
        "backends": [
            {
                "spec": c.spec,
                "available": c.unavailable is None,
                "reason": c.unavailable,
                "deterministic": c.cls.deterministic,
                "plugin": provenance.plugin_origin(c.cls),
            }
            for c in config.backends
        ],
        "skipped_lines": [str(b) for b in config.skipped],
    }
    if config.resume and meta_path.exists():  # keep the earlier sessions' provenance
        meta["previous_session"] = provenance.read_meta(config.out) or "unreadable"
    return meta


def _solve_all(
    records: Sequence[PuzzleRecord],
    config: RunConfig,
    existing: tuple[list[str], list[dict[str, str]]] | None,
    progress: Callable[[int, dict[str, Any] | None], None] | None,
    pool: WorkerPool | ClusterPool,
    calibrate_end: Callable[[], None],
    overlap: Callable[[], None] = lambda: None,
) -> RunResult:
    """Write the UNAVAILABLE rows, then every solve's checked row, then cross-check.

    ``overlap()`` is called once every worker has its first task (or there are no more
    tasks): it starts the work the solves can overlap. ``calibrate_end()`` starts the
    end-of-run calibration (in a run long enough for one, see :func:`run`); it is called
    in the run's last tenth, while the last solves run, when a core is left for it (fewer
    local workers than cores); else the caller calibrates after the run."""
    result = RunResult(config.out, provenance.meta_path_for(config.out))
    native = [name for c in config.backends for name in c.cls.native_counters]
    with RowWriter(config.out, columns_for(native), existing) as writer:
        result.resumed = len(writer.done)
        for choice in config.backends:  # recorded, never dropped silently
            for record in records:
                reason = unsupported_reason(choice, record)
                if reason is None:
                    continue
                row = _base_row(record, choice.spec, 0, config)
                row.update(status=Status.UNAVAILABLE, message=reason)
                if row_key(row) not in writer.done:
                    writer.write(row)
                if progress:
                    progress(config.repeat, row)
        done = frozenset(writer.done)  # the rows before the solves: those it writes cannot recur
        local = isinstance(pool, WorkerPool)  # it tells the writer when it waits

        spare_core = local and config.jobs < (os.cpu_count() or 1)
        warmups = config.repeat > 1  # plan() then yields one untimed solve first
        late = 0.9 * len(records) * len(config.backends) * (config.repeat + warmups)

        def todo() -> Iterator[Task]:  # drawn as workers need tasks: solving starts at once
            handed = 0
            for position, (record, spec, repeat, warmup) in enumerate(plan(records, config)):
                if spare_core and position >= late:  # the last tenth: calibrate meanwhile
                    calibrate_end()
                if done and not warmup and row_key(_base_row(record, spec, repeat, config)) in done:
                    if progress:
                        progress(1, None)
                    continue
                tag = (record, repeat, warmup)
                handed += 1
                if handed == config.jobs + 1:  # each worker has been given one
                    overlap()
                yield Task(spec, record.puzzle, config.limit, config.timeout, tag)
            overlap()
            if spare_core:
                calibrate_end()

        answers = pool.run(todo(), idle=writer.waiting) if local else pool.run(todo())
        for task, outcome in answers:
            record, repeat, warmup = task.tag
            if warmup:
                continue
            if outcome.native:  # a cmd: solver's statistics may be new columns
                writer.add_columns(name for name, _ in outcome.native)
            row = _base_row(record, task.backend, repeat, config)
            row.update(
                judge(record, outcome, config.limit, config.timeout, config.memory_limit_mib)
            )
            writer.write(row)
            if not local:  # a cluster's rows come in chunks, with waits the writer cannot see
                writer.flush()
            if progress:
                progress(1, row)
        budget = config.timeout or DEFAULT_TIMEOUT_S
        result.cross_checked = writer.cross_check(lambda p, s: settle_count(p, s, budget))
        result.rows = writer.rows
    return result


def log_path_for(csv_path: Path) -> Path:
    """Where the workers' stdout and stderr go: beside the CSV, ``x.csv`` -> ``x.log``."""
    return csv_path.with_suffix(".log")


@contextlib.contextmanager
def executor(
    config: RunConfig,
    gathered: provenance.Background[dict[str, Any]],
    overlap: Callable[[], None],
) -> Iterator[WorkerPool | ClusterPool]:
    """The pool that runs the solves: ``config.jobs`` local worker processes, or the Dask
    cluster ``config.cluster``. A local run's metadata is written while its first solves
    run (see :func:`_first_metadata`); a cluster run's is written here first, with every
    host's machine and versions, so the metadata names where the rows came from; a
    cluster that cannot be used fails before anything is written. A cluster run starts
    the background work (``overlap()``: metadata, calibration) while Dask starts: this
    process only waits then, and the solves later have the cores to themselves."""
    meta_path = provenance.meta_path_for(config.out)
    if config.cluster is None:
        with WorkerPool(config.jobs, config.memory_limit_mib, log=log_path_for(config.out)) as pool:
            yield pool
        return
    from harness.run import cluster

    with cluster.connect(config.cluster) as client:  # forked before any thread starts
        overlap()  # while Dask starts, in the process that holds its client
        pool = cluster.ClusterPool(client, config.memory_limit_mib)
        config.jobs = pool.threads  # solves in parallel, as the rows' ``jobs`` column says
        meta = gathered.result()
        meta.update(cluster.hosts_meta(cluster.check_workers(client, meta)))
        meta.update(cluster=str(config.cluster), jobs=config.jobs)
        provenance.write_json(meta_path, meta)
        yield pool


def _count(records: Sequence[PuzzleRecord], dataset: str) -> int:
    return sum(1 for r in records if r.dataset == dataset)


def total_steps(records: Sequence[PuzzleRecord], config: RunConfig) -> int:
    """How many progress steps :func:`run` reports: one per row."""
    return len(records) * len(config.backends) * config.repeat
