"""harness history: per-commit trends of results CSVs, and the steps between commits."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.gate import clocks
from harness.history import git
from tests.history_runs import (
    PUZZLES,
    base_times,
    history_run,
    rows_for,
    sha,
    write_run,
)

TIMES = base_times()
ROW = rows_for("mrv", [0.001], [1], seed=0)[0]
NODES = [10 + 7 * i for i in range(PUZZLES)]


def mrv_slower_at_3(k: int) -> tuple[list[float], list[int]]:
    """mrv: 1.4 times slower from commit 3 on, the same nodes throughout."""
    return [t * (1.4 if k >= 3 else 1.0) for t in TIMES], NODES


def norvig_nodes_at_5(k: int) -> tuple[list[float], list[int]]:
    """norvig: the same time throughout, one more node on every third puzzle from commit 5."""
    return TIMES, [n + (1 if k >= 5 and i % 3 == 0 else 0) for i, n in enumerate(NODES)]


def history(*args: str) -> tuple[int, str]:
    done = CliRunner().invoke(main, ["history", *args])
    return done.exit_code, done.output


def test_the_clock_that_judges_each_kind_of_backend() -> None:
    """CPU time in the worker's process, the solver's own clock for a cmd: solver that
    reports one, wall time otherwise and for several threads."""
    assert clocks.CPU == clocks.judging_clock("mrv", 1.0, False)
    assert clocks.CPU == clocks.judging_clock("lib:./x.so", 0.98, True)
    assert clocks.CPU == clocks.judging_clock("mrv@abc", 1.05, False)
    assert clocks.WALL == clocks.judging_clock("cpsat:workers=8", 5.2, False)
    assert clocks.OWN == clocks.judging_clock("cmd:./solver", 0.01, True)
    assert clocks.WALL == clocks.judging_clock("cmd:./solver", 0.01, False)
    assert clocks.OWN == clocks.judging_clock("mrv", None, True)
    assert clocks.WALL == clocks.judging_clock("mrv", None, False)
    assert clocks.is_time("propagate_s") and not clocks.is_time("conflicts")


def test_one_run_of_eight_commits_names_the_two_steps(tmp_path: Path) -> None:
    """A slowdown of mrv at commit 3 and a node change of norvig at commit 5: exactly those
    two steps, each with its commit, kind and ratio."""
    history_run(tmp_path, "h", 8, {"mrv": mrv_slower_at_3, "norvig": norvig_nodes_at_5})
    code, out = history(str(tmp_path), "--format", "json")
    assert 0 == code, out
    found = json.loads(out)
    steps = {(s["commit"], s["backend"], s["kind"]): s for s in found["steps"]}
    kinds = {(sha(3), "mrv", "time"), (sha(5), "norvig", "nodes"), (sha(5), "norvig", "guesses")}
    assert kinds == set(steps)
    slow = steps[(sha(3), "mrv", "time")]
    assert 1.35 < slow["ratio"] < 1.45 and slow["p"] < 0.01 and slow["low"] > 1
    assert slow["same_run"] and slow["previous"] == sha(2) and PUZZLES == slow["pairs"]
    counted = steps[(sha(5), "norvig", "nodes")]
    changed = sum(NODES) + len(range(0, PUZZLES, 3))
    assert counted["ratio"] == pytest.approx(changed / sum(NODES), rel=1e-3)
    rows = [r for r in found["rows"] if r["backend"] == "mrv"]
    assert [sha(k) for k in range(8)] == [r["commit"] for r in rows]
    assert all(r["solved"] == r["puzzles"] == PUZZLES for r in rows)
    assert ["change 0", "2026-01-01"] == [rows[0]["subject"], rows[0]["date"]]
    assert {"solve_cpu_s"} == {r["clock"] for r in found["rows"]}


def test_a_faster_commit_is_a_step_and_noise_is_not(tmp_path: Path) -> None:
    """Times x0.7 at commit 2 is a step (ratio below 1); 5 % wobbles are none."""

    def figures(k: int) -> tuple[list[float], list[int]]:
        wobble = 1.05 if k % 2 else 0.97
        return [t * wobble * (0.7 if k >= 2 else 1) for t in TIMES], NODES

    history_run(tmp_path, "h", 5, {"mrv": figures})
    found = json.loads(history(str(tmp_path), "--format", "json")[1])
    assert [(sha(2), "time")] == [(s["commit"], s["kind"]) for s in found["steps"]]
    assert found["steps"][0]["ratio"] < 0.75


def test_a_counter_of_a_backend_that_is_not_deterministic_is_no_step(tmp_path: Path) -> None:
    history_run(tmp_path, "h", 3, {"norvig": norvig_nodes_at_5})
    history_run(tmp_path / "more", "h2", 7, {"norvig": norvig_nodes_at_5})
    meta = tmp_path / "more" / "h2.csv.meta.json"
    data = json.loads(meta.read_text())
    for entry in data["backends"]:
        entry["deterministic"] = False
    meta.write_text(json.dumps(data))
    found = json.loads(history(str(tmp_path / "more"), "--format", "json")[1])
    assert [] == found["steps"]


def ordinary(folder: Path, k: int, times: list[float], calibration: float, **meta) -> Path:
    """A plain ``harness run`` of commit ``k``: backend mrv, git.sha in its metadata."""
    rows = rows_for("mrv", times, NODES, seed=k)
    info = {
        "git": {"sha": sha(k), "dirty": False},
        "started": f"2026-02-{k + 1:02d}T00:00:00+00:00",
        "calibration": {**_calibration(), "start_s": calibration},
        **meta,
    }
    return write_run(folder, f"run{k}", rows, info)


def _calibration() -> dict:
    from harness.results.calibration import CALIBRATION_WORKLOAD

    return {"workload": CALIBRATION_WORKLOAD, "end_s": None}


def test_runs_of_one_commit_each_compare_calibrated_and_say_so(tmp_path: Path) -> None:
    """Three runs of three commits: the second on a machine twice as slow (its calibration
    too) is no step; the third, 1.5 times slower at the same calibration, is one, marked as
    measured in different runs."""
    ordinary(tmp_path, 0, TIMES, 0.001)
    ordinary(tmp_path, 1, [t * 2 for t in TIMES], 0.002)
    ordinary(tmp_path, 2, [t * 3 for t in TIMES], 0.002)
    code, out = history(str(tmp_path), "--format", "json")
    assert 0 == code, out
    found = json.loads(out)
    assert [(sha(2), "time")] == [(s["commit"], s["kind"]) for s in found["steps"]]
    assert not found["steps"][0]["same_run"]
    assert 1.4 < found["steps"][0]["ratio"] < 1.6
    text = history(str(tmp_path))[1]
    assert "time x1.5" in text and "runs apart" in text and "load" in text


def test_machines_are_never_mixed(tmp_path: Path) -> None:
    """Two commits on two CPUs: two histories of one commit each, no step between them."""
    ordinary(tmp_path, 0, TIMES, 0.001)
    other = {"cpu_model": "Other CPU", "cpu_count": 8}
    ordinary(tmp_path, 1, [t * 3 for t in TIMES], 0.001, machine=other)
    found = json.loads(history(str(tmp_path), "--format", "json")[1])
    assert [] == found["steps"]
    assert {"Test CPU, 2 cores", "Other CPU, 8 cores"} == {r["machine"] for r in found["rows"]}


def test_a_run_of_uncommitted_changes_is_left_out(tmp_path: Path) -> None:
    ordinary(tmp_path, 0, TIMES, 0.001)
    ordinary(tmp_path, 1, [t * 3 for t in TIMES], 0.001, git={"sha": sha(1), "dirty": True})
    code, out = history(str(tmp_path))
    assert 0 == code
    assert "uncommitted changes" in out and "left out" in out
    assert sha(1)[:8] not in out.split("steps")[0]


def commit(repo: Path, message: str, date: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "GIT_COMMITTER_DATE": date,
        "GIT_AUTHOR_DATE": date,
    }
    run = subprocess.run
    run(["git", "-C", str(repo), "commit", "-q", "--allow-empty", "-m", message], env=env)
    return run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()


def test_git_order_comes_before_dates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Commits whose dates run backwards are ordered as git orders them, each named with
    its subject from git; the range A..B and a list name the commits given."""
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    shas = [commit(repo, f"commit {k}", f"2026-03-{20 - k:02d}T00:00:00") for k in range(3)]
    monkeypatch.setattr(git, "repository", lambda: repo)
    for k, full in enumerate(shas):
        rows = rows_for("mrv", [t * (2 if k == 2 else 1) for t in TIMES], NODES, seed=k)
        meta = {"git": {"sha": full, "dirty": False}, "started": "2026-04-01T00:00:00+00:00"}
        write_run(tmp_path / "results", f"r{k}", rows, meta)
    found = json.loads(history(str(tmp_path / "results"), "--format", "json")[1])
    assert shas == [r["commit"] for r in found["rows"]]
    assert ["commit 0", "commit 1", "commit 2"] == [r["subject"] for r in found["rows"]]
    assert [shas[2]] == [s["commit"] for s in found["steps"]]
    assert shas == git.revisions(repo, f"{shas[0]}..{shas[2]}")
    assert [shas[2], shas[0]] == git.revisions(repo, f"{shas[2][:8]},{shas[0]},{shas[2]}")
    assert [shas[0], shas[2]] == git.spaced(shas, 2)


def test_text_markdown_and_csv(tmp_path: Path) -> None:
    history_run(tmp_path, "h", 4, {"mrv": mrv_slower_at_3})
    text = history(str(tmp_path))[1]
    assert "mrv on set.txt (CPU time; Test CPU, 2 cores)" in text
    assert "steps (1), newest first:" in text
    assert f"{sha(3)[:10]} 2026-01-04 change 3" in text
    assert all(len(line) <= 100 for line in text.splitlines())
    markdown = history(str(tmp_path), "--format", "markdown")[1]
    assert "### mrv on set.txt" in markdown and "| commit |" in markdown
    table = history(str(tmp_path), "--format", "csv")[1].splitlines()
    assert table[0].startswith("machine,backend,dataset,commit,date,subject,clock,median_ms")
    assert 5 == len(table) and sha(3) in table[4] and "time x1.39 [" in table[4]


def test_only_the_backends_asked_for(tmp_path: Path) -> None:
    history_run(tmp_path, "h", 8, {"mrv": mrv_slower_at_3, "norvig": norvig_nodes_at_5})
    found = json.loads(history(str(tmp_path), "-b", "norvig", "--format", "json")[1])
    assert {"norvig"} == {r["backend"] for r in found["rows"]}
    assert ["guesses", "nodes"] == sorted(s["kind"] for s in found["steps"])


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda p: None, "no run in"),
        (lambda p: (p / "x.csv").write_text("a,b\n1,2\n"), "no run in"),
        (lambda p: write_run(p, "r", [{**ROW, "status": "BOGUS"}], {}), "r.csv:2: status"),
        (
            lambda p: (write_run(p, "r", [], {}), (p / "r.csv.meta.json").write_text("[")),
            "not JSON",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, make, said: str) -> None:
    make(tmp_path)
    code, out = history(str(tmp_path))
    assert 2 == code
    assert 1 == len(out.strip().splitlines()) and said in out and "Traceback" not in out


def test_a_path_that_does_not_exist(tmp_path: Path) -> None:
    code, out = history(str(tmp_path / "nowhere"))
    assert 2 == code and "no such file or folder" in out


def test_the_trends_page_shows_every_step_and_a_plot_per_backend(tmp_path: Path) -> None:
    """One trend plot per backend and dataset, each step marked in it and listed newest
    first; nothing fetched from the network; small with hundreds of commits."""
    history_run(tmp_path, "h", 8, {"mrv": mrv_slower_at_3, "norvig": norvig_nodes_at_5})
    page = tmp_path / "trends.html"
    code, out = history("report", str(tmp_path), "-o", str(page))
    assert 0 == code, out
    text = page.read_text()
    assert 2 == text.count('class="trend"') and 'id="steps"' in text
    assert f'id="step:time:{sha(3)[:12]}"' in text and f'id="step:nodes:{sha(5)[:12]}"' in text
    listed = text[text.index('id="steps"') : text.index('class="machine"')]
    assert listed.index(sha(5)[:10]) < listed.index(sha(3)[:10])  # newest first
    assert "time x1.4" in listed and "nodes 5,860 -&gt; 5,874" in listed
    assert [] == re.findall(r"https?://", text)
    many = tmp_path / "many"
    history_run(many, "h", 300, {"mrv": mrv_slower_at_3})
    assert 0 == history("report", str(many), "-o", str(many / "t.html"))[0]
    assert (many / "t.html").stat().st_size < 400_000
