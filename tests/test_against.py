"""harness run --against REV: the old tree's backends, in processes of their own, gated in pairs."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.exit_codes import CheckExit, RunExit
from harness.results import provenance
from harness.run import against
from harness.run.config import RunConfig
from harness.run.worker import trees
from tests.conftest import PROJECT, pattern_puzzle
from tests.results_file import read_rows
from tests.test_reaper import marker, sleeps

#: Appended to the old tree's mrv.py: its node counts are 1000 higher than the new code's.
COUNTS_MORE = """

_solve = MrvBackend.solve


def _more(self, encoded, limit=1, time_limit=None):
    import dataclasses

    result = _solve(self, encoded, limit, time_limit)
    return dataclasses.replace(result, nodes=(result.nodes or 0) + 1000)


MrvBackend.solve = _more
"""


#: Appended to mrv.py: each solve says which process measured it, as native statistics:
#: its pid, its parent's, whether the harness's command line is loaded in it (as in a
#: worker, a fork of the harness), and the CPUs it may run on (a bit each).
WHO_MEASURED = """

import os as _os
import sys as _sys

_measured_solve = MrvBackend.solve
MrvBackend.native_counters = ("pid", "parent_pid", "harness_loaded", "cpus")


def _who(self, encoded, limit=1, time_limit=None):
    import dataclasses

    result = _measured_solve(self, encoded, limit, time_limit)
    loaded = int("harness.cli" in _sys.modules)
    cpus = sum(1 << cpu for cpu in _os.sched_getaffinity(0))
    native = {"pid": _os.getpid(), "parent_pid": _os.getppid(), "harness_loaded": loaded}
    native["cpus"] = cpus
    return dataclasses.replace(result, native=native)


MrvBackend.solve = _who
"""


def git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
    }
    env["GIT_COMMITTER_EMAIL"] = "t@t"
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env)
    assert 0 == done.returncode, done.stderr
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A git repository whose history holds the project's backends twice: tag ``v1`` with
    an mrv that counts 1000 more nodes, then HEAD as they are; trees cached in tmp_path."""
    root = tmp_path / "repo"
    shutil.copytree(PROJECT / "backends", root / "backends", ignore=shutil.ignore_patterns("__py*"))
    git(root, "init", "-q")
    with open(root / "backends" / "mrv.py", "a") as f:
        f.write(COUNTS_MORE)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "old")
    git(root, "tag", "v1")
    shutil.copy(PROJECT / "backends" / "mrv.py", root / "backends" / "mrv.py")
    git(root, "commit", "-qam", "new")
    monkeypatch.setattr(against, "repository", lambda: root)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    yield root
    trees.ROUTES.clear()


def puzzles(tmp_path: Path, count: int = 6) -> Path:
    data = tmp_path / "p.txt"
    data.write_text("".join(pattern_puzzle(3, 2 + k % 3).to_string() + "\n" for k in range(count)))
    return data


def run(tmp_path: Path, *args: str) -> tuple[int, str, Path]:
    out = tmp_path / "run.csv"
    command = ["run", "-q", *args, "--out", str(out), str(puzzles(tmp_path))]
    result = CliRunner().invoke(main, command)
    return result.exit_code, result.output, out


def test_a_revision_git_does_not_know_is_one_line_before_any_solve(
    repo: Path, tmp_path: Path
) -> None:
    """--against no-such-rev: exit 2, one line naming it, no CSV."""
    code, output, out = run(tmp_path, "-b", "mrv", "--against", "no-such-rev")
    line = f"harness: error: --against no-such-rev: no such revision in {repo}\n"
    assert (RunExit.USAGE, line, False) == (code, output, out.exists())


def test_a_tree_without_the_backend_is_one_line(repo: Path, tmp_path: Path) -> None:
    """A tree at REV whose backends lack the one asked for: exit 2, one line, no CSV."""
    os.remove(repo / "backends" / "dlx.py")
    git(repo, "commit", "-qam", "no dlx")
    code, output, out = run(tmp_path, "-b", "dlx", "--against", "HEAD")
    assert (RunExit.USAGE, 1, False) == (code, output.count("\n"), out.exists())
    assert output.startswith("harness: error: --against HEAD: backend dlx in the tree at HEAD")


def test_the_old_trees_backends_run_and_their_counter_change_is_a_regression(
    repo: Path, tmp_path: Path
) -> None:
    """mrv@v1 runs the tree at v1 (1000 more nodes a puzzle): the pair gate says REGRESSION."""
    code, output, out = run(tmp_path, "-b", "mrv", "--against", "v1")
    rows = read_rows(out)[1]
    nodes = {b: [int(r["nodes"]) for r in rows if r["backend"] == b] for b in ("mrv", "mrv@v1")}
    assert [n + 1000 for n in nodes["mrv"]] == nodes["mrv@v1"]
    assert (RunExit.REGRESSION, True) == (code, "| mrv | p.txt | nodes |" in output)


def test_against_head_holds_and_records_the_revision(repo: Path, tmp_path: Path) -> None:
    """--against HEAD on unchanged code holds; the metadata names REV as typed and its sha."""
    code, output, out = run(tmp_path, "-b", "mrv", "--against", "HEAD")
    meta = provenance.read_meta(out)
    sha = git(repo, "rev-parse", "HEAD")
    expected = {"rev": "HEAD", "sha": sha, "pairs": {"mrv@HEAD": "mrv"}}
    assert (RunExit.OK, expected) == (code, {k: meta["against"][k] for k in expected})
    assert "**harness check: holds**" in output


def test_the_tree_is_cached_and_reused(repo: Path, tmp_path: Path) -> None:
    """A second run at the same commit reuses the checked-out tree, as it was made (its
    process wrote nothing there); an added file, even one git ignores, makes it anew."""
    sha = git(repo, "rev-parse", "v1")
    tree = against.worktree(repo, sha)
    against.check_tree(tree, "v1", ["mrv"])  # imports the tree's backends in a process
    made = (tree / "backends" / "mrv.py").stat().st_ino
    again = against.worktree(repo, sha)
    reused = (again / "backends" / "mrv.py").stat().st_ino
    for planted in ("backends/mrv/__init__.py", "backends/__pycache__/x.py"):
        (tree / planted).parent.mkdir(exist_ok=True)
        (tree / planted).write_text("raise SystemExit('the planted file ran')\n")
        tree = against.worktree(repo, sha)
        assert not (tree / planted).exists()
    assert (tree, made, sha) == (again, reused, git(tree, "rev-parse", "HEAD"))
    against.check_tree(tree, "v1", ["mrv"])


@pytest.mark.parametrize("kind", ["file", "symlink"])
def test_a_file_in_place_of_the_cached_tree_is_replaced(
    kind: str, repo: Path, tmp_path: Path
) -> None:
    """The cached tree replaced by a file, or a symlink to a folder: the next run makes the
    tree again (the link's target left alone)."""
    sha = git(repo, "rev-parse", "v1")
    tree = against.worktree(repo, sha)
    shutil.rmtree(tree)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep").write_text("keep")
    if kind == "file":
        tree.write_text("not a tree")
    else:
        tree.symlink_to(elsewhere)
    again = against.worktree(repo, sha)
    assert (tree, sha, "keep") == (
        again,
        git(again, "rev-parse", "HEAD"),
        (elsewhere / "keep").read_text(),
    )
    assert not again.is_symlink() and (again / "backends" / "mrv.py").is_file()


def test_both_sides_are_measured_alike_in_fresh_processes_old_and_new_first_in_turn(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--against HEAD, the checkout and HEAD both with an mrv that names the process that
    measured each solve: every solve of both sides was measured in a process the worker
    started (never in the worker, a fork of the harness), the checkout's from the
    checkout's tree; each side in processes of its own, replaced as the run goes on; and
    each puzzle's two solves ran one right after the other, old first and new first in
    turn."""
    with open(repo / "backends" / "mrv.py", "a") as f:
        f.write(WHO_MEASURED)
    git(repo, "commit", "-qam", "who measured")
    monkeypatch.setattr(against, "CURRENT", repo)
    monkeypatch.setattr(trees, "LIFETIME_S", 0.0)  # a fresh process for every solve
    run(tmp_path, "-b", "mrv", "--against", "HEAD")
    rows = read_rows(tmp_path / "run.csv")[1]
    sides = {b: [r for r in rows if r["backend"] == b] for b in ("mrv@HEAD", "mrv")}
    pids = {b: {r["pid"] for r in side} for b, side in sides.items()}
    assert [6, 6] == [len(side) for side in sides.values()]
    assert {"0"} == {r["harness_loaded"] for r in rows}
    assert str(os.getpid()) not in {r["parent_pid"] for r in rows}
    assert 1 == len({r["parent_pid"] for r in rows})  # the one worker started them all
    assert (True, True, set()) == (
        len(pids["mrv"]) > 1,
        len(pids["mrv@HEAD"]) > 1,
        pids["mrv"] & pids["mrv@HEAD"],
    )
    firsts = [rows[k]["backend"] for k in range(0, len(rows), 2)]
    assert [r["line"] for r in rows[::2]] == [r["line"] for r in rows[1::2]]
    assert ["mrv@HEAD", "mrv"] * 3 == firsts


def test_both_sides_are_measured_on_one_cpu_each_process_for_its_count_of_tasks(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--against HEAD with mrv naming the process that measured each solve and the CPUs it
    could use: every solve of both sides ran on the first CPU the harness may use, and no
    other; each tree's process measured exactly the count of tasks drawn for it (here
    always 2), time not counted."""
    with open(repo / "backends" / "mrv.py", "a") as f:
        f.write(WHO_MEASURED)
    git(repo, "commit", "-qam", "who measured")
    monkeypatch.setattr(against, "CURRENT", repo)
    monkeypatch.setattr(trees, "LIFETIME_S", float("inf"))
    monkeypatch.setattr(trees, "TASKS", (2, 2))
    run(tmp_path, "-b", "mrv", "--against", "HEAD")
    rows = read_rows(tmp_path / "run.csv")[1]
    first = min(os.sched_getaffinity(0))
    assert {str(1 << first)} == {r["cpus"] for r in rows}
    for side in ("mrv@HEAD", "mrv"):
        pids = [r["pid"] for r in rows if r["backend"] == side]
        assert [2, 2, 2] == [pids.count(pid) for pid in dict.fromkeys(pids)], side


def test_a_run_of_against_cannot_be_resumed(repo: Path, tmp_path: Path) -> None:
    """--resume of a run made with --against: one line saying so, exit 2, the CSV as it was."""
    _, _, out = run(tmp_path, "-b", "mrv", "--against", "HEAD")
    before = out.read_bytes()
    result = CliRunner().invoke(main, ["run", "-q", "--resume", "--out", str(out)])
    assert (RunExit.USAGE, before) == (result.exit_code, out.read_bytes())
    assert 1 == len(result.output.splitlines()), result.output
    assert "is a run with --against, which cannot be resumed" in result.output


def test_a_tree_process_imports_backends_from_its_tree(repo: Path) -> None:
    """The process for a tree imports ``backends`` from the tree, not from the project."""
    tree = against.worktree(repo, git(repo, "rev-parse", "v1"))
    process = trees.TreeProcess(str(tree))
    try:
        answer = process.ask("check", ["mrv", "no-such-backend"])
    finally:
        process.close()
    assert str(tree / "backends" / "__init__.py") == answer["backends"]
    assert (None, True) == (
        answer["problems"]["mrv"],
        "unknown backend 'no-such-backend'" in answer["problems"]["no-such-backend"],
    )


def test_against_refuses_a_cluster_and_a_resume(tmp_path: Path) -> None:
    """--against runs on local workers and cannot complete a run: one line for each."""
    config = RunConfig(backends=[], out=tmp_path / "x.csv")
    reasons = []
    for changed in ({"cluster": "tcp://somewhere:8786"}, {"resume": True}):
        with pytest.raises(against.AgainstError) as refused:
            against.configure(dataclasses.replace(config, **changed), "HEAD")
        reasons.append(str(refused.value))
    expected = [
        "--against runs on local workers; leave out --cluster",
        "--against cannot --resume a run; start it again with a new --out",
    ]
    assert expected == reasons


def test_the_report_shows_old_against_new(repo: Path, tmp_path: Path) -> None:
    """harness report on an --against run: a section pairing mrv@v1 with mrv, per puzzle."""
    _, _, out = run(tmp_path, "-b", "mrv", "--against", "v1")
    page = tmp_path / "r.html"
    result = CliRunner().invoke(main, ["report", str(out), "-o", str(page)])
    text = page.read_text()
    assert (0, True, True) == (
        result.exit_code,
        "<h2>Old against new (mrv@v1)</h2>" in text,
        "Per puzzle, largest ratios first (6)" in text,
    )


def test_a_tree_the_worker_cannot_import_is_one_line(repo: Path, tmp_path: Path) -> None:
    """A tree whose backends lack a name the worker imports: exit 2, the import error's line."""
    base = repo / "backends" / "base.py"
    base.write_text(base.read_text().replace("class SolveResult", "class Renamed"))
    git(repo, "commit", "-qam", "broken")
    code, output, out = run(tmp_path, "-b", "mrv", "--against", "HEAD")
    expected = "harness: error: --against HEAD: the tree at HEAD cannot run: ImportError: "
    assert (RunExit.USAGE, 1, False) == (code, output.count("\n"), out.exists())
    assert output.startswith(expected + "cannot import name 'SolveResult'")


def test_check_of_an_against_run_gives_its_pairs_verdict(repo: Path, tmp_path: Path) -> None:
    """harness check RUN.csv alone, for a run made with --against v1: the pairs, exit 1."""
    _, _, out = run(tmp_path, "-b", "mrv", "--against", "v1")
    result = CliRunner().invoke(main, ["check", str(out)])
    assert (CheckExit.REGRESSION, True) == (
        result.exit_code,
        "- paired in one run, old -> new: mrv@v1 -> mrv" in result.output,
    )


#: Runs the harness on the repository $AGAINST_REPO, with the least warm-up limit at 1 s (a
#: check's limit is one a backend).
QUICK_CHECK = """
import os, pathlib
from harness.run import against
against.repository = lambda: pathlib.Path(os.environ["AGAINST_REPO"])
against.WARMUP_TIMEOUT_S = 1.0
from harness.cli.entry import main
main()
"""


def harness_against(
    repo: Path, tmp_path: Path, appended: str, *extra: str
) -> subprocess.CompletedProcess:
    """``harness run -q -b mrv --against HEAD`` with ``extra`` options (else ``--timeout
    1``) in a child process, HEAD's backends/__init__.py with ``appended`` at its end (a hang
    past 120 s fails the test)."""
    with open(repo / "backends" / "__init__.py", "a") as f:
        f.write(appended)
    git(repo, "commit", "-qam", "misbehaving")
    command = [sys.executable, "-c", QUICK_CHECK, "run", "-q", "-b", "mrv", "--against", "HEAD"]
    command += [*(extra or ("--timeout", "1")), "--out", str(tmp_path / "run.csv")]
    command.append(str(puzzles(tmp_path)))
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "AGAINST_REPO": str(repo)}
    try:
        return subprocess.run(
            command, cwd=PROJECT, capture_output=True, text=True, timeout=120, env=env
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the harness hung on the old tree's check")


def test_an_old_tree_that_floods_its_output_is_checked_and_run(repo: Path, tmp_path: Path) -> None:
    """An old backends package that writes 10 MB to stdout and 200 KB to stderr as it is
    imported: the check reads it as it comes, none of it reaches the harness's output."""
    flood = "import sys\nsys.stdout.write('o' * 10_000_000)\nsys.stderr.write('e' * 200_000)\n"
    done = harness_against(repo, tmp_path, flood)
    assert (0, "", True) == (done.returncode, done.stderr, len(done.stdout) < 10_000)
    assert "**harness check: holds**" in done.stdout


@pytest.mark.parametrize(
    ("appended", "options", "said"),
    [
        ("import time\ntime.sleep(3600)\n", (), "its check gave no answer in 1 s"),
        (
            "import time\nheld = b'x' * (400 << 20)\ntime.sleep(3600)\n",
            ("--memory-limit", "300", "--timeout", "60"),  # the memory, not the time
            "its check held more than 300 MiB (--memory-limit)",
        ),
        (
            "import subprocess\n"
            "subprocess.Popen(['setsid', 'sleep', 'MARKER'], stdout=subprocess.DEVNULL)\n"
            "raise RuntimeError('this tree is broken')\n",
            (),
            "RuntimeError: this tree is broken",
        ),
    ],
    ids=["hangs", "hogs-memory", "leaves-a-process"],
)
def test_an_old_tree_that_hangs_or_leaves_a_process_is_one_line(
    repo: Path, tmp_path: Path, appended: str, options: tuple[str, ...], said: str
) -> None:
    """An old backends package that never finishes its import (the time limit is 1 s), holds
    more memory than --memory-limit, or starts a process in a new session and fails: one
    line, exit 2, no CSV, and nothing it started left running."""
    name = marker()
    done = harness_against(repo, tmp_path, appended.replace("MARKER", name), *options)
    line = f"harness: error: --against HEAD: the tree at HEAD cannot run: {said}\n"
    _, left = psutil.wait_procs(sleeps(name), timeout=30)
    for proc in left:
        proc.kill()
    assert (RunExit.USAGE, line, [], False) == (
        done.returncode,
        done.stderr,
        left,
        (tmp_path / "run.csv").exists(),
    )
