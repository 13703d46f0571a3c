"""harness history end to end, on a repository of eight commits of this project, measured
with two busy loops taking the machine's CPUs: one commit makes mrv 1.4 times slower in CPU
work, another changes norvig's node counts, the others touch nothing that is measured.
``history run`` then ``history`` name exactly those two commits; ``history find`` names the
slow one in at most four steps; the trends page shows both steps in Chromium."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import PROJECT, busy_loops

#: Appended to backends/mrv.py at the slow commit: each solve then spins on the CPU for 0.4
#: of the CPU time its search took, so mrv does 1.4 times the CPU work on every puzzle.
SLOWER = """

_search = MrvBackend.solve


def _slower(self, encoded, limit=1, time_limit=None):
    import time

    start = time.process_time()
    result = _search(self, encoded, limit, time_limit)
    until = time.process_time() + 0.4 * (time.process_time() - start)
    while time.process_time() < until:
        pass
    return result


MrvBackend.solve = _slower
"""

#: norvig tries a cell's digits in descending order from the counter commit on: the same
#: work per node, other node counts.
DESCENDING = """

def _descending(cands, cell, t):
    from backends.engines.search.heuristics import ascending

    return ascending(cands, cell, t)[::-1]


_heuristics = NorvigBackend.heuristics


def _reordered(self):
    import dataclasses

    return dataclasses.replace(_heuristics(self), order=_descending)


NorvigBackend.heuristics = _reordered
"""

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    assert 0 == done.returncode, done.stderr
    return done.stdout.strip()


def project_copy(root: Path) -> None:
    """The project's files as git sees them (tracked, and new ones not ignored)."""
    listed = (
        subprocess.run(
            [
                "git",
                "-C",
                str(PROJECT),
                "ls-files",
                "-z",
                "--cached",
                "--others",
                "--exclude-standard",
            ],
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        source = PROJECT / name
        if source.is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, root / name)


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """Eight commits: 0 the project, 3 mrv slower, 5 norvig's nodes, the rest notes."""
    root = tmp_path_factory.mktemp("history") / "repo"
    root.mkdir()
    project_copy(root)
    git(root, "init", "-q")
    git(root, "config", "user.name", "t")
    git(root, "config", "user.email", "t@t")
    git(root, "config", "commit.gpgsign", "false")
    shas = []
    for k in range(8):
        if k == 3:
            with open(root / "backends" / "mrv.py", "a") as f:
                f.write(SLOWER)
        elif k == 5:
            with open(root / "backends" / "norvig.py", "a") as f:
                f.write(DESCENDING)
        elif k:
            (root / "docs" / "notes.md").write_text(f"note {k}\n")
        git(root, "add", "-A")
        git(root, "commit", "-qm", f"commit {k}")
        shas.append(git(root, "rev-parse", "HEAD"))
    return root, shas


@pytest.fixture(scope="module")
def load() -> Iterator[None]:
    """Two busy loops, each in a session of its own, for as long as the module's tests run."""
    with busy_loops(2):
        yield


def harness(repo: Path, cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The repository's own harness, run from it as a user of that checkout runs it."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    env["PYTHONPATH"] = os.pathsep.join([str(repo), *filter(None, [env.get("PYTHONPATH")])])
    command = [sys.executable, "-c", "from harness.cli.entry import main; main()", *args]
    return subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def puzzles(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """70 9x9 puzzles on which norvig searches: medium.txt and needs-guess.txt."""
    folder = tmp_path_factory.mktemp("puzzles")
    lines = []
    for name in ("medium.txt", "needs-guess.txt"):
        text = (PROJECT / "datasets" / name).read_text().splitlines()
        lines += [x for x in text if x.strip() and not x.startswith("#")]
    data = folder / "p.txt"
    data.write_text("\n".join(lines) + "\n")
    return data


@pytest.mark.slow
@pytest.mark.load
def test_history_names_the_two_commits_finds_the_slow_one_and_shows_both(
    repository: tuple[Path, list[str]], load: None, puzzles: Path, tmp_path: Path
) -> None:
    repo, shas = repository
    cache, results = tmp_path / "cache", tmp_path / "results"
    results.mkdir()
    done = harness(
        repo, cache, "history", "run", f"{shas[0]}..{shas[-1]}", "-q", "-b", "mrv",
        "-b", "norvig", "--out", str(results / "h.csv"), str(puzzles),
    )  # fmt: skip
    assert 0 == done.returncode, done.stderr
    shown = harness(repo, cache, "history", str(results), "--format", "json")
    assert 0 == shown.returncode, shown.stderr
    steps = json.loads(shown.stdout)["steps"]
    print("steps:", json.dumps(steps, indent=1))
    assert {shas[3], shas[5]} == {s["commit"] for s in steps}
    slow = [s for s in steps if s["commit"] == shas[3]]
    assert [("mrv", "time")] == [(s["backend"], s["kind"]) for s in slow]
    assert 1.25 < slow[0]["ratio"] < 1.6 and slow[0]["p"] < 0.01 and slow[0]["same_run"]
    counted = {(s["backend"], s["kind"]) for s in steps if s["commit"] == shas[5]}
    assert ("norvig", "nodes") in counted and {"norvig"} == {b for b, _ in counted}

    found = harness(
        repo, cache, "history", "find", shas[0], shas[-1], "-q", "-b", "mrv",
        "--format", "json", "--out", str(tmp_path / "find"), str(puzzles),
    )  # fmt: skip
    assert 0 == found.returncode, found.stdout + found.stderr
    bisected = json.loads(found.stdout)
    print("find:", json.dumps(bisected, indent=1))
    assert shas[3] == bisected["commit"]
    assert len(bisected["steps"]) <= 4

    page = tmp_path / "trends.html"
    written = harness(repo, cache, "history", "report", str(results), "-o", str(page))
    assert 0 == written.returncode, written.stderr
    if CHROMIUM is None:
        pytest.skip("chromium is absent (apt-get install chromium): the page was not opened")
    began = time.monotonic()
    dom = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    print(f"chromium: {time.monotonic() - began:.1f} s")
    assert 0 == dom.returncode
    listed = dom.stdout[dom.stdout.index('id="steps"') : dom.stdout.index('class="machine"')]
    assert shas[3][:10] in listed and shas[5][:10] in listed
    assert f'id="step:time:{shas[3][:12]}"' in dom.stdout
    assert f'id="step:nodes:{shas[5][:12]}"' in dom.stdout
