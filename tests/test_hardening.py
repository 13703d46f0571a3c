"""What an adversarial user or a full disk does to the harness: one line, no lost output."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from backends.base import Status
from backends.puzzle import Puzzle
from harness.check import judge as judge_module
from harness.check.judge import judge, judge_all
from harness.cli import main
from harness.cli.check import fit_markdown
from harness.cli.common import fit
from harness.exit_codes import RunExit
from harness.outcome import Outcome
from harness.puzzles.readers import PuzzleRecord
from harness.run.worker.pool import WorkerPool
from tests.conftest import pattern_puzzle
from tests.corrupt_corpus import write_run

PROJECT = Path(__file__).resolve().parents[1]
FAKE_SOLVER = PROJECT / "tests" / "fake_solver.py"
#: A bash function ``H`` that runs the harness's console script.
HARNESS = f"H() {{ '{sys.executable}' -c 'from harness.cli.entry import main; main()' \"$@\"; }}"
UNIQUE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
SOLUTION = "417369825632158947958724316825437169791586432346912758289643571573291684164875293"


def invoke(*args: object, stdin: str | None = None):
    return CliRunner().invoke(main, [str(a) for a in args], input=stdin)


def shell(script: str, cwd: Path) -> subprocess.CompletedProcess:
    """``script`` in bash, the harness as the command ``H``."""
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    return subprocess.run(
        ["bash", "-c", f"{HARNESS}\n{script}"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def puzzles(tmp_path: Path) -> Path:
    path = tmp_path / "p.txt"
    path.write_text(f"{UNIQUE}\n")
    return path


def test_the_workers_log_is_not_the_harness_output(puzzles: Path, tmp_path: Path) -> None:
    """harness run --out r.csv > r.log: the printed table stays in r.log."""
    done = shell(f"H run -q -b mrv --out r.csv {puzzles} > r.log", tmp_path)
    assert (0, True) == (done.returncode, "1/1" in (tmp_path / "r.log").read_text())


def test_a_symlinked_log_is_not_followed(tmp_path: Path) -> None:
    """A symlink at the log a pool is given: the link and its target stay as they were."""
    target, link = tmp_path / "target.txt", tmp_path / "x.log"
    target.write_text("keep\n")
    link.symlink_to(target)
    with WorkerPool(log=link):
        pass
    assert ("keep\n", True) == (target.read_text(), link.is_symlink())


def test_an_empty_log_the_run_did_not_make_is_kept(tmp_path: Path) -> None:
    """An empty x.log that was there before the run is not removed; one the run made is."""
    theirs, ours = tmp_path / "theirs.log", tmp_path / "ours.log"
    theirs.write_text("")
    for log in (theirs, ours):
        with WorkerPool(log=log):
            pass
    assert (True, False) == (theirs.exists(), ours.exists())


def test_resume_does_not_start_a_program_named_only_in_the_metadata(
    puzzles: Path, tmp_path: Path
) -> None:
    """--resume of a run of cmd:...: refused without -b, naming the -b to pass; no row added."""
    out, small = tmp_path / "r.csv", tmp_path / "small.txt"
    small.write_text(pattern_puzzle(2).to_string() + "\n")
    spec = f"cmd:{sys.executable} {FAKE_SOLVER} answer"
    assert 0 == invoke("run", "-q", "-b", spec, "--out", out, small).exit_code
    header = out.read_text().splitlines()[0]
    out.write_text(header + "\n")  # as if interrupted before its first row
    result = invoke("run", "-q", "--resume", "--out", out, small)
    assert (RunExit.USAGE, header + "\n") == (result.exit_code, out.read_text())
    assert "it runs only when named on the command line: -b 'cmd:" in result.output


@pytest.mark.parametrize("command", ["table {csv}", "generate --count 2 -q", "backends"])
def test_a_full_stdout_is_one_line(command: str, tmp_path: Path) -> None:
    """Output to /dev/full: one line naming standard output, exit 2."""
    csv_path = write_run(tmp_path / "r.csv")
    done = shell(f"H {command.format(csv=csv_path)} > /dev/full", tmp_path)
    line = "harness: error: cannot write standard output: No space left on device\n"
    assert (RunExit.USAGE, line) == (done.returncode, done.stderr)


@pytest.fixture
def small_disk(tmp_path: Path):
    """A 64 KiB tmpfs, filled up (a skip where mounting is not allowed)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        with open(disk / "fill", "wb") as fill, pytest.raises(OSError):
            fill.write(b"\0" * (128 << 10))
            fill.flush()
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], check=False)


def test_a_full_disk_leaves_no_partial_output(puzzles: Path, small_disk: Path) -> None:
    """report, plot, rate, generate on a full disk: one line, exit 2, no file; rate again
    after space is freed works."""
    csv_path = write_run(small_disk.parent / "r.csv")
    commands = [
        ("report", csv_path, "-o", small_disk / "r.html"),
        ("plot", "cactus", csv_path, "-o", small_disk / "p.png"),
        ("rate", "-q", puzzles, "--out", small_disk / "rate.csv"),
        ("generate", "-q", "--out", small_disk / "g.txt"),
    ]
    results = [invoke(*args) for args in commands]
    refused = [(r.exit_code, "No space left on device" in r.output) for r in results]
    assert ([(RunExit.USAGE, True)] * 4, ["fill"]) == (refused, os.listdir(small_disk))
    (small_disk / "fill").unlink()
    again = invoke(*commands[2])
    assert (0, True) == (again.exit_code, (small_disk / "rate.csv").stat().st_size > 0)


def test_rate_twice_takes_a_free_name_and_force_replaces(
    puzzles: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """rate twice without --out: p-rating.csv, then p-rating-2.csv; an --out that exists is
    refused without --force and replaced with it."""
    monkeypatch.chdir(tmp_path)
    codes = [invoke("rate", "-q", puzzles).exit_code for _ in range(2)]
    written = sorted(p.name for p in (tmp_path / "results").glob("*.csv"))
    out = tmp_path / "results" / "p-rating.csv"
    refused = invoke("rate", "-q", puzzles, "--out", out).exit_code
    forced = invoke("rate", "-q", puzzles, "--out", out, "--force").exit_code
    assert ([0, 0], ["p-rating-2.csv", "p-rating.csv"], RunExit.USAGE, 0) == (
        codes,
        written,
        refused,
        forced,
    )


def test_rate_escapes_a_formula_dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A dataset named =cmd|...: written with a leading quote in the rating CSV."""
    monkeypatch.chdir(tmp_path)
    name = "=cmd|' -C calc'!A0.txt"
    (tmp_path / name).write_text(f"{UNIQUE}\n")
    out = tmp_path / "rate.csv"
    result = CliRunner().invoke(
        main, ["rate", "-q", name, "--out", str(out)], catch_exceptions=False
    )
    row = next(csv.DictReader(io.StringIO(out.read_text())))
    assert (0, "'" + name) == (result.exit_code, row["dataset"])


def test_table_csv_escapes_formulas_and_gives_numbers(tmp_path: Path) -> None:
    """table --format csv: a formula dataset escaped; solved and puzzles as numbers."""
    source = write_run(tmp_path / "r.csv").read_text()
    csv_path = write_run(
        tmp_path / "f.csv", source.replace("datasets/demo.txt", "@SUM(A1)").encode()
    )
    result = invoke("table", csv_path, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(result.output)))
    got = {(r["dataset"], r["puzzles"], r["solved"]) for r in rows}
    assert (0, {("'@SUM(A1)", "4", "4")}) == (result.exit_code, got)


def test_table_keeps_runs_apart_unless_merged(tmp_path: Path) -> None:
    """Two CSVs: one row per run and backend, led by run; --merge pools them."""
    a, b = write_run(tmp_path / "a.csv"), write_run(tmp_path / "b.csv")
    apart = json.loads(invoke("table", a, b, "--format", "json").output)
    merged = json.loads(invoke("table", a, b, "--format", "json", "--merge").output)
    assert (["a", "a", "b", "b"], 2, False) == (
        [r["run"] for r in apart],
        len(merged),
        "run" in merged[0],
    )


def record(puzzle: str) -> PuzzleRecord:
    return PuzzleRecord("p.txt", 1, Puzzle.parse(puzzle), None, None, "")


def claimed(solutions: int, solution: str = SOLUTION) -> Outcome:
    cells = Puzzle.parse(solution).cells
    return Outcome(Status.SOLVED, solution=cells, solutions=solutions, solve_s=0.001)


def test_a_lone_claim_of_two_solutions_for_a_unique_puzzle_is_wrong() -> None:
    """Under --limit-solutions 2, claiming 2 for a unique puzzle: WRONG, the search says why."""
    fields = judge(record(UNIQUE), claimed(2), limit=2)
    assert (Status.WRONG, "claimed 2 solutions; the harness's own search finds only this one") == (
        fields["status"],
        fields["message"],
    )


def two_solutions() -> str:
    """SOLUTION with a rectangle of cells a b / b a in two rows, columns and boxes blanked:
    the puzzle's two solutions are SOLUTION and the one with the rectangle swapped."""
    g = SOLUTION
    for r1 in range(9):
        for r2 in range(r1 + 1, 9):
            for c1 in range(9):
                for c2 in range(c1 + 1, 9):
                    cells = [r1 * 9 + c1, r1 * 9 + c2, r2 * 9 + c1, r2 * 9 + c2]
                    boxes = {(i // 27, i % 9 // 3) for i in cells}
                    a, b, c, d = (g[i] for i in cells)
                    if a == d and b == c and len(boxes) == 2:
                        return "".join("." if i in cells else v for i, v in enumerate(g))
    raise AssertionError("no rectangle in SOLUTION")


def test_a_true_claim_of_two_solutions_stands() -> None:
    """A puzzle with two solutions: the claim holds, SOLVED without a message."""
    fields = judge(record(two_solutions()), claimed(2), limit=2)
    assert (Status.SOLVED, None) == (fields["status"], fields.get("message"))


def test_a_claim_the_search_cannot_settle_keeps_its_status(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With a node budget too small to tell, the row stays SOLVED, its message says so."""
    monkeypatch.setattr(judge_module, "CLAIM_NODES", 1)
    fields = judge(record(UNIQUE), claimed(2), limit=2)
    assert (Status.SOLVED, True) == (
        fields["status"],
        "unconfirmed" in (fields["message"] or ""),
    )


def test_long_lines_are_wrapped_to_100_columns() -> None:
    """A 160-column bad-line message and a 111-column check row fit in 100 columns."""
    message = "p.txt:5: " + "wrong length: 80 cells " * 7
    row = "| ac3 | hard95.txt | nodes | total 123,456 | total 123,457; " + "x" * 60 + " | ok |"
    table = f"| backend | dataset | check | baseline | new | verdict |\n{row}"
    lines = [*fit(message).splitlines(), *fit_markdown(table).splitlines()]
    assert [] == [line for line in lines if len(line) > 100]


def test_report_keeps_runs_apart_unless_merged(tmp_path: Path) -> None:
    """Two CSVs of one backend: the report labels it per file; --merge shows it once."""
    a, b = write_run(tmp_path / "a.csv"), write_run(tmp_path / "b.csv")
    pages = []
    for extra in ([], ["--merge"]):
        out = tmp_path / f"r{len(extra)}.html"
        assert 0 == invoke("report", a, b, "-o", out, *extra).exit_code
        pages.append(out.read_text())
    assert [(True, True), (False, True)] == [
        ("norvig (b)" in page, "norvig" in page) for page in pages
    ]


def test_answers_checked_together_keep_each_verdict() -> None:
    """In a batch of answers, the wrong one is WRONG and the right ones SOLVED, with a check
    time each; a batch of right answers gives each its share of the one check."""
    broken = SOLUTION[9:18] + SOLUTION[:9] + SOLUTION[18:]  # valid, but changes a given
    right = Outcome(Status.SOLVED, solution=bytes(Puzzle.parse(SOLUTION).cells), solutions=1)
    wrong = right._replace(solution=bytes(Puzzle.parse(broken).cells))
    mixed = judge_all([(record(UNIQUE), o) for o in (right, wrong, right)], limit=1)
    alike = judge_all([(record(UNIQUE), right)] * 3, limit=1)
    assert (
        [Status.SOLVED, Status.WRONG, Status.SOLVED],
        "r1c1 changes the given 4 to 6",
        [True] * 6,
    ) == (
        [f["status"] for f in mixed],
        mixed[1]["message"],
        [f["check_s"] > 0 for f in mixed + alike],
    )
