"""harness run --against under constant load: unchanged code holds, a 1.3x slower mrv is
caught, three runs out of three each.

A copy of the project (its tracked files) is a git repository of two commits: the project
as it is, then an mrv that does more work at every node, about 1.3 times the CPU time. The
harness runs from that copy, as a user's checkout, while two busy loops keep both CPUs of a
small machine loaded.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.exit_codes import CheckExit
from tests.conftest import PROJECT, busy_loops
from tests.results_file import read_rows
from tests.test_against import git

#: Appended to mrv.py by the second commit: a little more work after every node's inference.
SLOWER = """

import dataclasses as _dataclasses

_heuristics = MrvBackend.heuristics


def _more_work(inference):
    def inference_and_more(cands, cell, bit, t):
        for _ in range(85):
            pass
        return inference(cands, cell, bit, t)

    return inference_and_more


def _slower(self):
    found = _heuristics(self)
    return _dataclasses.replace(found, inference=_more_work(found.inference))


MrvBackend.heuristics = _slower
"""
#: The command line, run from the copy.
ENTRY = "from harness.cli.entry import main; main()"
RUNS = 3


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The copy: HEAD~1 the project as it is, HEAD with mrv slower."""
    root = tmp_path_factory.mktemp("against-load") / "project"
    listed = subprocess.run(
        ["git", "-C", str(PROJECT), "ls-files", "-z"], capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        if (PROJECT / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(PROJECT / name, root / name)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "as it is")
    with open(root / "backends" / "mrv.py", "a") as f:
        f.write(SLOWER)
    git(root, "commit", "-qam", "mrv slower")
    return root


@pytest.fixture(scope="module")
def puzzles(project: Path) -> Path:
    """30 puzzles of hard95 whose mrv solves take about 10 ms each."""
    lines = (PROJECT / "datasets" / "hard95.txt").read_text().splitlines()
    grids = [line for line in lines if line and not line.startswith("#")]
    path = project.parent / "p30.txt"
    path.write_text("\n".join(grids[::3][:30]) + "\n")
    return path


@pytest.fixture(scope="module")
def loaded() -> Iterator[None]:
    """Two busy loops, each in a session of its own, for as long as the tests run."""
    with busy_loops(2):
        yield


def harness(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(project),
        "XDG_CACHE_HOME": str(project.parent / "cache"),
    }
    command = [sys.executable, "-c", ENTRY, *args]
    return subprocess.run(command, cwd=project, env=env, capture_output=True, text=True)


def against(project: Path, puzzles: Path, rev: str, k: int) -> tuple[int, float, list[str]]:
    """``harness run -q -b mrv --against REV --seed K``, then ``harness check`` of its CSV:
    check's exit code, the median per-puzzle CPU ratio new/old, and the backend of each
    row, in the order they ran (one worker: the CSV's order)."""
    out = project.parent / f"{rev.replace('~', '-')}-{k}.csv"
    ran = harness(project, "run", "-q", "-b", "mrv", "--against", rev, "--seed", str(k),
                  "--out", str(out), str(puzzles))  # fmt: skip
    assert ran.returncode in (0, 1), ran.stdout + ran.stderr
    rows = read_rows(out)[1]
    cpu = {(r["backend"], r["line"]): float(r["solve_cpu_s"]) for r in rows}
    ratios = [cpu[("mrv", line)] / cpu[(f"mrv@{rev}", line)] for _, line in cpu if _ == "mrv"]
    checked = harness(project, "check", str(out)).returncode
    return checked, statistics.median(ratios), [r["backend"] for r in rows]


@pytest.mark.slow
@pytest.mark.load
def test_against_head_holds_and_a_slower_mrv_is_caught_under_load(
    project: Path, puzzles: Path, loaded: None
) -> None:
    """Under two busy loops: --against HEAD (the same code on both sides) holds in 3 runs
    of 3; --against HEAD~1 (mrv 1.3x slower: its CPU ratios between 1.15 and 1.5) is a
    REGRESSION in 3 runs of 3. In every run each puzzle's two solves ran one right after
    the other, the old code first on one puzzle and the new code first on the next."""
    same = [against(project, puzzles, "HEAD", k) for k in range(RUNS)]
    slower = [against(project, puzzles, "HEAD~1", k) for k in range(RUNS)]
    report = f"HEAD: {[(c, round(r, 3)) for c, r, _ in same]}; "
    report += f"HEAD~1: {[(c, round(r, 3)) for c, r, _ in slower]}"
    print(report)  # exit codes and median CPU ratios, shown with pytest -s
    assert [CheckExit.OK] * RUNS == [code for code, _, _ in same], report
    assert [CheckExit.REGRESSION] * RUNS == [code for code, _, _ in slower], report
    assert all(1.15 < ratio < 1.5 for _, ratio, _ in slower), report
    for rev, (_, _, order) in zip(["HEAD"] * RUNS + ["HEAD~1"] * RUNS, same + slower, strict=True):
        assert [f"mrv@{rev}", "mrv", "mrv", f"mrv@{rev}"] * 15 == order
