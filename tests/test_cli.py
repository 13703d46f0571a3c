"""The CLI, through click's test runner: one clear line and a distinct exit code per failure."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.cli.run import resume_command
from harness.exit_codes import RunExit
from harness.run import runner
from tests.conftest import pattern_puzzle
from tests.results_file import read_rows

TOP1 = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


def invoke(*args: str, stdin: str | None = None):
    return CliRunner().invoke(main, list(args), input=stdin)


@pytest.fixture
def puzzles(tmp_path: Path) -> Path:
    path = tmp_path / "p.txt"
    path.write_text(f"# two puzzles\n{TOP1}\n{pattern_puzzle(3, 2).to_string()}\n")
    return path


def test_run_writes_csv_and_table(puzzles: Path, tmp_path: Path) -> None:
    """A run exits 0, prints the summary and writes one row per puzzle."""
    out = tmp_path / "r.csv"
    result = invoke("run", "-q", "-b", "mrv", "--out", str(out), str(puzzles))
    assert 0 == result.exit_code
    assert "2/2" in result.output
    assert ["SOLVED", "SOLVED"] == [r["status"] for r in read_rows(out)[1]]


def test_runs_of_the_same_second_get_their_own_default_out(
    puzzles: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two runs without --out in one second: both exit 0, into p-DATE.csv and p-DATE-2.csv."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(time, "strftime", lambda _: "20261125-112519")
    codes = [invoke("run", "-q", "-b", "mrv", str(puzzles)).exit_code for _ in range(2)]
    written = sorted(path.name for path in (tmp_path / "results").glob("*.csv"))
    assert ([0, 0], ["p-20261125-112519-2.csv", "p-20261125-112519.csv"]) == (codes, written)


def test_run_reads_stdin(tmp_path: Path) -> None:
    """'-' reads puzzles from standard input."""
    out = tmp_path / "r.csv"
    result = invoke("run", "-q", "--out", str(out), "-", stdin=TOP1 + "\n")
    assert (0, "-") == (result.exit_code, read_rows(out)[1][0]["dataset"])


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["run", "--jobs", "0"], "Invalid value for '-j' / '--jobs': 0 is not in the range x>=1."),
        (["run", "--nosuch"], "No such option '--nosuch'. Did you mean '--out'?"),
        (["nosuch"], "No such command 'nosuch'."),
    ],
)
def test_a_bad_option_or_command_is_one_line(args: list[str], error: str) -> None:
    """click's usage errors are one line too, naming the help to read, exit 2."""
    result = CliRunner().invoke(main, args, prog_name="harness")
    where = "harness --help" if args == ["nosuch"] else "harness run --help"
    expected = [f"harness: error: {error} (see '{where}')"]
    assert (RunExit.USAGE, expected) == (result.exit_code, result.output.splitlines())


def test_a_misspelt_backend_gets_the_closest_name(puzzles: Path) -> None:
    """'mvr' for 'mrv': the error suggests mrv, then lists the valid names, exit 2."""
    result = invoke("run", "-b", "mvr", str(puzzles))
    first = result.output.split(",")[0]  # the valid names' list starts with ac3
    expected = "harness: error: unknown backend 'mvr' (did you mean 'mrv'?); valid backends: ac3"
    assert (RunExit.USAGE, expected) == (result.exit_code, first)


def test_unknown_backend_lists_valid_names(puzzles: Path) -> None:
    """An unknown backend is one line naming it and the valid choices, exit 2."""
    result = invoke("run", "-b", "nosuch", str(puzzles))
    assert RunExit.USAGE == result.exit_code
    assert "unknown backend 'nosuch'; valid backends:" in result.output
    assert "mrv" in result.output


def test_bad_option_named(puzzles: Path) -> None:
    """A bad backend option is refused before anything runs."""
    result = invoke("run", "-b", "mrv:select=sideways", str(puzzles))
    assert RunExit.USAGE == result.exit_code
    assert "sideways" in result.output


def test_bad_lines_stop_the_run(tmp_path: Path) -> None:
    """A bad line is reported as FILE:LINE: reason and the run does not start."""
    path = tmp_path / "bad.txt"
    path.write_text(f"{TOP1}\n{TOP1[:80]}\n")
    result = invoke("run", "-q", "--out", str(tmp_path / "r.csv"), str(path))
    assert RunExit.USAGE == result.exit_code
    assert f"{path}:2: wrong length: 80 cells;" in result.output
    assert not (tmp_path / "r.csv").exists()


def test_skip_invalid_runs_the_rest(tmp_path: Path) -> None:
    """--skip-invalid runs the good lines and records the skipped ones in the metadata."""
    import json

    path = tmp_path / "bad.txt"
    path.write_text(f"{TOP1}\n{TOP1[:80]}\n")
    out = tmp_path / "r.csv"
    result = invoke("run", "-q", "--skip-invalid", "--out", str(out), str(path))
    meta = json.loads((tmp_path / "r.csv.meta.json").read_text())
    assert (0, 1, 1) == (result.exit_code, len(read_rows(out)[1]), len(meta["skipped_lines"]))


def test_missing_file_is_one_line(tmp_path: Path) -> None:
    """A missing file gives a clear error naming it, exit 2."""
    result = invoke("run", str(tmp_path / "nope.txt"))
    assert RunExit.USAGE == result.exit_code
    assert "nope.txt" in result.output


def test_wrong_answer_exit_code(puzzles: Path, tmp_path: Path, fake_backends: dict) -> None:
    """A WRONG answer makes the run exit 3, with a line naming the checker's reason."""
    result = invoke("run", "-q", "-b", "wrong-grid", "--out", str(tmp_path / "r.csv"), str(puzzles))
    assert RunExit.WRONG == result.exit_code
    assert "WRONG: 1 row(s); most common reason (1): r1c1 changes the given 4" in result.output


def test_backend_error_exit_code(puzzles: Path, tmp_path: Path, fake_backends: dict) -> None:
    """A backend exception makes the run exit 4, with every row kept."""
    out = tmp_path / "r.csv"
    result = invoke("run", "-q", "-b", "raises", "--out", str(out), str(puzzles))
    assert (RunExit.ERROR, 2) == (result.exit_code, len(read_rows(out)[1]))


def test_existing_out_needs_resume(puzzles: Path, tmp_path: Path) -> None:
    """An existing --out is never overwritten without --resume."""
    out = tmp_path / "r.csv"
    out.write_text("keep me\n")
    result = invoke("run", "-q", "--out", str(out), str(puzzles))
    assert (RunExit.USAGE, "keep me\n") == (result.exit_code, out.read_text())


def test_resume_needs_out(puzzles: Path) -> None:
    """--resume without --out is a usage error."""
    assert RunExit.USAGE == invoke("run", "--resume", str(puzzles)).exit_code


def test_baseline_gate_passes_on_same_run(puzzles: Path, tmp_path: Path) -> None:
    """run --baseline against an identical earlier run holds (exit 0)."""
    first = tmp_path / "a.csv"
    assert 0 == invoke("run", "-q", "--out", str(first), str(puzzles)).exit_code
    result = invoke(
        "run", "-q", "--out", str(tmp_path / "b.csv"), "--baseline", str(first), str(puzzles)
    )
    assert 0 == result.exit_code
    assert "harness check: holds" in result.output


def test_backends_lists_options() -> None:
    """harness backends shows each backend with its options and availability."""
    result = invoke("backends")
    assert 0 == result.exit_code
    assert "mrv" in result.output
    assert "select=" in result.output


def test_resume_of_a_file_that_is_not_results_is_refused(puzzles: Path, tmp_path: Path) -> None:
    """--resume into a CSV of something else: one line naming it, exit 2, file untouched."""
    out = tmp_path / "other.csv"
    out.write_text("a,b\n1,2\n")
    result = invoke("run", "-q", "--resume", "--out", str(out), str(puzzles))
    assert (RunExit.USAGE, "a,b\n1,2\n") == (result.exit_code, out.read_text())
    assert f"{out}: not a harness results CSV (no column dataset," in result.output


def test_resume_with_another_solution_limit_is_refused(puzzles: Path, tmp_path: Path) -> None:
    """Rows measured under limit 1 are not completed by a run under limit 2."""
    out = tmp_path / "r.csv"
    invoke("run", "-q", "-b", "mrv", "--out", str(out), str(puzzles))
    result = invoke(
        "run", "-q", "--resume", "--limit-solutions", "2", "--out", str(out), str(puzzles)
    )
    message = "--resume: --limit-solutions 2 (the run used 1)"
    assert RunExit.USAGE == result.exit_code
    assert message in result.output


def test_check_of_a_file_that_is_not_results_names_it(tmp_path: Path) -> None:
    """harness check on a CSV of something else: one line naming the file, exit 2."""
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    result = invoke("check", str(other), str(other))
    assert RunExit.USAGE == result.exit_code
    assert "not a harness results CSV" in result.output


def test_unreadable_baseline_fails_before_the_run(puzzles: Path, tmp_path: Path) -> None:
    """run --baseline with a file that is not results: exit 2 and no CSV written."""
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    out = tmp_path / "r.csv"
    result = invoke("run", "-q", "--baseline", str(other), "--out", str(out), str(puzzles))
    assert RunExit.USAGE == result.exit_code
    assert not out.exists()


def test_out_that_cannot_be_written_is_one_line(puzzles: Path, tmp_path: Path) -> None:
    """--out below a plain file: one line saying what cannot be written, exit 2."""
    blocker = tmp_path / "plain-file"
    blocker.write_text("")
    result = invoke("run", "-q", "--out", str(blocker / "r.csv"), str(puzzles))
    assert RunExit.USAGE == result.exit_code
    assert "harness: error: cannot write" in result.output


def test_a_file_named_twice_is_measured_once(puzzles: Path, tmp_path: Path) -> None:
    """The same file given twice, by two paths: one row per puzzle."""
    out = tmp_path / "r.csv"
    again = puzzles.parent / "." / puzzles.name
    result = invoke("run", "-q", "-b", "mrv", "--out", str(out), str(puzzles), str(again))
    assert (0, 2) == (result.exit_code, len(read_rows(out)[1]))


def test_the_resume_hint_fits_100_columns_and_the_shell_reads_it_whole(tmp_path: Path) -> None:
    """A long resume command is broken with backslashes: bash reads back every argument."""
    out = tmp_path / "my results" / "a run.csv"
    datasets = [str(tmp_path / f"puzzle file {k}.txt") for k in range(3)]
    backends = runner.resolve_backends(["mrv", "norvig:pairs=hidden", "ac3"])
    config = runner.RunConfig(backends, out, jobs=2, datasets=datasets)
    hint = resume_command(config)
    script = f'for word in {hint.strip()}; do printf "%s\\0" "$word"; done'
    read = subprocess.run(["bash", "-c", script], capture_output=True, text=True).stdout
    expected = ["harness", "run", "-b", "mrv", "-b", "norvig:pairs=hidden", "-b", "ac3"]
    expected += ["--timeout", "30", "--memory-limit", "2048", "--limit-solutions", "1"]
    expected += ["--repeat", "1", "--jobs", "2", "--seed", "0", "--resume", "--out", str(out)]
    assert (expected + datasets, []) == (
        read.split("\0")[:-1],
        [line for line in hint.splitlines() if len(line) > 100],
    )


@pytest.mark.parametrize(
    "command",
    [
        ["check", "{csv}"],
        ["plot", "scatter", "{csv}", "-o", "{tmp}/s.svg"],
        ["report", "{csv}", "-o", "{tmp}/r.html"],
    ],
)
def test_a_pair_given_twice_is_refused(command: list[str], tmp_path: Path) -> None:
    """--pair A,B --pair C,D: one line naming both and exit 2, not the last pair silently."""
    csv_path = Path(__file__).resolve().parents[1] / "results" / "baselines" / "ci-easy.csv"
    args = [a.format(csv=csv_path, tmp=tmp_path) for a in command]
    result = invoke(*args, "--pair", "mrv,dlx", "--pair", "norvig,ac3")
    line = "harness: error: --pair given 2 times (mrv,dlx and norvig,ac3); give it once"
    assert (2, True, []) == (
        result.exit_code,
        result.output.startswith(line),
        list(tmp_path.iterdir()),
    )
    assert 1 == len(result.output.splitlines())
