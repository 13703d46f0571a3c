"""What the summary's figures are, and that a run prints the tables its CSV gives.

Rows are written as a run writes them, read by the results engine and summed up by
:mod:`harness.tables.stats` (tests/test_stats.py holds the same figures to a pandas oracle on
random rows; here each rule has its own small case).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from backends.base import Status
from harness.cli import main
from harness.results import engine
from harness.tables import render, stats
from tests.conftest import PROJECT
from tests.results_file import read_rows, write_rows

STATUS_COLUMNS = ["unsat", "timeouts", "unknown", "errors", "wrong", "unavailable"]


def row(line: int, status: str, solve_s: float | None, repeat: int = 0, **extra: Any) -> dict:
    """One result row of backend 'b' on dataset 'd.txt'."""
    base = {
        "dataset": "d.txt",
        "line": line,
        "puzzle": f"p{line}",
        "size": 9,
        "backend": "b",
        "repeat": repeat,
        "limit": 1,
        "status": status,
        "solutions": 1 if status == "SOLVED" else 0,
        "encode_s": 0.001,
        "solve_s": solve_s,
        "nodes": 10 * line,
        "guesses": 0,
    }
    return {**base, **extra}


def summary(folder: Path, *rows: dict, natives: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """The summary table of ``rows``, as ``harness table`` gives it."""
    path = write_rows(folder / "r.csv", rows, natives)
    with engine.read([path]) as results:
        return stats.summary(results.con)


def native(folder: Path, *rows: dict, natives: tuple[str, ...]) -> list[dict[str, Any]]:
    """The native statistics' table of ``rows``."""
    path = write_rows(folder / "r.csv", rows, natives)
    with engine.read([path]) as results:
        return stats.native_summary(results.con)


def by_backend(table: list[dict[str, Any]], column: str) -> dict[str, Any]:
    return {r["backend"]: r[column] for r in table}


# -- counts ----------------------------------------------------------------------------------


def test_every_status_lands_in_exactly_one_column(tmp_path: Path) -> None:
    """Eight rows, one of each status: one solved, two checked answers (SOLVED and UNSAT),
    ERROR and MEMOUT both errors, out of 8 puzzles."""
    statuses = [s.value for s in Status]
    (got,) = summary(tmp_path, *(row(i + 1, s, 0.01) for i, s in enumerate(statuses)))
    counts = (got["puzzles"], got["solved"], got["correct"], [got[c] for c in STATUS_COLUMNS])
    assert (8, 1, 2, [1, 1, 1, 2, 1, 1]) == counts


def test_missing_rows_count_against_the_puzzles_planned(tmp_path: Path) -> None:
    """A backend with rows for 2 of a dataset's 5 puzzles has 2 solved of 5, not of 2; the
    puzzles of another dataset are not counted."""
    rows = [row(line, "SOLVED", 0.001, backend="all") for line in range(1, 6)]
    rows += [row(line, "SOLVED", 0.001, backend="some") for line in (2, 4)]
    rows += [row(1, "SOLVED", 0.001, backend="some", dataset="e.txt")]
    table = summary(tmp_path, *rows)
    got = {(r["backend"], r["dataset"]): (r["solved"], r["puzzles"]) for r in table}
    assert {("all", "d.txt"): (5, 5), ("some", "d.txt"): (2, 5), ("some", "e.txt"): (1, 1)} == got


def test_a_dataset_of_mixed_sizes_gets_a_row_per_size(tmp_path: Path) -> None:
    """A 4x4 and two 25x25 puzzles of one file are summarised apart, each size counting its
    own puzzles, not in one median."""
    rows = [row(1, "SOLVED", 0.001, size=4), row(2, "SOLVED", 0.5, size=25)]
    rows += [row(3, "TIMEOUT", 9.0, size=25), row(1, "SOLVED", 0.002, size=4, backend="c")]
    table = summary(tmp_path, *rows)
    got = [(r["backend"], r["size"], r["puzzles"], r["median_ms"]) for r in table]
    assert [("b", 4, 1, 1.0), ("c", 4, 1, 2.0), ("b", 25, 2, 500.0)] == got


# -- times -----------------------------------------------------------------------------------


def test_times_come_from_checked_answers_only(tmp_path: Path) -> None:
    """SOLVED and UNSAT rows are timed; a WRONG and a TIMEOUT row's times never enter the
    median, mean or max (nor do an ERROR's nodes)."""
    (got,) = summary(
        tmp_path,
        row(1, "SOLVED", 0.002),
        row(2, "SOLVED", 0.004),
        row(3, "UNSAT", 0.006, solutions=0),
        row(4, "WRONG", 0.0001),
        row(5, "TIMEOUT", 30.0),
        row(6, "ERROR", 0.5, nodes=10**6),
    )
    figures = ("median_ms", "mean_ms", "max_ms", "nodes_max", "encode_ms")
    assert (4.0, 4.0, 6.0, 30.0, 1.0) == tuple(got[c] for c in figures)


def test_no_answer_leaves_times_empty(tmp_path: Path) -> None:
    """A backend with no checked answer has unknown times, not zeros, and no ratio to the
    fastest; the backend that answered is the fastest, and comes first."""
    rows = [row(1, "TIMEOUT", 1.0), row(2, "ERROR", 0.5), row(1, "SOLVED", 0.004, backend="c")]
    table = summary(tmp_path, *rows)
    got = [(r["backend"], r["median_ms"], r["nodes_median"], r["x_fastest"]) for r in table]
    assert [("c", 4.0, 10.0, 1.0), ("b", None, None, None)] == got


def test_counters_and_guess_share_from_answers(tmp_path: Path) -> None:
    """Node statistics over answered puzzles; the share solved without a guess and the
    guesses per puzzle over solved ones (an unknown guess count left out of both)."""
    (got,) = summary(
        tmp_path,
        row(1, "SOLVED", 0.001, guesses=0),
        row(3, "SOLVED", 0.001, guesses=4),
        row(4, "SOLVED", 0.001, guesses=None),
        row(5, "TIMEOUT", 1.0, guesses=99),
    )
    figures = ("nodes_median", "nodes_mean", "nodes_max", "no_guess_pct", "guesses_per_puzzle")
    assert (30.0, 80 / 3, 40.0, 50.0, 2.0) == tuple(got[c] for c in figures)


def test_repeats_give_the_median_per_puzzle(tmp_path: Path) -> None:
    """Three repeats of one puzzle at 1, 9 and 2 ms count as one puzzle at 2 ms."""
    rows = [row(1, "SOLVED", t, repeat=k) for k, t in enumerate((0.001, 0.009, 0.002))]
    (got,) = summary(tmp_path, *rows)
    assert (1, 1, 2.0, 2.0) == (got["puzzles"], got["solved"], got["median_ms"], got["max_ms"])


def test_a_puzzle_takes_the_status_of_its_first_repeat(tmp_path: Path) -> None:
    """Repeats written out of order, repeat 0 SOLVED and repeat 1 TIMEOUT: one solved
    puzzle, no timeout."""
    rows = [row(1, "TIMEOUT", 1.0, repeat=1), row(1, "SOLVED", 0.004, repeat=0)]
    (got,) = summary(tmp_path, *rows)
    assert (1, 1, 0) == (got["puzzles"], got["solved"], got["timeouts"])


def test_x_fastest_and_the_order_within_each_dataset(tmp_path: Path) -> None:
    """Within a dataset, most checked answers first, then the lowest median; x_fastest is
    each median over the dataset's lowest; another dataset is ranked on its own."""
    rows = [row(line, "SOLVED", 0.001, backend="fast") for line in (1, 2)]
    rows += [row(line, "SOLVED", 0.003, backend="slow") for line in (1, 2)]
    rows += [row(line, "SOLVED", 0.010, backend="sure") for line in (1, 2, 3)]
    rows += [row(3, "TIMEOUT", 5.0, backend=b) for b in ("fast", "slow")]
    rows += [row(1, "SOLVED", 0.002, backend="slow", dataset="e.txt")]
    table = summary(tmp_path, *rows)
    got = [(r["dataset"], r["backend"], r["correct"], r["x_fastest"]) for r in table]
    assert [
        ("d.txt", "sure", 3, 10.0),
        ("d.txt", "fast", 2, 1.0),
        ("d.txt", "slow", 2, 3.0),
        ("e.txt", "slow", 1, 1.0),
    ] == got
    assert list(table[0]).index("x_fastest") + 1 == list(table[0]).index("median_ms")


def test_repeats_add_their_spread_and_without_cpu_times_no_cpu_column(tmp_path: Path) -> None:
    """With repeats at 1 and 3 ms, the spread (interquartile range over the median: 1 over
    2 ms) and the fastest repeat appear; a run without CPU times or the solver's own clock
    has no column for them; without repeats, no spread columns."""
    plain = summary(tmp_path, row(1, "SOLVED", 0.001))[0]
    repeated = summary(
        tmp_path, *(row(1, "SOLVED", t, repeat=k) for k, t in enumerate((0.001, 0.003)))
    )[0]
    optional = ("cpu_ms", "own_ms", "spread_pct", "min_ms")
    assert [] == [c for c in optional if c in plain]
    assert (50.0, 1.0) == pytest.approx((repeated["spread_pct"], repeated["min_ms"]))
    assert ("cpu_ms", "own_ms") == tuple(c for c in optional if c not in repeated)


def test_several_runs_are_kept_apart(tmp_path: Path) -> None:
    """Two CSVs: a row per run, each counting its own puzzles; --merge pools them."""
    first = write_rows(tmp_path / "one.csv", [row(1, "SOLVED", 0.001), row(2, "SOLVED", 0.003)])
    second = write_rows(tmp_path / "two.csv", [row(1, "SOLVED", 0.005)])
    with engine.read([first, second]) as results:
        apart = stats.summary(results.con)
        merged = stats.summary(results.con, merge=True)
    got = [(r["run"], r["puzzles"], r["median_ms"]) for r in apart]
    assert [("one", 2, 2.0), ("two", 1, 5.0)] == got
    assert [(2, 3.0)] == [(r["puzzles"], r["median_ms"]) for r in merged]  # 3 ms, 3 ms


def test_summary_by_tier_follows_the_given_order(tmp_path: Path) -> None:
    """Tiers appear in the order given, puzzles without a tier as 'unrated' last; each tier's
    figures are its own puzzles'."""
    path = write_rows(tmp_path / "r.csv", [row(n, "SOLVED", n / 1000) for n in (1, 2, 3)])
    tiers = [("d.txt", 1, "hard"), ("d.txt", 2, "easy")]
    with engine.read([path]) as results:
        table = stats.summary_by_tier(results.con, tiers, ["easy", "hard"])
    got = [(r["tier"], r["puzzles"], r["median_ms"]) for r in table]
    assert [("easy", 1, 2.0), ("hard", 1, 1.0), ("unrated", 1, 3.0)] == got


# -- native statistics -----------------------------------------------------------------------


def test_native_statistics_are_medians_over_answered_puzzles(tmp_path: Path) -> None:
    """A native statistic's median leaves out unanswered puzzles; a column no row of a
    backend reports is left out of its table, a text column out of every table."""
    rows = [
        row(1, "SOLVED", 0.001, clauses=100, mode="fast"),
        row(2, "SOLVED", 0.001, clauses=300, mode="slow"),
        row(3, "TIMEOUT", 1.0, clauses=10**6),
        row(1, "SOLVED", 0.001, backend="c", updates=7),
    ]
    table = native(tmp_path, *rows, natives=("clauses", "mode", "updates"))
    assert [
        {"backend": "b", "dataset": "d.txt", "clauses": 200.0, "updates": None},
        {"backend": "c", "dataset": "d.txt", "clauses": None, "updates": 7.0},
    ] == table


def test_native_statistics_print_per_backend_only_what_it_reports(tmp_path: Path) -> None:
    """Each backend's line names only its own statistics, with human numbers."""
    rows = [row(1, "SOLVED", 0.001, clauses=1500)]
    rows += [row(1, "SOLVED", 0.001, backend="c", updates=12345)]
    text = render.render_native(native(tmp_path, *rows, natives=("clauses", "updates")))
    expected = [
        "backend  dataset  statistics",
        "b        d.txt    clauses 1,500",
        "c        d.txt    updates 12,345",
    ]
    assert expected == text.splitlines()


def test_native_statistics_wrap_between_name_value_pairs(tmp_path: Path) -> None:
    """A long list wraps under its first statistic, never between a name and its value."""
    values = {f"statistic_number_{i}": 1000 * i for i in range(1, 9)}
    rows = [row(1, "SOLVED", 0.1, **values)]
    lines = render.render_native(native(tmp_path, *rows, natives=tuple(values))).splitlines()[1:]
    assert max(len(line) for line in lines) <= 100
    assert all(line.startswith(" " * 18 + "statistic_number_") for line in lines[1:])
    assert 8 == sum(line.count("statistic_number_") for line in lines)


# -- what a run prints -----------------------------------------------------------------------


def tables_of(csv: Path) -> str:
    """The tables ``harness run`` prints at its end, as its CSV gives them."""
    with engine.read([csv]) as results:
        text = render.render(stats.summary(results.con))
        natives = stats.native_summary(results.con)
    if natives:
        text += "\n\nnative statistics (medians over answered puzzles):\n"
        text += render.render_native(natives)
    return text


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    """Small real runs: the CSV and what ``harness run`` printed, by name."""
    folder = tmp_path_factory.mktemp("runs")
    plans = {
        "repeats": ["-b", "mrv", "-b", "dlx", "--repeat", "3", "datasets/multi.txt"],
        "sizes": [
            *("-b", "mrv", "-b", "dlx", "--limit-solutions", "2"),
            *("datasets/sizes.txt", "datasets/multi.txt", "datasets/unsolvable.txt"),
        ],
    }
    out = {}
    for name, args in plans.items():
        csv = folder / f"{name}.csv"
        args = [str(PROJECT / a) if a.startswith("datasets/") else a for a in args]
        result = CliRunner().invoke(main, ["run", "-q", *args, "--out", str(csv)])
        assert 0 == result.exit_code, result.output
        out[name] = (csv, result.output)
    return out


@pytest.mark.parametrize("name", ["repeats", "sizes"])
def test_a_run_prints_the_tables_of_its_csv(runs: dict, name: str) -> None:
    """What harness run printed is the summary and native tables of the CSV it wrote."""
    csv, printed = runs[name]
    expected = tables_of(csv)
    assert expected == printed[: len(expected)]


def test_the_real_runs_cover_what_they_should(runs: dict) -> None:
    """The runs hold repeats, UNSAT, several sizes and native statistics."""
    _, rows = read_rows(runs["sizes"][0])
    assert {"SOLVED", "UNSAT"} <= {r["status"] for r in rows}
    assert {"4", "9", "16", "25"} <= {r["size"] for r in rows}
    assert "updates" in rows[0]
    assert "2" in {r["repeat"] for r in read_rows(runs["repeats"][0])[1]}


def test_a_run_with_failing_backends_prints_the_tables_of_its_csv(
    tmp_path: Path, fake_backends: dict
) -> None:
    """Repeats of two real and two failing backends (ERROR, TIMEOUT): the tables printed are
    its CSV's, then the line of the most common failure, and the exit code says ERROR."""
    csv = tmp_path / "mixed.csv"
    args = ["run", "-q", "-b", "dlx", "-b", "mrv", "-b", "raises", "-b", "watches-clock"]
    args += ["--repeat", "2", "--timeout", "0.02", "--out", str(csv)]
    args += [str(PROJECT / "datasets" / name) for name in ("unsolvable.txt", "sizes.txt")]
    result = CliRunner().invoke(main, args)
    _, rows = read_rows(csv)
    assert {"SOLVED", "UNSAT", "TIMEOUT", "ERROR"} == {r["status"] for r in rows}
    expected = tables_of(csv)
    assert (4, expected) == (result.exit_code, result.output[: len(expected)])
    errors = sum(r["status"] == "ERROR" for r in rows)
    unwrapped = result.output.replace("\n    ", " ")  # a line longer than 100 is wrapped
    assert f"ERROR: {errors} row(s); most common reason (" in unwrapped
    assert "): RuntimeError: cannot solve " in unwrapped


def test_a_run_leaves_pandas_and_numpy_out(tmp_path: Path) -> None:
    """harness run prints its tables without importing pandas or numpy."""
    code = (
        "import sys\n"
        "from harness.cli import main\n"
        f"sys.argv = ['harness', 'run', '-q', '-b', 'mrv', '--out', {str(tmp_path / 'o.csv')!r},"
        f" {str(PROJECT / 'datasets/easy.txt')!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pandas', 'numpy')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert "\N{MULTIPLICATION SIGN} fastest" in done.stdout
    assert "[]" == done.stdout.strip().splitlines()[-1]


def test_wall_over_cpu_shows_a_loaded_backend_only(tmp_path: Path) -> None:
    """Backend 'a' solved in twice its CPU time (descheduled half the time), 'b' in its CPU
    time: the summary and the report's ranking show wall/cpu 2 for 'a' alone, and the
    printed table says what the column means."""
    rows = [
        row(line, "SOLVED", 0.02, backend=b, solve_cpu_s=0.01 if b == "a" else 0.02)
        for line in (1, 2, 3)
        for b in ("a", "b")
    ]
    path = write_rows(tmp_path / "r.csv", rows)
    with engine.read([path]) as results:
        table = stats.summary(results.con)
        ranking = stats.ranking(results.con, stats.per_puzzle(results.con), 1.0)
    assert {"a": 2.0, "b": None} == by_backend(table, "wall_cpu")
    assert {"a": 2.0, "b": None} == {r["backend"]: r.get("wall_cpu") for r in ranking[:2]}
    assert "wall/cpu: wall time over CPU time, shown above 1.2" in render.render(table)


def test_no_wall_over_cpu_column_where_no_backend_waited(tmp_path: Path) -> None:
    rows = [row(line, "SOLVED", 0.02, solve_cpu_s=0.019) for line in (1, 2)]
    table = summary(tmp_path, *rows)
    assert ("wall_cpu" not in table[0], "wall/cpu" not in render.render(table)) == (True, True)
