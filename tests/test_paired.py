"""The paired gate: two backends of one run, old against new, puzzle by puzzle."""

from __future__ import annotations

import random
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import backends
from harness.cli import main
from harness.exit_codes import CheckExit
from harness.gate import paired
from harness.results import BASE_COLUMNS
from tests.conftest import pattern_puzzle
from tests.test_baseline import Busy


def rows(spec: str, times: list[float], nodes: int = 10, status: str = "SOLVED") -> list[dict]:
    """One row per puzzle, three repeats each, the given per-puzzle times."""
    return [
        {c: None for c in BASE_COLUMNS}
        | {
            "dataset": "d.txt",
            "line": i + 1,
            "puzzle": f"p{i}",
            "backend": spec,
            "repeat": r,
            "limit": 1,
            "status": status,
            "solve_s": t,
            "nodes": nodes,
            "guesses": 0,
            "backtracks": 0,
        }
        for i, t in enumerate(times)
        for r in range(3)
    ]


def run_of(old: list[dict], new: list[dict]) -> pd.DataFrame:
    return pd.DataFrame([*old, *new])


def times(count: int = 60, seed: int = 1) -> list[float]:
    rng = random.Random(seed)
    return [rng.uniform(0.002, 0.05) for _ in range(count)]


def noisy(values: list[float], factor: float, seed: int = 2) -> list[float]:
    """``values`` times ``factor``, each with ±20 % noise (a loaded machine)."""
    rng = random.Random(seed)
    return [v * factor * rng.uniform(0.8, 1.2) for v in values]


def verdicts(result) -> dict[str, str]:
    return {f.check: f.verdict for f in result.findings}


def test_unchanged_code_under_noise_holds() -> None:
    """Old and new alike but for ±20 % noise per puzzle: every check ok, exit 0."""
    base = times()
    frame = run_of(rows("a@HEAD", noisy(base, 1.0, 3)), rows("a", noisy(base, 1.0, 4)))
    result = paired.compare_pairs(frame, [("a@HEAD", "a")])
    assert (CheckExit.OK, "ok") == (
        result.exit_code,
        verdicts(result)["paired solve wall ms (median)"],
    )


def test_a_slowdown_of_a_third_is_a_regression() -> None:
    """New 1.3x slower with ±20 % noise per puzzle: REGRESSION, exit 1."""
    base = times()
    frame = run_of(rows("a@v1", noisy(base, 1.0, 3)), rows("a", noisy(base, 1.3, 4)))
    result = paired.compare_pairs(frame, [("a@v1", "a")])
    assert (CheckExit.REGRESSION, "REGRESSION") == (
        result.exit_code,
        verdicts(result)["paired solve wall ms (median)"],
    )


def test_a_speedup_is_improved_and_holds() -> None:
    """New 1.5x faster: 'improved', exit 0."""
    base = times()
    frame = run_of(rows("a@v1", base), rows("a", noisy(base, 1 / 1.5)))
    result = paired.compare_pairs(frame, [("a@v1", "a")])
    assert (CheckExit.OK, "improved") == (
        result.exit_code,
        verdicts(result)["paired solve wall ms (median)"],
    )


def test_counters_must_match_exactly() -> None:
    """One more node a puzzle in the new code: the nodes check is a REGRESSION."""
    base = times(10)
    frame = run_of(rows("mrv@v1", base, nodes=10), rows("mrv", base, nodes=11))
    result = paired.compare_pairs(frame, [("mrv@v1", "mrv")])
    assert (CheckExit.REGRESSION, "REGRESSION") == (result.exit_code, verdicts(result)["nodes"])


def test_wrong_answers_of_the_new_code_fail_and_the_old_codes_do_not() -> None:
    """WRONG rows in the new backend: exit 2; the same rows in the old one alone: not WRONG."""
    base = times(10)
    new_wrong = paired.compare_pairs(
        run_of(rows("a@v1", base), rows("a", base, status="WRONG")), [("a@v1", "a")]
    )
    old_wrong = paired.compare_pairs(
        run_of(rows("a@v1", base, status="WRONG"), rows("a", base)), [("a@v1", "a")]
    )
    assert (CheckExit.WRONG, CheckExit.OK) == (new_wrong.exit_code, old_wrong.exit_code)


def test_the_interval_is_seeded_so_a_verdict_repeats() -> None:
    """The bootstrap interval of the same ratios is the same twice."""
    base = times()
    new = noisy(base, 1.1)
    assert paired.ratio_statistics(base, new) == paired.ratio_statistics(base, new)


def test_too_few_pairs_are_never_significant() -> None:
    """Four puzzles, each 3x slower: p is 1, the time check ok."""
    base = times(4)
    frame = run_of(rows("a@v1", base), rows("a", [t * 3 for t in base]))
    result = paired.compare_pairs(frame, [("a@v1", "a")])
    assert "ok" == verdicts(result)["paired solve wall ms (median)"]


@pytest.fixture
def busy_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A run of two backends over six puzzles: busy (some 10 ms a puzzle) and naive."""
    monkeypatch.setitem(backends.REGISTRY, Busy.name, Busy)
    data = tmp_path / "p.txt"
    data.write_text("".join(pattern_puzzle(2, 1 + k % 2).to_string() + "\n" for k in range(6)))
    out = tmp_path / "run.csv"
    command = ["run", "-q", "-b", "busy", "-b", "naive", "--out", str(out), str(data)]
    result = CliRunner().invoke(main, command)
    assert 0 == result.exit_code, result.output
    return out


def test_check_pair_judges_two_specs_of_one_run(busy_run: Path) -> None:
    """harness check RUN.csv --pair naive,busy: the pair's table, old naive, new busy."""
    result = CliRunner().invoke(main, ["check", str(busy_run), "--pair", "naive,busy"])
    assert "- paired in one run, old -> new: naive -> busy" in result.output
    assert "| busy | p.txt | answered | 6/6 | 6/6 | ok |" in result.output


def test_check_pair_names_a_backend_the_run_lacks(busy_run: Path) -> None:
    """--pair with a spec the run does not hold: one line listing those it holds, exit 2."""
    result = CliRunner().invoke(main, ["check", str(busy_run), "--pair", "naive,dlx"])
    line = "harness: error: --pair: no backend 'dlx' in the results; they hold busy, naive\n"
    assert (CheckExit.WRONG, line) == (result.exit_code, result.output)


def test_one_csv_without_pairs_asks_for_a_baseline(busy_run: Path) -> None:
    """harness check RUN.csv alone, for a run made without --against: one line, exit 2."""
    result = CliRunner().invoke(main, ["check", str(busy_run)])
    line = (
        f"harness: error: {busy_run}: not a run made with --against; "
        "give a baseline CSV, or --pair OLD,NEW\n"
    )
    assert (CheckExit.WRONG, line) == (result.exit_code, result.output)


def test_a_pair_split_at_the_comma_that_names_two_specs() -> None:
    """A cmd: spec may hold commas: the split is where both halves are specs of the run."""
    known = ["cmd:./solve --a,b", "cmd:./solve"]
    assert ("cmd:./solve --a,b", "cmd:./solve") == paired._split_known(
        "cmd:./solve --a,b,cmd:./solve", known
    )


def test_the_report_gives_the_repeats_spread_and_fastest(tmp_path: Path) -> None:
    """Three repeats of 10, 20 and 30 ms a puzzle: IQR 50 % of the median, fastest 10 ms."""
    from harness.report import data
    from tests.test_report_data import only_group, runs_of

    frame = pd.DataFrame(rows("a", [0.02] * 4)).assign(
        solve_s=lambda f: f["repeat"].map({0: 0.01, 1: 0.02, 2: 0.03})
    )
    with runs_of(frame, tmp_path) as runs:
        spread = data.repeat_spread(runs, only_group(runs))
    assert [("a", 50.0, 10.0)] == [
        (b, round(s, 6), round(m, 6)) for b, s, m in spread.itertuples(index=False)
    ]
