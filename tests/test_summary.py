"""The numpy tables (tables.summary) against pandas: same rows, and figures to print precision."""

from __future__ import annotations

import math
import random
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from harness.results.compact import CompactRows

from backends.base import Status
from backends.puzzle import Puzzle
from harness.cli import main
from harness.puzzles.readers import PuzzleRecord
from harness.results import BASE_COLUMNS
from harness.tables import frames as tables
from harness.tables import render, summary
from tests.conftest import PROJECT
from tests.results_file import read_rows

ANSWERED = ("SOLVED", "UNSAT")


# -- the pandas oracle: the tables as pandas computed them before harness.tables.summary ----------


def oracle_per_puzzle(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, line, puzzle, backend): medians over repeats, first status."""
    numeric = [c for c in frame.columns if c in summary.NUMERIC or oracle_native(frame, c)]
    agg = {c: "median" for c in numeric}
    agg.update({c: "first" for c in ("status", "size", "givens", "solutions", "message")})
    agg = {c: f for c, f in agg.items() if c in frame.columns}
    ordered = frame.sort_values("repeat", kind="stable")
    keys = ["dataset", "line", "puzzle", "backend"]
    return ordered.groupby(keys, sort=False, dropna=False).agg(agg).reset_index()


def oracle_native(frame: pd.DataFrame, column: str) -> bool:
    return column not in BASE_COLUMNS and pd.api.types.is_numeric_dtype(frame[column])


def oracle_grouping(frame: pd.DataFrame) -> list[str]:
    mixed = (frame.groupby("dataset")["size"].nunique() > 1).any()
    return ["backend", "dataset", "size"] if mixed else ["backend", "dataset"]


def oracle_spread(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, line, puzzle, backend) with two answered repeats or more: their
    interquartile range over their median, and the fastest."""
    keys = ["dataset", "line", "puzzle", "backend"]
    answered = frame[frame["status"].isin(ANSWERED) & frame["solve_s"].notna()]
    times = answered.groupby(keys, sort=False, dropna=False)["solve_s"]
    quartiles = times.quantile([0.25, 0.75]).unstack()
    per = pd.DataFrame(
        {
            "spread": (quartiles[0.75] - quartiles[0.25]) / times.median(),
            "fastest": times.min(),
            "n": times.size(),
        }
    )
    return per[per["n"] > 1].drop(columns="n").reset_index()


def oracle_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """The summary table, computed with pandas' groupby, median and mean."""
    by = oracle_grouping(frame)
    puzzles = oracle_per_puzzle(frame)
    repeated = frame["repeat"].max() > 0
    if repeated:
        keys = ["dataset", "line", "puzzle", "backend"]
        puzzles = puzzles.merge(oracle_spread(frame), on=keys, how="left")
    others = by[1:]
    counts = puzzles.drop_duplicates([*others, "line", "puzzle"]).groupby(others).size()
    rows = []
    for key, group in puzzles.groupby(by, sort=True, dropna=False):
        status = group["status"]
        answered = group[status.isin(ANSWERED)]
        ms = answered["solve_s"] * 1000
        row = dict(zip(by, key, strict=True))
        planned = max(len(group), int(counts.get(key[1:] if len(key) > 2 else key[1], 0)))
        solved = answered.loc[answered["status"] == "SOLVED", "guesses"].dropna()
        row |= {
            "solved": f"{int((status == 'SOLVED').sum())}/{planned}",
            "correct": f"{len(answered)}/{planned}",
            "unsat": int((status == "UNSAT").sum()),
            "timeouts": int((status == "TIMEOUT").sum()),
            "unknown": int((status == "UNKNOWN").sum()),
            "errors": int(status.isin(["ERROR", "MEMOUT"]).sum()),
            "wrong": int((status == "WRONG").sum()),
            "unavailable": int((status == "UNAVAILABLE").sum()),
            "median_ms": ms.median(),
            "cpu_ms": (answered["solve_cpu_s"] * 1000).median()
            if "solve_cpu_s" in answered
            else math.nan,
            **(
                {
                    "spread_pct": (answered["spread"] * 100).median(),
                    "min_ms": (answered["fastest"] * 1000).median(),
                }
                if repeated
                else {}
            ),
            "own_ms": (answered["own_solve_s"] * 1000).median()
            if "own_solve_s" in answered
            else math.nan,
            "mean_ms": ms.mean(),
            "max_ms": ms.max(),
            "encode_ms": (answered["encode_s"] * 1000).median(),
            "nodes_median": answered["nodes"].median(),
            "nodes_mean": answered["nodes"].mean(),
            "nodes_max": answered["nodes"].max(),
            "no_guess_pct": 100.0 * (solved == 0).mean() if len(solved) else math.nan,
            "guesses_per_puzzle": solved.mean() if len(solved) else math.nan,
            "_answered": len(answered),
        }
        rows.append(row)
    table = pd.DataFrame(rows)
    for name in ("cpu_ms", "own_ms"):  # no backend reports a CPU time or its own clock
        if table[name].isna().all():
            table = table.drop(columns=name)
    within = others
    table.insert(
        table.columns.get_loc("median_ms"),
        "x_fastest",
        table["median_ms"] / table.groupby(within, dropna=False)["median_ms"].transform("min"),
    )
    table = table.sort_values(
        [*within, "_answered", "median_ms"],
        ascending=[*(True for _ in within), False, True],
        na_position="last",
        kind="stable",
    )
    return table.drop(columns="_answered").reset_index(drop=True)


def oracle_native_summary(frame: pd.DataFrame) -> pd.DataFrame:
    puzzles = oracle_per_puzzle(frame)
    native = [c for c in puzzles.columns if oracle_native(puzzles, c)]
    answered = puzzles[puzzles["status"].isin(ANSWERED)]
    table = answered.groupby(oracle_grouping(frame))[native].median()
    return table.dropna(axis=0, how="all").dropna(axis=1, how="all").reset_index()


# -- helpers ---------------------------------------------------------------------------------


def same_value(x: object, y: object) -> bool:
    """Equal, NaN equal to NaN, numbers equal to 12 significant figures (far finer than the
    3 the tables print: sums may add up in another order)."""
    if x == y or (x != x and y != y):
        return True
    if isinstance(x, int | float) and isinstance(y, int | float):
        return math.isclose(x, y, rel_tol=1e-12)
    return False


def same_cells(expected: pd.DataFrame, actual: pd.DataFrame) -> bool:
    """Equal columns and equal values (see :func:`same_value`)."""
    if list(expected.columns) != list(actual.columns) or len(expected) != len(actual):
        return False
    return all(
        same_value(x, y)
        for c in expected.columns
        for x, y in zip(expected[c].tolist(), actual[c].tolist(), strict=True)
    )


def compact(csv: Path) -> CompactRows:
    """A CSV's rows as ``harness run`` holds them: compact columns."""
    _, rows = read_rows(csv)
    held = CompactRows(int(rows[0]["limit"]))
    held.add_native(rows[0])
    for row in rows:
        held.add(row)
    return held


def pure_tables(csv: Path) -> tuple[list[dict], list[dict]]:
    """The summary and native tables of a CSV's rows as ``harness run`` makes them."""
    puzzles = summary.run_puzzles(compact(csv))
    return summary.summary(puzzles), summary.native_summary(puzzles)


def assert_matches_pandas(csv: Path, run: bool = True) -> None:
    """The run's compact columns (``run``), the pandas adapters and the oracle agree on
    ``csv``."""
    frame = tables.load(csv)
    expected, expected_native = oracle_summary(frame), oracle_native_summary(frame)
    assert same_cells(expected, tables.summary(frame))
    assert tables.render(expected) == tables.render(tables.summary(frame))
    if not expected_native.empty:
        assert same_cells(expected_native, tables.native_summary(frame))
    assert same_cells(oracle_per_puzzle(frame), tables.per_puzzle(frame))
    if not run:
        return
    table, native = pure_tables(csv)
    assert same_cells(expected, pd.DataFrame(table))
    assert tables.render(expected) == render.render(table)
    assert tables.markdown(expected, None) == render.markdown(table, None)
    assert tables.render_native(expected_native) == render.render_native(native)


def invoke(*args: str) -> str:
    result = CliRunner().invoke(main, ["run", "-q", *args])
    assert 0 == result.exit_code, result.output
    return result.output


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    """Small real runs: the CSV and what ``harness run`` printed, by name."""
    folder = tmp_path_factory.mktemp("runs")
    hard = folder / "hard10.txt"
    hard.write_text("".join((PROJECT / "datasets/hard95.txt").read_text().splitlines(True)[:16]))
    plans = {
        "repeats": ("-b", "mrv", "-b", "dlx", "-b", "ac3", "--repeat", "3"),
        "timeouts": ("-b", "naive", "-b", "mrv", "--timeout", "0.005", str(hard)),
        "sizes": ("-b", "mrv", "-b", "dlx", "--limit-solutions", "2"),
    }
    files = {
        "repeats": ("datasets/medium.txt",),
        "timeouts": (),
        "sizes": ("datasets/sizes.txt", "datasets/multi.txt", "datasets/unsolvable.txt"),
    }
    out = {}
    for name, args in plans.items():
        csv = folder / f"{name}.csv"
        paths = [str(PROJECT / f) for f in files[name]]
        out[name] = (csv, invoke(*args, "--out", str(csv), *paths))
    return out


# -- tests -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["repeats", "timeouts", "sizes"])
def test_run_prints_the_tables_pandas_computes(runs: dict, name: str) -> None:
    """What harness run printed, from its rows in memory, is pandas' table of its CSV."""
    csv, printed = runs[name]
    frame = tables.load(csv)
    expected = tables.render(oracle_summary(frame))
    native = oracle_native_summary(frame)
    if not native.empty:
        expected += "\n\nnative statistics (medians over answered puzzles):\n"
        expected += tables.render_native(native)
    assert expected == printed[: len(expected)]


@pytest.mark.parametrize("name", ["repeats", "timeouts", "sizes"])
def test_real_runs_match_pandas_to_the_bit(runs: dict, name: str) -> None:
    """Every figure of the summary and native tables equals pandas', NaN where pandas has it."""
    assert_matches_pandas(runs[name][0])


def test_the_real_runs_cover_what_they_should(runs: dict) -> None:
    """The runs hold repeats, timeouts, UNSAT, several sizes and native statistics."""
    statuses = {r["status"] for name in runs for r in read_rows(runs[name][0])[1]}
    _, rows = read_rows(runs["sizes"][0])
    assert {"SOLVED", "UNSAT", "TIMEOUT"} <= statuses
    assert {"4", "9", "16", "25"} <= {r["size"] for r in rows}
    assert "updates" in rows[0]
    assert "2" in {r["repeat"] for r in read_rows(runs["repeats"][0])[1]}


def test_a_run_with_every_kind_of_row_prints_what_pandas_computes(
    tmp_path: Path, fake_backends: dict
) -> None:
    """Repeats of two real and two failing backends: printed as pandas computes it, to the bit."""
    csv = tmp_path / "mixed.csv"
    args = ["run", "-q", "-b", "dlx", "-b", "mrv", "-b", "raises", "-b", "watches-clock"]
    args += ["--repeat", "2", "--timeout", "0.02", "--out", str(csv)]
    args += [str(PROJECT / "datasets" / name) for name in ("unsolvable.txt", "sizes.txt")]
    printed = CliRunner().invoke(main, args).output
    _, rows = read_rows(csv)
    assert {"SOLVED", "UNSAT", "TIMEOUT", "ERROR"} == {r["status"] for r in rows}
    assert ({"0", "1"}, True) == ({r["repeat"] for r in rows}, "updates" in rows[0])
    frame = tables.load(csv)
    expected = tables.render(oracle_summary(frame))
    expected += "\n\nnative statistics (medians over answered puzzles):\n"
    expected += tables.render_native(oracle_native_summary(frame))
    assert expected == printed[: len(expected)]
    assert_matches_pandas(csv)


def edge_rows() -> list[dict]:
    """Rows pandas treats in its own ways: unknown cells, repeats that disagree, zeros."""
    rows = []
    statuses = [s.value for s in Status]
    for line in range(1, 25):
        for backend in ("a", "b", "c"):
            if backend == "c" and line > 12:
                continue  # c ran half the puzzles: counted against all of them
            for repeat in range(2 if line % 3 else 1):
                status = statuses[(line + repeat + len(backend)) % len(statuses)]
                unknown = status in ("UNAVAILABLE", "ERROR")
                rows.append(
                    {
                        "dataset": "d/x.txt" if line < 20 else "e/x.txt",
                        "line": line,
                        "puzzle": f"p{line}",
                        "size": "" if line == 7 else (4 if line % 5 == 0 else 9),
                        "backend": backend,
                        "repeat": repeat,
                        "limit": 1,
                        "status": status,
                        "encode_s": "" if unknown else 0.0001 * line,
                        "solve_s": 0.0 if line == 3 else (0.001 * line * (repeat + 1)),
                        "nodes": "" if backend == "b" and line % 2 else line * 7,
                        "guesses": line % 4,
                        "message": "" if status == "SOLVED" else "why",
                        "clauses": 10 * line if backend == "a" and line % 2 else "",
                        "ratio": 0.5 * line if backend == "c" else "",
                        "empty": "",
                    }
                )
    return rows


def test_edge_cases_match_pandas(tmp_path: Path) -> None:
    """Unknown sizes and counters, disagreeing repeats, a zero median, partial backends."""
    csv = tmp_path / "edge.csv"
    pd.DataFrame(edge_rows()).to_csv(csv, index=False)
    assert_matches_pandas(csv, run=False)  # unknown sizes: not a run's rows


def test_edge_cases_of_one_row_per_puzzle_match_pandas(tmp_path: Path) -> None:
    """Without repeats (the rows kept as read): UNKNOWN statuses and unknown sizes too."""
    rows = [r for r in edge_rows() if r["repeat"] == 0]
    rows[0] |= {"status": "UNKNOWN", "size": ""}
    rows[4] |= {"status": "UNKNOWN", "size": ""}
    csv = tmp_path / "edge.csv"
    pd.DataFrame(rows).to_csv(csv, index=False)
    assert_matches_pandas(csv, run=False)  # unknown statuses: not a run's rows


def test_a_dataset_of_one_size_only_and_random_times_match_pandas(tmp_path: Path) -> None:
    """Many puzzles of random times and counters."""
    rng = random.Random(7)
    rows = [
        {"dataset": "f.txt", "line": i, "puzzle": f"q{i}", "size": 9, "backend": b, "repeat": 0}
        | {"limit": 1, "status": "SOLVED", "encode_s": rng.random() / 1e3}
        | {"solve_s": round(rng.lognormvariate(-7, 2), 9), "nodes": rng.randrange(10**6)}
        | {"guesses": rng.randrange(3), "message": ""}
        for i in range(1, 700)
        for b in ("x", "y")
    ]
    csv = tmp_path / "many.csv"
    pd.DataFrame(rows).to_csv(csv, index=False)
    assert_matches_pandas(csv)


@pytest.mark.parametrize("name", ["repeats", "sizes"])
def test_summary_by_tier_matches_the_pandas_adapter(runs: dict, name: str) -> None:
    """By tier, the rows and the adapter give the same table, tiers in the order given."""
    csv = runs[name][0]
    _, rows = read_rows(csv)
    tiers = {r["puzzle"]: ("easy" if int(r["line"]) % 2 else "hard") for r in rows}
    order = ["hard", "easy"]
    held = compact(csv)
    puzzles = summary.run_puzzles(held)
    records = [
        PuzzleRecord(r["dataset"], int(r["line"]), Puzzle.parse(r["puzzle"]), None, None, "")
        for r in rows
    ]
    by_line = summary.tiers_by_puzzle(puzzles, held, records, lambda p: tiers[p.to_string()])
    table = summary.summary_by_tier(puzzles, by_line, order)
    assert same_cells(tables.summary_by_tier(tables.load(csv), tiers, order), pd.DataFrame(table))
    assert ["hard", "easy"] == [r["tier"] for r in table[:2]]


def test_run_leaves_pandas_out(tmp_path: Path) -> None:
    """harness run prints its tables without importing pandas."""
    code = (
        "import sys\n"
        "from harness.cli import main\n"
        f"sys.argv = ['harness', 'run', '-q', '-b', 'mrv', '--out', {str(tmp_path / 'o.csv')!r},"
        f" {str(PROJECT / 'datasets/easy.txt')!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pandas'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert "x fastest".replace("x", "\N{MULTIPLICATION SIGN}") in done.stdout
    assert "[]" == done.stdout.strip().splitlines()[-1]
