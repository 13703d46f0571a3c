"""The runs a history is made of: found in folders, each backend of each run tied to the
commit it measured, grouped by machine class and put in commit order.

A run is a results CSV with its ``.meta.json``. Which commit a backend measured:

- in a run of ``harness history run`` (or ``find``), each ``SPEC@<sha>`` backend is a commit
  of its own, recorded under ``history`` in the metadata (sha, date, subject);
- in a run made with ``harness run --against REV``, each ``SPEC@REV`` twin measured REV's
  commit (``against.sha``), and ``SPEC`` the checkout's;
- in any other run, every backend measured the checkout's commit (``git.sha``); a run of a
  checkout with uncommitted changes measured no commit and is left out (said in a note), and
  a run that recorded no commit stands for itself, dated by its start.

Machine class: runs on different CPUs (model and core count) are never compared; each class
is a history of its own. Order: git's commit order when the checkout knows every commit,
else the commits' dates (a run's start where it recorded no commit).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.history import git
from harness.history.git import Commit, HistoryError
from harness.results.calibration import calibration_of
from harness.results.companions import meta_to_read
from harness.results.engine import run_names
from harness.results.metadata import read_meta
from harness.results.schema import ResultsError


@dataclass(frozen=True)
class Point:
    """What one backend of a run measured: ``spec`` (as its own tree names it) at a commit
    (``key``: the full sha, or ``run:<name>`` for a run that recorded none)."""

    spec: str
    key: str
    deterministic: bool


@dataclass
class Run:
    """A results CSV, its metadata and the commit each of its backends measured."""

    path: Path
    name: str
    meta: dict[str, Any]
    points: dict[str, Point] = field(default_factory=dict)

    @property
    def machine(self) -> str:
        """The machine class: CPU model and core count."""
        machine = self.meta.get("machine") or {}
        return f"{machine.get('cpu_model') or 'unknown CPU'}, {machine.get('cpu_count')} cores"

    @property
    def calibration(self) -> float | None:
        return calibration_of(self.meta)

    @property
    def started(self) -> str:
        return str(self.meta.get("started") or "")


@dataclass
class History:
    """Every run found, the commits they measured (by key, in order within each machine
    class), and notes on what was left out."""

    runs: list[Run]
    commits: dict[str, Commit]
    order: dict[str, list[str]]  # machine class -> commit keys, oldest first
    notes: list[str] = field(default_factory=list)
    repo: Path | None = None

    def label(self, key: str) -> Commit:
        return self.commits.get(key) or Commit(key)


def when(text: str | None) -> float:
    """An ISO 8601 date as seconds since the epoch (UTC where it names no zone), to order
    dates given in different zones; unknown or unreadable ones first."""
    import datetime

    try:
        moment = datetime.datetime.fromisoformat(str(text))
    except ValueError:
        return float("-inf")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    return moment.timestamp()


def find_csvs(paths: Sequence[Path]) -> tuple[list[Path], list[str]]:
    """The results CSVs under ``paths`` (folders searched recursively, hidden folders left
    out) that have a ``.meta.json``; and a note for those that have none."""
    found: list[Path] = []
    bare: list[Path] = []
    for path in paths:
        if path.is_dir():
            listed = sorted(
                p
                for p in path.rglob("*.csv")
                if not any(part.startswith(".") for part in p.relative_to(path).parts)
            )
        elif path.exists():
            listed = [path]
        else:
            raise HistoryError(f"{path}: no such file or folder")
        for csv in listed:
            if meta_to_read(csv).is_file():
                found.append(csv)
            else:
                bare.append(csv)
    found = list(dict.fromkeys(found))
    notes = []
    if bare:
        names = ", ".join(str(p) for p in bare[:3]) + (" ..." if len(bare) > 3 else "")
        notes.append(f"left out {len(bare)} CSV(s) without a .meta.json: {names}")
    return found, notes


def _history_points(meta: dict[str, Any], path: Path) -> dict[str, Point] | None:
    """The backends of a ``history run``: ``SPEC@<sha>`` -> its spec and commit."""
    entry = meta.get("history")
    if entry is None:
        return None
    try:
        backends = entry["backends"]
        return {
            str(name): Point(str(b["spec"]), str(b["sha"]), _deterministic(meta, str(name)))
            for name, b in backends.items()
        }
    except (KeyError, TypeError, AttributeError):
        raise HistoryError(
            f"{meta_to_read(path)}: its history entry is not "
            "{backends: {NAME: {spec, sha}}}; fix or remove it"
        ) from None


def _deterministic(meta: dict[str, Any], backend: str) -> bool:
    for entry in meta.get("backends") or []:
        if isinstance(entry, dict) and entry.get("spec") == backend:
            return bool(entry.get("deterministic"))
    return False


def tie(run: Run, backends: Iterable[str]) -> list[str]:
    """Tie each of ``backends`` (those ``run``'s rows hold) to the commit it measured (see
    the module); returns notes on what is left out."""
    meta = run.meta
    recorded = _history_points(meta, run.path)
    if recorded is not None:
        run.points = {b: recorded[b] for b in backends if b in recorded}
        return []
    state = meta.get("git") or {}
    sha, dirty = state.get("sha"), state.get("dirty")
    against = meta.get("against") if isinstance(meta.get("against"), dict) else {}
    twins = against.get("pairs") if isinstance(against.get("pairs"), dict) else {}
    notes = []
    for backend in backends:
        deterministic = _deterministic(meta, backend)
        if backend in twins and against.get("sha"):
            run.points[backend] = Point(str(twins[backend]), str(against["sha"]), deterministic)
        elif sha and dirty:
            continue
        elif sha:
            run.points[backend] = Point(backend, str(sha), deterministic)
        else:
            run.points[backend] = Point(backend, f"run:{run.name}", deterministic)
    if sha and dirty and len(run.points) < len(list(backends)):
        notes.append(f"{run.path}: measured uncommitted changes of {str(sha)[:10]}; left out")
    return notes


def read(paths: Sequence[Path]) -> tuple[list[Run], list[str]]:
    """The runs under ``paths`` and notes on the CSVs left out; a metadata file that cannot
    be used raises :class:`HistoryError` naming it."""
    csvs, notes = find_csvs(paths)
    runs = []
    for path, name in zip(csvs, run_names(csvs), strict=True):
        try:
            meta = read_meta(path)
        except ResultsError as exc:
            raise HistoryError(str(exc)) from None
        runs.append(Run(path, name, meta or {}))
    return runs, notes


def order(runs: Sequence[Run], repo: Path | None) -> History:
    """The commits ``runs`` measured, described and ordered per machine class (see the
    module); the runs' points must be tied (:func:`tie`)."""
    recorded: dict[str, Commit] = {}
    for run in runs:
        entry = run.meta.get("history")
        if isinstance(entry, dict) and isinstance(entry.get("commits"), dict):
            for sha, c in entry["commits"].items():
                if isinstance(c, dict):
                    recorded[str(sha)] = Commit(str(sha), c.get("date"), c.get("subject"))
    keys = {p.key for run in runs for p in run.points.values()}
    shas = [k for k in keys if not k.startswith("run:")]
    described = git.describe(repo, [s for s in shas if s not in recorded])
    commits = {**described, **recorded}
    started = {f"run:{run.name}": run.started for run in runs}
    for key in keys:
        if key.startswith("run:"):
            commits[key] = Commit(key, started[key] or None, f"run {key[4:]} (no commit recorded)")
        elif key not in commits:
            commits[key] = Commit(key)
    by_machine: dict[str, set[str]] = {}
    first_seen: dict[str, str] = {}
    for run in runs:
        for point in run.points.values():
            by_machine.setdefault(run.machine, set()).add(point.key)
            first_seen.setdefault(point.key, run.started)
            first_seen[point.key] = min(first_seen[point.key], run.started)
    ordered: dict[str, list[str]] = {}
    for machine, members in sorted(by_machine.items()):
        topo = (
            git.topological(repo, members)
            if not any(k.startswith("run:") for k in members)
            else None
        )
        if topo is None:
            topo = sorted(
                members, key=lambda k: (commits[k].date or first_seen[k], first_seen[k], k)
            )
        ordered[machine] = topo
    return History(list(runs), commits, ordered, repo=repo)
