"""The runner: puzzles x backends x repeats -> checked, timed rows in a CSV, as they finish.

Order and fairness (:mod:`harness.run.plan`): puzzles run in file order; for each puzzle and
repeat the backends run in an order shuffled with ``seed``, so slow drift of the machine
spreads over all backends. With ``repeat > 1`` each (puzzle, backend) first gets one untimed
warm-up solve.

Every solve runs in a worker process (:mod:`harness.run.worker`); the answer is then checked
in the harness process, by :func:`harness.check.judge.judge_all` (each batch of answers a
worker sent checked together), against the file's expected count
and solution when it gives them. At the end, :func:`harness.check.crosscheck.cross_check` marks
as WRONG any claim (UNSAT, or uniqueness) another backend's checked answer refutes.

The harness holds no row: the puzzles are read a batch at a time as workers need them
(:class:`Puzzles`), and each row is written and dropped. At the end the results engine
(:mod:`harness.results.engine`) reads the CSV back for the cross-check, the tables and the
exit code.

The metadata beside the CSV (:mod:`harness.results.provenance`) is written before the first
solve, so an interrupted run keeps it, and completed at the end.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from backends.base import Status
from harness.check.crosscheck import cross_check
from harness.check.judge import judge_all, settle_count
from harness.outcome import Outcome
from harness.puzzles.readers import PuzzleRecord
from harness.results import (
    RowWriter,
    columns_for,
    companions,
    engine,
    exclusive,
    metadata,
    provenance,
    row_key,
)
from harness.results.calibration import CALIBRATE_END_AFTER_S, CALIBRATION_WORKLOAD, calibrate
from harness.results.engine import Results, Resumable
from harness.results.lock import Lock
from harness.results.writer import whole_lines
from harness.run.config import (
    DEFAULT_MEMORY_MIB,
    DEFAULT_TIMEOUT_S,
    BackendChoice,
    RunConfig,
    RunError,
    check_out,
    resolve_backends,
    validate,
)
from harness.run.plan import base_row, plan, total_steps, unsupported_reason
from harness.run.resume import resume_settings
from harness.run.worker import Task, WorkerPool

if TYPE_CHECKING:
    from harness.run.cluster import ClusterPool

__all__ = [
    "DEFAULT_MEMORY_MIB",
    "DEFAULT_TIMEOUT_S",
    "BackendChoice",
    "Listed",
    "Puzzles",
    "RunConfig",
    "RunError",
    "RunResult",
    "resolve_backends",
    "resume_settings",
    "run",
    "total_steps",
    "validate",
]


class Progress(Protocol):
    """What the run tells of its progress (:class:`harness.cli.progress.Progress`)."""

    def resuming(self, rows: int) -> None:
        """Before any step: the run completes a CSV that holds ``rows`` rows already."""
        ...

    def update(self, steps: int, row: dict[str, Any] | None) -> None:
        """``steps`` more finished: ``row`` the row just written, None for steps a resumed
        run already had."""
        ...


class Puzzles(Protocol):
    """The puzzles of a run, read as often as needed (see
    :class:`harness.puzzles.readers.files.PuzzleFiles`)."""

    #: How many puzzles each dataset holds, and the largest grid side among them.
    counts: Mapping[str, int]
    largest: int

    def records(self) -> Iterator[PuzzleRecord]:
        """Every puzzle, in order, read afresh."""
        ...


class Listed:
    """:class:`Puzzles` held in a list (a few, made by the caller)."""

    def __init__(self, records: Iterable[PuzzleRecord]) -> None:
        self._records = list(records)
        self.counts: dict[str, int] = {}
        for record in self._records:
            self.counts[record.dataset] = self.counts.get(record.dataset, 0) + 1
        self.largest = max((r.puzzle.n for r in self._records), default=0)

    def records(self) -> Iterator[PuzzleRecord]:
        return iter(self._records)


@dataclass
class RunResult:
    csv_path: Path
    meta_path: Path
    #: every row of the CSV (:data:`END_COLUMNS`), as the results engine loaded it at the end
    results: Results | None = None
    resumed: int = 0
    cross_checked: int = 0


#: The columns the end of a run reads back: for the cross-check, the tables, the failure
#: lines and the exit code.
END_COLUMNS = ("dataset", "line", "backend", "repeat", "status", "size", "solutions", "message")
END_COLUMNS += ("encode_s", "solve_s", "solve_cpu_s", "own_solve_s", "nodes", "guesses")


def run(
    puzzles: Puzzles | Sequence[PuzzleRecord], config: RunConfig, progress: Progress | None = None
) -> RunResult:
    """Run every planned solve, append each checked row to ``config.out`` as it finishes.

    The CSV is locked for the run (a second run on it is refused) and checked by
    :func:`check_out` under the lock. The machine is calibrated before the first solve and,
    in a run of :data:`CALIBRATE_END_AFTER_S` or more, after the last. Raises
    :class:`RunError` when no backend can solve any of ``records``, before anything is written.
    """
    if not hasattr(puzzles, "records"):
        puzzles = Listed(puzzles)  # type: ignore[arg-type]
    first = next(puzzles.records(), None)  # type: ignore[union-attr]
    if first is not None and next(plan(puzzles.records(), config), None) is None:  # type: ignore[union-attr]
        reason = unsupported_reason(config.backends[0], first)
        raise RunError(f"nothing to run: no backend given can solve these puzzles ({reason})")
    config.out.parent.mkdir(parents=True, exist_ok=True)
    with exclusive(config.out) as lock:
        existing = check_out(config, made=lock.created)
        earlier = metadata.read_meta(config.out) if existing is not None else None
        meta = _metadata(puzzles, config, earlier)  # type: ignore[arg-type]
        meta["calibration"]["start_s"] = calibrate()
        if config.cluster is None:  # a cluster run's is written once its hosts are known
            provenance.write_json(provenance.meta_path_for(config.out), meta)
        began = time.perf_counter()
        with executor(config, meta) as pool:
            result = _solve_all(puzzles, config, existing, progress, pool, lock)  # type: ignore[arg-type]
        if time.perf_counter() - began >= CALIBRATE_END_AFTER_S:
            meta["calibration"]["end_s"] = calibrate()
        meta.update(
            finished=provenance.now_iso(),
            complete=True,
            cross_checked=result.cross_checked,
            csv_digest=provenance.csv_digest(config.out),
        )
        provenance.write_json(result.meta_path, meta)
    return result


#: The distributions a cluster run's rows also depend on.
CLUSTER_PACKAGES = ("dask", "distributed")


def packages(config: RunConfig) -> list[str]:
    """The distributions the run's rows depend on, whose versions its metadata records: each
    backend's ``requires`` (its solver library), and Dask's on a cluster."""
    names = [c.cls.requires for c in config.backends if c.cls.requires]
    return [*names, *CLUSTER_PACKAGES] if config.cluster is not None else names


def _metadata(
    puzzles: Puzzles, config: RunConfig, earlier: dict[str, Any] | None
) -> dict[str, Any]:
    """The metadata of a run about to start (see :mod:`harness.results.provenance`);
    ``earlier``: that of the run it resumes, whose runs it keeps, in one flat list."""
    meta: dict[str, Any] = {
        **provenance.environment(packages(config)),
        "csv": str(config.out),
        "started": provenance.now_iso(),
        "finished": None,
        "complete": False,
        "calibration": {"workload": CALIBRATION_WORKLOAD, "start_s": None, "end_s": None},
        "limits": {
            "timeout_s": config.timeout,
            "memory_limit_mib": config.memory_limit_mib,
            "solutions_limit": config.limit,
        },
        "seed": config.seed,
        "jobs": config.jobs,
        "repeat": config.repeat,
        "datasets": [
            {"path": d, "sha256": provenance.file_sha256(d), "puzzles": puzzles.counts.get(d, 0)}
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
        "skipped_lines_more": config.skipped_more,
    }
    if config.against is not None:  # harness.run.against: the revision each SPEC@REV ran at
        meta["against"] = config.against
    if earlier is not None:
        meta[provenance.EARLIER] = provenance.earlier_runs(earlier)
    if config.history is not None:  # harness.history.measure: the commit of each SPEC@<sha>
        meta["history"] = config.history
    return meta


def _solve_all(
    puzzles: Puzzles,
    config: RunConfig,
    existing: Resumable | None,
    progress: Progress | None,
    pool: WorkerPool | ClusterPool,
    lock: Lock,
) -> RunResult:
    """Write the UNAVAILABLE rows, then every solve's checked row, then read the CSV back
    and cross-check it."""
    result = RunResult(config.out, provenance.meta_path_for(config.out))
    native = [name for c in config.backends for name in c.cls.native_counters]
    header = existing.header if existing is not None else None
    with RowWriter(config.out, columns_for(native), header, lock) as writer:
        result.resumed = existing.rows if existing is not None else 0
        if progress and result.resumed:
            progress.resuming(result.resumed)
        done = existing.done if existing is not None and existing.rows else None
        for choice in config.backends:
            if _unsupported(choice, puzzles.largest):
                _write_unavailable(choice, puzzles.records(), config, writer, done, progress)
        local = isinstance(pool, WorkerPool)  # it tells the writer when it waits
        tasks = _tasks(puzzles.records(), config, done, progress)
        batches = pool.batches(tasks, idle=writer.waiting) if local else pool.batches(tasks)
        for batch in batches:
            _write_answers(batch, config, writer, progress)
            if not local:  # a cluster's rows come in chunks, with waits the writer cannot see
                writer.flush()
        budget = config.timeout or DEFAULT_TIMEOUT_S
        writer.flush()
        columns = [*END_COLUMNS, *(["solution"] if config.limit == 2 else [])]
        result.results = engine.read([config.out], columns, vouched=True)
        verdicts = cross_check(
            result.results.con,
            "file_0",
            config.limit,
            lambda p, s: settle_count(p, s, budget),
            lambda at: _texts(config.out, at),
        )
        writer.change(verdicts)
        result.cross_checked = sum(1 for cells in verdicts.values() if "status" in cells)
    return result


def _write_answers(
    batch: list[tuple[Task, Outcome]],
    config: RunConfig,
    writer: RowWriter,
    progress: Progress | None,
) -> None:
    """The checked rows of a batch of answers (warm-ups left out), written."""
    solves = [(task, outcome) for task, outcome in batch if not task.tag[2]]  # no warm-up
    answered = [(task.tag[0], outcome) for task, outcome in solves]
    verdicts = judge_all(answered, config.limit, config.timeout, config.memory_limit_mib)
    for (task, outcome), fields in zip(solves, verdicts, strict=True):
        record, repeat, _ = task.tag
        if outcome.native:  # a cmd: solver's statistics may be new columns
            writer.add_columns(name for name, _ in outcome.native)
        row = base_row(record, task.backend, repeat, config)
        row.update(fields)
        writer.write(row)
        if progress:
            progress.update(1, row)


def _unsupported(choice: BackendChoice, largest: int) -> bool:
    """Whether some puzzle up to side ``largest`` is one ``choice`` cannot run."""
    return choice.unavailable is not None or largest > choice.cls.max_box**2


def _texts(path: Path, indexes: list[int]) -> dict[int, tuple[str, str]]:
    """The puzzle and solution of the rows of ``path`` at ``indexes``, read back."""
    import csv

    wanted = set(indexes)
    found = {}
    with path.open("rb") as binary:
        reader = csv.DictReader(whole_lines(binary))
        for index, row in enumerate(reader):
            if index in wanted:
                found[index] = (row["puzzle"], row["solution"])
    return found


def _write_unavailable(
    choice: BackendChoice,
    records: Iterable[PuzzleRecord],
    config: RunConfig,
    writer: RowWriter,
    done: Callable[[tuple[str, ...]], bool] | None,
    progress: Progress | None,
) -> None:
    """One UNAVAILABLE row for each puzzle ``choice`` cannot run: recorded, never dropped."""
    for record in records:
        reason = unsupported_reason(choice, record)
        if reason is None:
            continue
        row = base_row(record, choice.spec, 0, config)
        row.update(status=Status.UNAVAILABLE, message=reason)
        if done is None or not done(row_key(row)):
            writer.write(row)
        if progress:
            progress.update(config.repeat, row)


def _tasks(
    records: Iterable[PuzzleRecord],
    config: RunConfig,
    done: Callable[[tuple[str, ...]], bool] | None,
    progress: Progress | None,
) -> Iterator[Task]:
    """The run's tasks in plan order, drawn as workers need them; rows a resumed run already
    has are skipped (and counted as progress)."""
    for record, spec, repeat, warmup in plan(records, config):
        if done and not warmup and done(row_key(base_row(record, spec, repeat, config))):
            if progress:
                progress.update(1, None)
            continue
        yield Task(spec, record.puzzle, config.limit, config.timeout, (record, repeat, warmup))


@contextlib.contextmanager
def executor(config: RunConfig, meta: dict[str, Any]) -> Iterator[WorkerPool | ClusterPool]:
    """The pool that runs the solves: ``config.jobs`` local worker processes, or the Dask
    cluster ``config.cluster``. A cluster run's metadata is written here, with every host's
    machine and versions, so that it names where the rows came from; a cluster that cannot
    be used fails before anything is written."""
    if config.cluster is None:
        log = companions.log_path_for(config.out)
        with WorkerPool(config.jobs, config.memory_limit_mib, log=log) as pool:
            yield pool
        return
    from harness.run import cluster

    with cluster.connect(config.cluster, packages(config)) as client:
        pool = cluster.ClusterPool(client, config.memory_limit_mib)
        config.jobs = pool.threads  # solves in parallel, as the rows' ``jobs`` column says
        meta.update(cluster.hosts_meta(cluster.check_workers(client, meta)))
        meta.update(cluster=str(config.cluster), jobs=config.jobs)
        provenance.write_json(provenance.meta_path_for(config.out), meta)
        yield pool
