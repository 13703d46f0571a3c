"""`harness report`, `harness plot` and `harness table` through click's test runner."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.exit_codes import RunExit
from harness.results import BASE_COLUMNS
from harness.results.companions import meta_path_for

SCIENTIFIC = re.compile(r"\d[eE][+-]?\d")
BACKENDS = ("fast:opt=1", "slow", "broken")


def invoke(*args: str, **env: str):
    return CliRunner().invoke(main, list(args), env=env or None)


def results_csv(path: Path, scale: float = 1.0) -> Path:
    """Three backends on 6 puzzles: tiny and huge numbers, a TIMEOUT, a WRONG, an ERROR."""
    rows = []
    for line in range(1, 7):
        for backend, status, solve_s, nodes in (
            ("fast:opt=1", "SOLVED", 0.0000123 * line * scale, 1),
            ("slow", "SOLVED" if line < 6 else "TIMEOUT", 0.3 * line * scale, 2_603_220 * line),
            ("broken", ("WRONG", "ERROR", "SOLVED")[line % 3], 0.002 * scale, 50),
        ):
            rows.append(
                {
                    "dataset": "datasets/demo.txt",
                    "line": line,
                    "puzzle": f"{line:081d}",
                    "size": 9,
                    "givens": 17,
                    "backend": backend,
                    "repeat": 0,
                    "limit": 1,
                    "jobs": 1,
                    "status": status,
                    "solutions": 1,
                    "encode_s": 0.0000071,
                    "solve_s": solve_s,
                    "nodes": nodes,
                    "guesses": nodes // 3,
                    "backtracks": 0,
                    "message": "",
                }
            )
    pd.DataFrame(rows, columns=[c for c in BASE_COLUMNS if c in rows[0]]).to_csv(path, index=False)
    meta = {
        "command": ["harness", "run", "-b", "all"],
        "git": {"sha": "abc123", "dirty": False},
        "started": "2026-11-25T01:00:00+00:00",
        "finished": "2026-11-25T01:01:00+00:00",
        "limits": {"timeout_s": 3.0, "memory_limit_mib": 2048, "solutions_limit": 1},
        "machine": {"cpu_model": "test cpu", "cpu_count": 2},
        "packages": {"pandas": "2"},
    }
    meta_path_for(path).write_text(json.dumps(meta))
    return path


@pytest.fixture
def csv(tmp_path: Path) -> Path:
    return results_csv(tmp_path / "run.csv")


def test_report_is_one_offline_page(csv: Path, tmp_path: Path) -> None:
    """Exit 0; every section, one cactus line per backend that answered; no http(s) at all."""
    out = tmp_path / "r.html"
    result = invoke("report", str(csv), "-o", str(out))
    page = out.read_text()
    assert 0 == result.exit_code, result.output
    assert [] == re.findall(r"https?://", page)
    for anchor in ('id="provenance"', 'id="dataset-0"', 'class="cactus"', 'class="scatter"'):
        assert anchor in page
    assert ['id="cactus:broken"', 'id="cactus:fast:opt=1"', 'id="cactus:slow"'] == sorted(
        set(re.findall(r'id="cactus:[^"]+"', page))
    )
    assert "virtual best" in page and "abc123" in page


def test_report_of_two_runs_shows_each(csv: Path, tmp_path: Path) -> None:
    """Two CSVs: the page says so, and a backend in both is told apart by file."""
    other = results_csv(tmp_path / "again.csv", scale=2.0)
    out = tmp_path / "r.html"
    result = invoke("report", str(csv), str(other), "-o", str(out))
    page = out.read_text()
    assert 0 == result.exit_code
    assert "2 runs on this page" in page
    assert "slow (again)" in page


def test_report_with_baseline_gives_the_gates_verdict(csv: Path, tmp_path: Path) -> None:
    """Against a twice-faster baseline, the gate section and the old-vs-new plot appear."""
    old = results_csv(tmp_path / "old.csv", scale=0.5)
    out = tmp_path / "r.html"
    result = invoke("report", str(csv), "--baseline", str(old), "-o", str(out))
    page = out.read_text()
    assert 0 == result.exit_code
    assert 'id="baseline"' in page
    assert "WRONG" in page
    assert 'class="oldnew"' in page and "median new/old" in page


def test_report_against_a_baseline_sharing_nothing_warns_nothing(csv: Path, tmp_path: Path) -> None:
    """A baseline of another dataset: the old-vs-new plot says no puzzle is in both, and
    nothing is warned (an empty legend used to be)."""
    old = results_csv(tmp_path / "old.csv")
    frame = pd.read_csv(old).assign(dataset="datasets/other.txt")
    frame.to_csv(old, index=False)
    out = tmp_path / "r.html"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = invoke("report", str(csv), "--baseline", str(old), "-o", str(out))
    assert (0, []) == (result.exit_code, [str(w.message) for w in caught])
    assert "no puzzle answered correctly in both runs" in out.read_text()


def test_a_torn_last_row_is_left_out(csv: Path, tmp_path: Path) -> None:
    """A run killed mid-row: the page shows the 6 whole puzzles, its torn seventh is left out."""
    with csv.open("a") as out:
        out.write("datasets/demo.txt,7,x")
    out = tmp_path / "r.html"
    result = invoke("report", str(csv), "-o", str(out))
    assert (0, True) == (result.exit_code, '<p class="note">6 puzzles.</p>' in out.read_text())


@pytest.mark.parametrize("suffix", [".svg", ".png", ".pdf"])
@pytest.mark.parametrize("kind", ["cactus", "scatter", "effort"])
def test_plot_writes_the_format_of_its_suffix(csv: Path, tmp_path: Path, kind, suffix) -> None:
    """Each plot in each format: a non-empty file that starts like one."""
    out = tmp_path / f"p{suffix}"
    result = invoke("plot", kind, str(csv), "-o", str(out), "--pair", "slow,fast:opt=1")
    magic = {".svg": b"<?xml", ".png": b"\x89PNG", ".pdf": b"%PDF"}[suffix]
    assert (0, magic) == (result.exit_code, out.read_bytes()[: len(magic)])


def test_not_results_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """A CSV that is not harness results: one line naming it, exit 2."""
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    for args in (
        ["report", str(bad)],
        ["plot", "cactus", str(bad), "-o", "x.svg"],
        ["table", str(bad)],
    ):
        result = invoke(*args)
        assert (RunExit.USAGE, 1) == (result.exit_code, len(result.output.strip().splitlines()))
        assert "not a harness results CSV" in result.output


def test_pair_naming_an_absent_backend_is_exit_2(csv: Path, tmp_path: Path) -> None:
    """--pair with a backend the file lacks: one line listing those it has, exit 2."""
    result = invoke("report", str(csv), "--pair", "slow,nosuch", "-o", str(tmp_path / "r.html"))
    assert (RunExit.USAGE, 1) == (result.exit_code, len(result.output.strip().splitlines()))
    assert "no backend 'nosuch'" in result.output


def test_unwritable_output_is_exit_2(csv: Path, tmp_path: Path) -> None:
    """An output path in a missing folder: one line, exit 2, for the page and a plot."""
    missing = tmp_path / "no" / "such"
    for args in (
        ["report", str(csv), "-o", str(missing / "r.html")],
        ["plot", "cactus", str(csv), "-o", str(missing / "c.svg")],
    ):
        result = invoke(*args)
        assert RunExit.USAGE == result.exit_code
        assert "cannot write" in result.output
        assert 1 == len(result.output.strip().splitlines())


@pytest.mark.parametrize("fmt", ["text", "markdown", "csv", "json"])
@pytest.mark.parametrize("wide", [False, True])
def test_table_is_human_in_every_format(csv: Path, fmt: str, wide: bool) -> None:
    """No scientific notation in any format; no line over 100 columns unless --wide."""
    result = invoke("table", str(csv), "--format", fmt, *(["--wide"] if wide else []))
    lines = result.output.splitlines()
    assert (0, []) == (result.exit_code, [x for x in lines if SCIENTIFIC.search(x)])
    if not wide or fmt == "json":
        assert [] == [x for x in lines if len(x) > 100]


def test_table_text_shows_separators_and_sorts_by_speed(csv: Path) -> None:
    """Node counts carry thousands separators; the fastest backend is the first row."""
    text = invoke("table", str(csv), "--wide").output
    first = text.splitlines()[1]
    assert first.startswith("fast:opt=1")
    assert "7,809,660" in text


def test_table_by_backend_only(csv: Path) -> None:
    """--by backend gives one row per backend in JSON, most correct answers first."""
    rows = json.loads(invoke("table", str(csv), "--by", "backend", "--format", "json").output)
    assert ["fast:opt=1", "slow", "broken"] == [r["backend"] for r in rows]


def test_table_rejects_an_unknown_grouping(csv: Path) -> None:
    """--by with a column it cannot group by: exit 2."""
    assert RunExit.USAGE == invoke("table", str(csv), "--by", "colour").exit_code
