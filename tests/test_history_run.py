"""harness history run and find: commits measured in one interleaved run, and bisection."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.history import bisect, git
from harness.history.git import Commit
from harness.run.worker import trees
from tests.conftest import PROJECT, pattern_puzzle
from tests.test_against import git as run_git

#: Appended to mrv.py at one commit: from there on, 7 more nodes on every solve.
MORE_NODES = """

_solve = MrvBackend.solve


def _more(self, encoded, limit=1, time_limit=None):
    import dataclasses

    result = _solve(self, encoded, limit, time_limit)
    return dataclasses.replace(result, nodes=(result.nodes or 0) + 7)


MrvBackend.solve = _more
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, list[str]]]:
    """Five commits of the project's backends: the third adds 7 nodes to mrv's count, the
    others touch a file nothing measures; trees cached in tmp_path."""
    root = tmp_path / "repo"
    shutil.copytree(PROJECT / "backends", root / "backends", ignore=shutil.ignore_patterns("__py*"))
    run_git(root, "init", "-q")
    shas = []
    for k in range(5):
        (root / "notes.txt").write_text(f"note {k}\n")
        if k == 2:
            with open(root / "backends" / "mrv.py", "a") as f:
                f.write(MORE_NODES)
        run_git(root, "add", "-A")
        run_git(root, "commit", "-qm", f"change {k}")
        shas.append(run_git(root, "rev-parse", "HEAD"))
    monkeypatch.setattr(git, "repository", lambda: root)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    yield root, shas
    trees.ROUTES.clear()


def puzzles(tmp_path: Path, count: int = 6) -> Path:
    data = tmp_path / "p.txt"
    data.write_text("".join(pattern_puzzle(3, 2 + k % 3).to_string() + "\n" for k in range(count)))
    return data


def invoke(*args: str) -> tuple[int, str]:
    done = CliRunner().invoke(main, ["history", *args])
    return done.exit_code, done.output


def test_history_run_measures_each_commit_and_history_reads_it(
    tmp_path: Path, repo: tuple[Path, list[str]]
) -> None:
    """Every commit of the range is a backend of one run, interleaved puzzle by puzzle; the
    metadata says which is which, and the history names the commit that changed the count."""
    _, shas = repo
    out = tmp_path / "h.csv"
    code, text = invoke(
        "run",
        f"{shas[0]}..{shas[-1]}",
        "-q",
        "-b",
        "mrv",
        "--out",
        str(out),
        str(puzzles(tmp_path)),
    )
    assert 0 == code, text
    meta = json.loads(out.with_name("h.csv.meta.json").read_text())
    assert {f"mrv@{s[:12]}": {"spec": "mrv", "sha": s} for s in shas} == meta["history"]["backends"]
    assert "change 4" == meta["history"]["commits"][shas[4]]["subject"]
    import csv

    with open(out, newline="") as handle:
        order = [row["backend"] for row in csv.DictReader(handle)]
    assert 5 * 6 == len(order) and order[:5] != sorted(order[:5])  # interleaved, shuffled
    assert all(set(order[i : i + 5]) == set(order[:5]) for i in range(0, 30, 5))
    assert "steps (1), newest first:" in text and "nodes" in text
    found = json.loads(invoke(str(tmp_path), "--format", "json")[1])
    assert [(shas[2], "mrv", "nodes")] == [
        (s["commit"], s["backend"], s["kind"]) for s in found["steps"]
    ]
    assert found["steps"][0]["totals"][1] - found["steps"][0]["totals"][0] == 7 * 6


def test_history_run_with_steps_keeps_the_ends(
    tmp_path: Path, repo: tuple[Path, list[str]]
) -> None:
    _, shas = repo
    out = tmp_path / "h.csv"
    args = ["run", f"{shas[0]}..{shas[-1]}", "--steps", "3", "-q", "--out", str(out)]
    assert 0 == invoke(*args, str(puzzles(tmp_path, 2)))[0]
    meta = json.loads(out.with_name("h.csv.meta.json").read_text())
    assert [shas[0], shas[2], shas[4]] == list(meta["history"]["commits"])


def test_history_find_names_the_commit_that_changed_the_count(
    tmp_path: Path, repo: tuple[Path, list[str]]
) -> None:
    _, shas = repo
    data = str(puzzles(tmp_path))
    code, out = invoke(
        "find", shas[0], shas[-1], "-q", "--out", str(tmp_path / "f"), "--format", "json", data
    )
    assert 0 == code, out
    found = json.loads(out)
    assert shas[2] == found["commit"]
    assert len(found["steps"]) <= 3
    assert {"changed", "same"} >= {s["verdict"] for s in found["steps"]}
    assert all(Path(s["csv"]).is_file() for s in found["steps"])
    code, out = invoke("find", shas[2], shas[-1], "-q", "--out", str(tmp_path / "g"), data)
    assert 1 == code and f"no step between {shas[2][:10]} and {shas[4][:10]}" in out


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["run", "nosuch..HEAD"], "nosuch: no such revision"),
        (["run", "HEAD...HEAD~1"], "give a range as A..B"),
        (["run", "HEAD..HEAD~2"], "is not an ancestor of"),
        (["run", "HEAD", "-b", "nosuchbackend"], "nosuchbackend"),
        (["find", "HEAD", "HEAD"], "the same commit"),
        (["find", "HEAD", "HEAD~2"], "is not an ancestor of"),
        (["find", "HEAD~1", "zzz"], "zzz: no such revision"),
    ],
)
def test_bad_revisions_are_one_line_and_exit_2(
    tmp_path: Path, repo: tuple[Path, list[str]], args: list[str], said: str
) -> None:
    code, out = invoke(*args, str(puzzles(tmp_path, 1)))
    assert 2 == code, out
    assert 1 == len(out.strip().splitlines()) and said in out


def line(n: int) -> list[Commit]:
    return [Commit(f"{k:040x}") for k in range(n)]


@pytest.mark.parametrize("bad_from", [1, 2, 3, 4, 5, 6, 7])
def test_bisection_finds_the_first_bad_commit_in_at_most_four_steps(bad_from: int) -> None:
    """Eight commits, bad from ``bad_from`` on: found, each step against the last good."""
    commits = line(8)
    seen = []

    def measure(good: Commit, commit: Commit, index: int) -> bisect.Verdict:
        seen.append((good, commit))
        assert int(good.sha, 16) < bad_from or good == commits[0]
        slower = int(commit.sha, 16) >= bad_from
        return bisect.Verdict(commit, good, bisect.SLOWER if slower else bisect.SAME)

    found, verdicts = bisect.search(commits[0], commits[1:], measure)
    assert commits[bad_from] == found
    assert len(verdicts) == len(seen) <= 4


def test_bisection_without_a_bad_commit_says_none() -> None:
    commits = line(8)
    found, verdicts = bisect.search(
        commits[0], commits[1:], lambda g, c, i: bisect.Verdict(c, g, bisect.SAME)
    )
    assert found is None and commits[7] == verdicts[-1].commit and len(verdicts) == 4
    found, verdicts = bisect.search(
        commits[0], commits[1:2], lambda g, c, i: bisect.Verdict(c, g, bisect.SLOWER)
    )
    assert commits[1] == found and 1 == len(verdicts)
