"""One time verdict for both gates: the clock that measures each backend's work, the load
read from every solve, a run that stopped early INCOMPLETE, and the same verdict from
``run --baseline``, ``check`` and ``report --baseline``."""

from __future__ import annotations

import html
import json
import random
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from backends.puzzle import grid_text
from harness import gate
from harness.cli import main
from harness.cli.check import fit_markdown
from harness.exit_codes import CheckExit
from harness.gate import paired, timing
from harness.gate.clocks import CPU, OWN, WALL
from harness.results import companions, completeness
from tests.conftest import pattern_puzzle
from tests.results_file import write_rows

PROJECT = Path(__file__).resolve().parents[1]
PUZZLES = 50
#: The puzzle of every row, and its solution: a checker that reads the rows again (a run
#: that did not end vouches for none) finds them right.
PUZZLE, SOLUTION = (grid_text(9, pattern_puzzle(3, k).digits) for k in (1, 0))


def times(seed: int = 1, count: int = PUZZLES) -> list[float]:
    """Per-puzzle seconds of work, 2 to 50 ms."""
    rng = random.Random(seed)
    return [rng.uniform(0.002, 0.05) for _ in range(count)]


def rows(
    spec: str,
    cpu: list[float],
    load: float = 1.0,
    threads: float = 1.0,
    own: bool = False,
    seed: int = 0,
    repeat: int = 0,
) -> list[dict]:
    """One answered row per puzzle of ``spec``: ``cpu`` seconds of work, each with its own
    ±3 % noise; its wall time the CPU time over ``threads`` times ``load`` (2: a worker
    descheduled half the time), with ±3 % noise; the solver's own clock equal to its CPU
    time when ``own``; no CPU time for a ``cmd:`` program."""
    rng = random.Random(seed)
    found = []
    for line, work in enumerate(cpu, start=1):
        spent = work * rng.uniform(0.97, 1.03)
        found.append(
            {
                "dataset": "d.txt",
                "line": line,
                "puzzle": PUZZLE,
                "solution": SOLUTION,
                "backend": spec,
                "repeat": repeat,
                "limit": 1,
                "status": "SOLVED",
                "solve_s": spent / threads * load * rng.uniform(0.97, 1.03),
                "solve_cpu_s": None if spec.startswith("cmd:") else spent,
                "own_solve_s": spent if own else None,
                "nodes": 10,
                "guesses": 0,
                "backtracks": 0,
            }
        )
    return found


def judged(tmp_path: Path, old: list[dict], new: list[dict]) -> gate.GateResult:
    """The verdict on two runs of ``old`` and ``new`` rows, written as results CSVs."""
    return gate.check_files(
        write_rows(tmp_path / "old.csv", old), write_rows(tmp_path / "new.csv", new)
    )


def time_of(result: gate.GateResult, backend: str) -> gate.Finding:
    (found,) = [f for f in result.findings if f.backend == backend and "ms" in f.check]
    return found


def test_a_descheduled_run_holds_on_cpu_time_and_says_why(tmp_path: Path) -> None:
    """Wall = CPU in the baseline, wall = 2 x CPU in the new run, the same work: judged on
    CPU time, no REGRESSION, and one line saying the new run was descheduled."""
    work = times()
    result = judged(tmp_path, rows("mrv", work, seed=1), rows("mrv", work, load=2.0, seed=2))
    found = time_of(result, "mrv")
    assert (CheckExit.OK, "holds") == (result.exit_code, result.headline)
    assert ("median solve CPU ms", "ok") == (found.check, found.verdict)
    (line,) = [n for n in result.notes if n.startswith("mrv, d.txt: ")]
    said = re.fullmatch(
        r"mrv, d\.txt: wall x(\S+) but CPU x(\S+): the new run was descheduled "
        r"\(wall/CPU (\S+) -> (\S+)\)",
        line,
    )
    assert said is not None, line
    wall, cpu, before, after = map(float, said.groups())
    assert 1.8 < wall < 2.2 and 0.95 < cpu < 1.05, line
    assert 0.98 < before < 1.02 and 1.9 < after < 2.1, line


def test_a_real_cpu_slowdown_is_caught_under_load_and_without(tmp_path: Path) -> None:
    """The work 1.3x slower: a REGRESSION on CPU time, quiet or descheduled (the load line
    is said, the CPU verdict stands)."""
    work = times()
    slower = [t * 1.3 for t in work]
    for load in (1.0, 2.0):
        result = judged(tmp_path, rows("mrv", work, seed=1), rows("mrv", slower, load, seed=2))
        found = time_of(result, "mrv")
        assert CheckExit.REGRESSION == result.exit_code, result.markdown()
        assert ("median solve CPU ms", "REGRESSION") == (found.check, found.verdict)
        assert (load > 1) == any("descheduled" in n for n in result.notes)


def calibrated(path: Path, seconds: float) -> Path:
    """The results CSV ``path`` with a calibration of ``seconds`` in its metadata."""
    workload = "8-queens + 2000 dict updates, fastest of 11"
    return with_meta(path, calibration={"workload": workload, "start_s": seconds, "end_s": None})


def test_a_slowdown_within_the_calibrations_own_move_is_inconclusive(tmp_path: Path) -> None:
    """The machine ran the calibration x1.44 slower and the work took x1.96 (x1.36 after
    calibration, as one CI machine measured): INCONCLUSIVE, said, exit 0. The same x1.36 on
    a machine whose calibration moved x1.05, and x2.5 past a x1.44 one, stay REGRESSION."""
    work = times()
    old = calibrated(write_rows(tmp_path / "old.csv", rows("mrv", work, seed=1)), 0.0004)
    verdicts = {}
    for scale, slower in ((1.44, 1.96), (1.05, 1.36 * 1.05), (1.44, 2.5 * 1.44)):
        new = write_rows(tmp_path / "new.csv", rows("mrv", [t * slower for t in work], seed=2))
        result = gate.check_files(old, calibrated(new, 0.0004 * scale))
        verdicts[scale, slower] = (result.exit_code, time_of(result, "mrv").verdict)
        if scale == 1.44 and slower < 2:
            (line,) = [n for n in result.notes if n.startswith("mrv, d.txt: ")]
            assert "within the calibration's own x1.44" in line, line
            assert "holds; time INCONCLUSIVE" == result.headline
    assert [
        (CheckExit.OK, "INCONCLUSIVE"),
        (CheckExit.REGRESSION, "REGRESSION"),
        (CheckExit.REGRESSION, "REGRESSION"),
    ] == list(verdicts.values())


def test_calibrations_within_their_noise_leave_times_as_measured(tmp_path: Path) -> None:
    """Calibrations of 0.40 and 0.41 ms (one machine, two minutes): the same speed, said in a
    note; times compared as measured (the finding not '(calibrated)'); 0.40 and 0.50 ms:
    divided."""
    work = times()
    old = calibrated(write_rows(tmp_path / "old.csv", rows("mrv", work, seed=1)), 0.0004)
    new = write_rows(tmp_path / "new.csv", rows("mrv", work, seed=2))
    found = []
    for seconds in (0.00041, 0.0005):
        result = gate.check_files(old, calibrated(new, seconds))
        found.append((time_of(result, "mrv").check, any("agree" in n for n in result.notes)))
    assert [
        ("median solve CPU ms", True),
        ("median solve CPU ms (calibrated)", False),
    ] == found


def test_a_threaded_solver_is_judged_on_wall_and_inconclusive_under_load(tmp_path: Path) -> None:
    """A solver on four threads (CPU 4 x wall): judged on wall time; descheduled in the new
    run (its CPU/wall 4 -> 2), INCONCLUSIVE, not REGRESSION; the same slowdown with the
    load unchanged is a REGRESSION."""
    work = times()
    old = rows("cpsat:workers=4", work, threads=4, seed=1)
    loaded = judged(tmp_path, old, rows("cpsat:workers=4", work, load=2.0, threads=4, seed=2))
    found = time_of(loaded, "cpsat:workers=4")
    assert ("median solve wall ms", "INCONCLUSIVE") == (found.check, found.verdict)
    assert (CheckExit.OK, "holds; time INCONCLUSIVE") == (loaded.exit_code, loaded.headline)
    assert any(
        re.search(r"the new run was descheduled \(CPU/wall 4\.\d\d -> 2\.\d\d\)", n)
        for n in loaded.notes
    ), loaded.notes
    slower = [t * 2 for t in work]
    quiet = judged(tmp_path, old, rows("cpsat:workers=4", slower, threads=4, seed=2))
    assert "REGRESSION" == time_of(quiet, "cpsat:workers=4").verdict
    assert not any("descheduled" in n for n in quiet.notes)


def test_a_program_is_judged_on_its_own_clock_else_on_wall(tmp_path: Path) -> None:
    """A cmd: solver has no CPU time of its own: with its own clock steady while its wall
    time doubles, it holds on that clock; without one, wall time judges it."""
    work = times()
    old, new = rows("cmd:./s", work, own=True, seed=1), rows("cmd:./s", work, 2.0, own=True)
    found = time_of(judged(tmp_path, old, new), "cmd:./s")
    assert ("median solve own ms", "ok") == (found.check, found.verdict)
    old, new = rows("cmd:./s", work, seed=1), rows("cmd:./s", work, 2.0, seed=2)
    found = time_of(judged(tmp_path, old, new), "cmd:./s")
    assert ("median solve wall ms", "REGRESSION") == (found.check, found.verdict)


def pairs(old: dict[str, list], new: dict[str, list]) -> timing.Pairs:
    """Per-puzzle times of two runs, a clock not given unknown (NaN)."""
    count = len(old[WALL])

    def side(values: dict[str, list]) -> dict[str, np.ndarray]:
        return {c: np.array(values.get(c, [np.nan] * count), dtype=float) for c in (WALL, CPU, OWN)}

    return timing.Pairs(np.arange(1, count + 1), side(old), side(new))


def test_the_clock_that_judges_each_backend() -> None:
    """CPU time for a solver in the worker, when both runs have it; the solver's own clock
    for a program that reports it; wall time for the rest and for several threads."""
    t = times()
    twice = [2 * x for x in t]
    cases = {
        ("mrv", CPU): pairs({WALL: t, CPU: t}, {WALL: t, CPU: t}),
        ("mrv", WALL): pairs({WALL: t}, {WALL: t, CPU: t}),  # the baseline has no CPU time
        ("lib:./s.so", CPU): pairs({WALL: t, CPU: t}, {WALL: t, CPU: t}),
        ("cmd:./s", OWN): pairs({WALL: t, CPU: t, OWN: t}, {WALL: t, CPU: t, OWN: t}),
        ("cmd:./s", WALL): pairs({WALL: t, CPU: t}, {WALL: t, CPU: t}),
        ("cpsat", WALL): pairs({WALL: t, CPU: t}, {WALL: t, CPU: twice}),  # threads in one run
    }
    for (spec, clock), found in cases.items():
        assert clock == timing.clock_for(spec, found), spec


def test_load_changes_only_beyond_its_threshold_and_noise() -> None:
    """wall/CPU per puzzle: ±5 % noise or a steady 5 % is no change of load; 1.5x is, and
    a cmd: program's rows never show one."""
    rng = np.random.default_rng(3)
    t = list(times())

    def loaded(factor: float, noise: float) -> list[float]:
        return [x * factor * rng.uniform(1 - noise, 1 + noise) for x in t]

    quiet = pairs({WALL: loaded(1, 0.05), CPU: t}, {WALL: loaded(1, 0.05), CPU: t})
    steady = pairs({WALL: t, CPU: t}, {WALL: loaded(1.05, 0.01), CPU: t})
    busy = pairs({WALL: t, CPU: t}, {WALL: loaded(1.5, 0.2), CPU: t})
    found = [timing.load("mrv", p, 0.01) for p in (quiet, steady, busy)]
    assert [False, False, True] == [f.changed for f in found if f is not None]
    assert None is timing.load("cmd:./s", busy, 0.01)


def test_one_side_of_a_pair_descheduled_holds_on_cpu_time() -> None:
    """Two sides of a pair, the new one descheduled (wall 2 x CPU): the paired gate judges
    CPU time, holds, and says which side was descheduled."""
    import pandas as pd

    work = times()
    frame = pd.DataFrame([*rows("mrv@HEAD", work, seed=1), *rows("mrv", work, 2.0, seed=2)])
    result = paired.compare_pairs(frame, [("mrv@HEAD", "mrv")])
    found = time_of(result, "mrv")
    assert ("paired solve CPU ms (median)", "ok") == (found.check, found.verdict)
    assert any("the new side was descheduled (wall/CPU" in n for n in result.notes)


def check(*args: object) -> object:
    return CliRunner().invoke(main, ["check", *map(str, args)])


def with_meta(path: Path, **fields: object) -> Path:
    """Add ``fields`` to the metadata of the results CSV ``path``."""
    meta_path = companions.meta_path_for(path)
    meta = json.loads(meta_path.read_text())
    meta.update(fields)
    meta_path.write_text(json.dumps(meta))
    return path


def test_a_torn_last_row_is_incomplete_not_a_regression(tmp_path: Path) -> None:
    """A new run killed mid-row (its last line without a newline): exit 2 and INCOMPLETE,
    not 'answered 50/50 -> 49/49 REGRESSION'; the puzzles both runs reached are judged,
    and the command that completes the run is given."""
    work = times()
    old = write_rows(tmp_path / "old.csv", rows("mrv", work, seed=1))
    new = write_rows(tmp_path / "new.csv", rows("mrv", work, seed=2))
    text = new.read_text()
    new.write_text(
        text[: text.rstrip("\n").rfind("\n") + 1] + text.rstrip("\n").splitlines()[-1][:30]
    )
    table = tmp_path / "verdict.md"
    result = check(old, new, "--out", table)
    assert CheckExit.WRONG == result.exit_code, result.output
    assert "INCOMPLETE" in result.output and "REGRESSION" not in result.output
    assert "| mrv | d.txt | answered | 49/49 | 49/49 | ok |" in result.output
    assert f"- complete it with:\n  harness run --resume --out {new}\n" in table.read_text()


def plan(path: Path, backends: list[dict], repeat: int, complete: bool = True) -> Path:
    """The metadata of a run of ``PUZZLES`` puzzles of d.txt with ``backends``."""
    return with_meta(
        path,
        datasets=[{"path": "d.txt", "sha256": None, "puzzles": PUZZLES}],
        backends=backends,
        repeat=repeat,
        complete=complete,
        cwd=str(Path.cwd()),
    )


def test_rows_missing_against_the_plan_are_incomplete(tmp_path: Path) -> None:
    """mrv, 3 repeats, and pycosat unavailable (one UNAVAILABLE row a puzzle, for its three
    repeats), and a program: a run that lacks mrv's last ten puzzles is 30 of 450 rows short,
    exit 2, with the command that completes it (the program to start named again)."""
    work = times()
    specs = [{"spec": "mrv"}, {"spec": "cmd:./s"}, {"spec": "pycosat", "available": False}]
    unavailable = [
        {**row, "backend": "pycosat", "status": "UNAVAILABLE", "solve_s": None, "nodes": None}
        for row in rows("mrv", work)
    ]
    whole = [
        *(row for r in range(3) for row in rows("mrv", work, seed=r, repeat=r)),
        *(row for r in range(3) for row in rows("cmd:./s", work, seed=r, repeat=r)),
        *unavailable,
    ]
    old = plan(write_rows(tmp_path / "old.csv", whole), specs, 3)
    assert CheckExit.OK == gate.check_files(old, old).exit_code  # whole: not INCOMPLETE
    short = [r for r in whole if not (r["backend"] == "mrv" and r["line"] > 40)]
    new = plan(write_rows(tmp_path / "new.csv", short), specs, 3)
    result = gate.check_files(old, new)
    assert (CheckExit.WRONG, "INCOMPLETE: the new run stopped early") == (
        result.exit_code,
        result.headline,
    )
    text = result.markdown()
    assert f"INCOMPLETE: the new run, {new}, stopped early (30 of 450 planned rows missing)" in text
    assert "| mrv | d.txt | answered | 40/40 | 40/40 | ok |" in text
    command = f"harness run --resume --out {new} -b mrv -b cmd:./s -b pycosat"
    assert f"complete it with:\n  {command}\n" in text


def test_a_run_that_did_not_end_is_incomplete(tmp_path: Path) -> None:
    """Every row written, but the metadata says the run did not end: INCOMPLETE, exit 2."""
    work = times()
    old = write_rows(tmp_path / "old.csv", rows("mrv", work, seed=1))
    new = plan(write_rows(tmp_path / "new.csv", rows("mrv", work)), [{"spec": "mrv"}], 1, False)
    result = gate.check_files(old, new)
    assert CheckExit.WRONG == result.exit_code
    assert f"INCOMPLETE: the new run, {new}, stopped early (its run did not end)" in result.notes[0]


def test_an_incomplete_baseline_is_said_and_what_both_reached_is_judged(tmp_path: Path) -> None:
    """A baseline short of its plan against a whole new run: judged on the puzzles both
    reached, it holds (exit 0), and says the baseline is incomplete."""
    work = times()
    specs = [{"spec": "mrv"}]
    old = plan(write_rows(tmp_path / "old.csv", rows("mrv", work[:30], seed=1)), specs, 1)
    new = plan(write_rows(tmp_path / "new.csv", rows("mrv", work, seed=2)), specs, 1)
    result = gate.check_files(old, new)
    assert CheckExit.OK == result.exit_code, result.markdown()
    said = f"INCOMPLETE: the baseline, {old}, stopped early (20 of 50 planned rows missing)"
    assert said in result.notes[0]
    assert "| mrv | d.txt | answered | 30/30 | 30/30 | ok |" in result.markdown()


def test_a_torn_paired_run_is_incomplete(tmp_path: Path) -> None:
    """A run of --against torn mid-row: exit 2, INCOMPLETE, and it cannot be resumed."""
    work = times()
    run = write_rows(
        tmp_path / "run.csv", [*rows("mrv@HEAD", work, seed=1), *rows("mrv", work, seed=2)]
    )
    with_meta(run, against={"rev": "HEAD", "sha": "0" * 40, "pairs": {"mrv@HEAD": "mrv"}})
    run.write_text(run.read_text() + "d.txt,51,p51,mrv")
    result = paired.check_file(run)
    assert (CheckExit.WRONG, True) == (result.exit_code, "INCOMPLETE" in result.headline)
    assert "it cannot be resumed" in result.markdown()


def test_a_long_row_keeps_every_value_in_its_row() -> None:
    """On a terminal, a row wider than 100 columns wraps its long cells inside the row:
    no footnote, every line within 100 columns, every word still in its cell's column."""
    message = "WRONG cell r1c1 is 3, not 4; " * 6
    text = (
        "| backend | dataset | check | baseline | new | verdict |\n|---|---|---|---|---|---|\n"
        f"| mrv | d.txt | wrong/errors | 0 | 1 (line 6: {message}) | **WRONG** |"
    )
    lines = fit_markdown(text).splitlines()
    assert not any(re.search(r"\[\d\]", line) for line in lines)
    assert all(len(line) <= 100 for line in lines)
    row = [line for line in lines if line.startswith("| mrv") or line.startswith("|    ")]
    assert len(row) > 1 and all(line.count(" | ") == 5 for line in row)
    column = " ".join(line.split(" | ")[4].strip() for line in row)
    assert f"1 (line 6: {message})" == column


def findings_of_markdown(text: str) -> list[tuple[str, ...]]:
    """The rows of a verdict's Markdown table, verdicts unbolded."""
    found = []
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith(("| backend |", "|---")):
            cells = line[2:-2].split(" | ")
            found.append((*cells[:5], cells[5].strip("*")))
    return found


def findings_of_page(page: str, anchor: str) -> tuple[str, list[tuple[str, ...]]]:
    """The headline and every check of a report's baseline section."""
    section = page[page.index(f'<section id="{anchor}">') :]
    headline = html.unescape(re.search(r"harness check: <b>(.*?)</b>", section).group(1))
    every = re.search(r"Every check \(\d+\)</summary>(.*?)</table>", section, re.S).group(1)
    body = every[every.index("<tbody>") :]
    cells = [
        tuple(html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row))
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body)
    ]
    return headline, cells


@pytest.mark.parametrize("options", [(), ("--only-common",), ("--ignore-time",)])
def test_run_check_and_report_give_one_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: tuple[str, ...]
) -> None:
    """A baseline of mrv, norvig and dlx and a run of mrv and norvig against it: `run
    --baseline`, `check` and `report --baseline` give the same findings, headline and exit
    (dlx, not run, is no regression), with --only-common or --ignore-time too."""
    monkeypatch.chdir(PROJECT)
    runner = CliRunner()
    base, new = tmp_path / "base.csv", tmp_path / "new.csv"
    specs = ["-b", "mrv", "-b", "norvig"]
    first = runner.invoke(
        main, ["run", "-q", *specs, "-b", "dlx", "--out", str(base), "datasets/easy.txt"]
    )
    assert 0 == first.exit_code, first.output
    ran = runner.invoke(
        main,
        [
            "run",
            "-q",
            *specs,
            "--baseline",
            str(base),
            *options,
            "--out",
            str(new),
            "datasets/easy.txt",
        ],
    )
    table = tmp_path / "check.md"
    checked = runner.invoke(main, ["check", str(base), str(new), *options, "--out", str(table)])
    page = tmp_path / "report.html"
    reported = runner.invoke(
        main, ["report", str(new), "--baseline", str(base), *options, "-o", str(page)]
    )
    assert 0 == reported.exit_code, reported.output
    # the same exit (a time verdict may go either way on a busy machine; the two agree)
    assert ran.exit_code == checked.exit_code in (0, 1), ran.output + checked.output
    shown = checked.output.strip()
    assert shown in ran.output  # the same table, as a terminal shows it
    markdown = table.read_text()
    headline, cells = findings_of_page(page.read_text(), "baseline")
    assert f"**harness check: {headline}**" == markdown.splitlines()[0]
    assert findings_of_markdown(markdown) == cells
    dlx = [c for c in cells if c[0] == "dlx"]
    common = "--only-common" in options
    assert dlx == (
        [] if common else [("dlx", "easy.txt", "present", "50 puzzles", "not run", "info")]
    )
    timed = [c for c in cells if " ms" in c[2]]
    if "--ignore-time" in options:
        assert ([], 0) == (timed, ran.exit_code), ran.output
    else:
        calibrated = "times divided by each run's calibration" in markdown  # else: as measured
        said = "calibrated (new times divided by x" if calibrated else "not calibrated (times as"
        assert 2 == len(timed) and said in page.read_text()


def test_the_command_that_completes_a_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--resume --out FILE, from the folder the run started in (its dataset paths are
    relative to it), standard input given again; none for a run of --against."""
    monkeypatch.chdir(tmp_path)
    meta = {
        "cwd": "/ci/checkout",
        "backends": [{"spec": "mrv"}],
        "datasets": [{"path": "-", "puzzles": 5}],
    }
    out = Path("new.csv")
    said = completeness.resume_command(out, meta)
    assert f"cd /ci/checkout && harness run --resume --out {tmp_path / out} - < PUZZLES" == said
    meta["cwd"] = str(tmp_path)
    meta["datasets"] = [{"path": "d.txt", "puzzles": 5}]
    assert "harness run --resume --out new.csv" == completeness.resume_command(out, meta)
    assert None is completeness.resume_command(out, {**meta, "against": {"rev": "HEAD"}})
