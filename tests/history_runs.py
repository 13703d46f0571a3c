"""Results CSVs and their metadata written by a test, for ``harness history``: runs of several
commits (as ``history run`` records them) or of one, with times and counters chosen."""

from __future__ import annotations

import csv
import datetime
import json
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from harness.results import companions
from harness.results.calibration import CALIBRATION_WORKLOAD
from harness.results.schema import BASE_COLUMNS

MACHINE = {"cpu_model": "Test CPU", "cpu_count": 2, "usable_cpus": 2, "os": "Linux"}
#: A number of puzzles large enough for the paired test.
PUZZLES = 40


def sha(n: int) -> str:
    """A made-up full sha for commit ``n``."""
    return f"{n:08x}" + "ab" * 16


def base_times(count: int = PUZZLES, seed: int = 7) -> list[float]:
    """Per-puzzle solve times (seconds), from 0.1 to a few ms."""
    rng = random.Random(seed)
    return [0.0001 * (1 + 30 * rng.random()) for _ in range(count)]


def rows_for(
    backend: str,
    times: Sequence[float],
    nodes: Sequence[int],
    seed: int,
    noise: float = 0.02,
    dataset: str = "datasets/set.txt",
) -> list[dict[str, Any]]:
    """One SOLVED row per puzzle: CPU time ``times[i]`` give or take ``noise``, wall time a
    little more, ``nodes[i]`` nodes."""
    rng = random.Random(seed)
    rows = []
    for i, (t, n) in enumerate(zip(times, nodes, strict=True)):
        cpu = t * (1 + noise * (2 * rng.random() - 1))
        rows.append(
            {
                "dataset": dataset,
                "line": i + 1,
                "puzzle": f"{i:081d}",
                "size": 9,
                "givens": 30,
                "backend": backend,
                "repeat": 0,
                "limit": 1,
                "jobs": 1,
                "host": "h",
                "status": "SOLVED",
                "solve_s": f"{cpu * 1.05:.9f}",
                "solve_cpu_s": f"{cpu:.9f}",
                "nodes": n,
                "guesses": n // 2,
            }
        )
    return rows


def write_run(
    folder: Path,
    name: str,
    rows: list[dict[str, Any]],
    meta: dict[str, Any],
) -> Path:
    """``folder/name.csv`` and its ``.meta.json`` (a run's usual fields, then ``meta``)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, BASE_COLUMNS, restval="")
        writer.writeheader()
        writer.writerows(rows)
    backends = sorted({r["backend"] for r in rows})
    full = {
        "git": {"sha": None, "dirty": None},
        "machine": MACHINE,
        "python": {"version": "3.11.7"},
        "started": "2026-01-01T00:00:00+00:00",
        "calibration": {"workload": CALIBRATION_WORKLOAD, "start_s": 0.001, "end_s": None},
        "backends": [{"spec": b, "available": True, "deterministic": True} for b in backends],
        **meta,
    }
    companions.meta_path_for(path).write_text(json.dumps(full), encoding="utf-8")
    return path


def history_run(
    folder: Path,
    name: str,
    commits: int,
    backends: dict[str, Callable[[int], tuple[list[float], list[int]]]],
    seed: int = 1,
) -> Path:
    """A run of ``commits`` commits as ``history run`` records it: each backend ``SPEC`` of
    ``backends`` (commit index -> per-puzzle times and nodes) as ``SPEC@<sha>``."""
    rows, named = [], {}
    for k in range(commits):
        for spec, figures in backends.items():
            times, nodes = figures(k)
            backend = f"{spec}@{sha(k)[:12]}"
            named[backend] = {"spec": spec, "sha": sha(k)}
            rows += rows_for(backend, times, nodes, seed=seed * 1000 + k * 10 + len(named))
    start = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    commits_meta = {
        sha(k): {
            "date": (start + datetime.timedelta(days=k)).isoformat(),
            "subject": f"change {k}",
        }
        for k in range(commits)
    }
    return write_run(folder, name, rows, {"history": {"commits": commits_meta, "backends": named}})
