"""A stored baseline under load, as a user meets it: a run loaded halfway by busy loops holds
against a quiet baseline, and a real slowdown of mrv's work is caught under the same load.

The recipe: ``harness run -b mrv -b norvig --repeat 3 datasets/hard95.txt`` recorded
quietly; the same run again, with four busy loops, each in its own session, started once 40
rows are written and kept until the run ends; then ``harness check BASE NEW``, three times.
"""

from __future__ import annotations

import contextlib
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import backends
from backends.mrv import MrvBackend
from harness.cli import main
from tests.conftest import busy_loops

PROJECT = Path(__file__).resolve().parents[1]
DATASET = "datasets/hard95.txt"
COMMAND = ["run", "-q", "-b", "mrv", "-b", "norvig", "--repeat", "3"]
#: Busy loops, and the rows written before they start.
LOOPS, LOAD_AFTER = 4, 40
#: How many loaded runs of each kind.
RUNS = 3
#: How much slower the slowed mrv's work is.
SLOWDOWN = 1.3


class SlowMrv(MrvBackend):
    """mrv made :data:`SLOWDOWN` times slower in CPU work: after its search it works on
    until the solve has taken that many times the search's CPU time (a change of the code's
    speed, which a machine's load does not add to)."""

    def solve(self, encoded, limit=1, time_limit=None):
        start = time.process_time()
        result = super().solve(encoded, limit, time_limit)
        until = start + SLOWDOWN * (time.process_time() - start)
        while time.process_time() < until:
            pass
        return result


def rows_in(path: Path) -> int:
    """The rows a results CSV being written holds so far."""
    try:
        return max(0, path.read_bytes().count(b"\n") - 1)
    except FileNotFoundError:
        return 0


def run_loaded(out: Path) -> None:
    """The recipe's run into ``out``, loaded by :data:`LOOPS` busy loops from its
    :data:`LOAD_AFTER`-th row to its end."""
    loops = contextlib.ExitStack()
    started = threading.Event()
    ended = threading.Event()

    def load() -> None:
        while not ended.wait(0.02):
            if rows_in(out) >= LOAD_AFTER:
                loops.enter_context(busy_loops(LOOPS))
                started.set()
                return

    watcher = threading.Thread(target=load)
    watcher.start()
    try:
        done = CliRunner().invoke(main, [*COMMAND, "--out", str(out), DATASET])
    finally:
        ended.set()
        watcher.join()
        loops.close()
    assert 0 == done.exit_code, done.output
    assert started.is_set(), "the run ended before the load started"


def cpu_ratio(base: Path, new: Path) -> float:
    """The median per-puzzle ratio of mrv's CPU time, new over base, as measured."""
    medians = [
        pd.read_csv(p).query("backend == 'mrv'").groupby("line")["solve_cpu_s"].median()
        for p in (base, new)
    ]
    return float(np.median(medians[1] / medians[0]))


def check(base: Path, new: Path) -> tuple[int, str]:
    done = CliRunner().invoke(main, ["check", str(base), str(new)])
    return done.exit_code, done.output


def time_cells(output: str, backend: str) -> list[str]:
    """The cells of ``backend``'s time finding in a check's output, a cell wrapped over the
    row's lines joined again."""
    lines = output.splitlines()
    at = next(
        i for i, line in enumerate(lines) if line.startswith(f"| {backend} ") and "ms" in line
    )
    row = [lines[at]]
    for line in lines[at + 1 :]:
        if not line.startswith("|  "):
            break
        row.append(line)
    parts = [line[2:-2].split(" | ") for line in row]
    return [" ".join(p[i].strip() for p in parts if p[i].strip()) for i in range(len(parts[0]))]


@pytest.mark.slow
@pytest.mark.load
def test_a_loaded_run_holds_and_a_slowdown_under_load_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three loaded runs against the quiet baseline: no REGRESSION (exit 0); three loaded
    runs of mrv 1.3x slower in CPU work: REGRESSION on mrv's CPU time (exit 1)."""
    monkeypatch.chdir(PROJECT)
    base = tmp_path / "base.csv"
    quiet = CliRunner().invoke(main, [*COMMAND, "--out", str(base), DATASET])
    assert 0 == quiet.exit_code, quiet.output
    for k in range(RUNS):
        new = tmp_path / f"loaded-{k}.csv"
        run_loaded(new)
        code, output = check(base, new)
        print(f"\nloaded {k}: exit {code}\n{output}")
        assert (0, False) == (code, "REGRESSION" in output), output
    monkeypatch.setitem(backends.REGISTRY, "mrv", SlowMrv)
    for k in range(RUNS):
        new = tmp_path / f"slow-{k}.csv"
        run_loaded(new)
        code, output = check(base, new)
        print(f"\nslower {k}: CPU x{cpu_ratio(base, new):.3f} measured, exit {code}\n{output}")
        assert 1.2 < cpu_ratio(base, new) < 1.45  # the slowdown is the one meant
        assert 1 == code, output
        cells = time_cells(output, "mrv")
        check_name, verdict = cells[2::3]  # "(calibrated)" unless the calibrations agree
        assert (True, "**REGRESSION**") == (check_name.startswith("median solve CPU ms"), verdict)
