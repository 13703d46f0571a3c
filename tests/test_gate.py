"""The regression gate (harness check)."""

from __future__ import annotations

import random
from pathlib import Path

import pandas as pd
from click.testing import CliRunner

from harness import gate
from harness.cli import main
from harness.exit_codes import CheckExit
from harness.results import BASE_COLUMNS, provenance
from harness.results.calibration import CALIBRATION_WORKLOAD, calibration_of


def frame(times: list[float], nodes: list[int], status: str = "SOLVED") -> pd.DataFrame:
    rows = [
        {c: None for c in BASE_COLUMNS}
        | {
            "dataset": "d.txt",
            "line": i + 1,
            "puzzle": f"p{i}",
            "backend": "mrv",
            "repeat": 0,
            "limit": 1,
            "status": status,
            "solve_s": t,
            "encode_s": 0.0,
            "nodes": n,
            "guesses": 0,
            "backtracks": 0,
        }
        for i, (t, n) in enumerate(zip(times, nodes, strict=True))
    ]
    return pd.DataFrame(rows)


def base_times(count: int = 40, seed: int = 1) -> list[float]:
    rng = random.Random(seed)
    return [rng.uniform(0.001, 0.05) for _ in range(count)]


def wobble(times: list[float], factor: float, seed: int = 2) -> list[float]:
    rng = random.Random(seed)
    return [t * factor * rng.uniform(0.9, 1.1) for t in times]


def test_identical_runs_hold() -> None:
    """A run compared with itself holds."""
    old = frame(base_times(), [10] * 40)
    assert CheckExit.OK == gate.compare(old, old).exit_code


def test_small_time_wobble_is_ignored() -> None:
    """Times within ±10 % noise pass."""
    times = base_times()
    result = gate.compare(frame(times, [10] * 40), frame(wobble(times, 1.0), [10] * 40))
    assert CheckExit.OK == result.exit_code


def test_large_significant_slowdown_fails() -> None:
    """Every puzzle 1.6x slower is a regression."""
    times = base_times()
    result = gate.compare(frame(times, [10] * 40), frame(wobble(times, 1.6), [10] * 40))
    assert CheckExit.REGRESSION == result.exit_code


def test_large_but_insignificant_slowdown_passes() -> None:
    """A slower median on only 3 puzzles is not significant."""
    times = base_times(3)
    result = gate.compare(frame(times, [10] * 3), frame(wobble(times, 1.6), [10] * 3))
    assert CheckExit.OK == result.exit_code


def test_node_change_is_flagged() -> None:
    """One puzzle's nodes changing is a regression for a deterministic backend."""
    times = base_times()
    new_nodes = [10] * 39 + [11]
    result = gate.compare(frame(times, [10] * 40), frame(times, new_nodes), {"mrv": True})
    changed = [f for f in result.findings if f.check == "nodes"]
    assert (CheckExit.REGRESSION, "REGRESSION") == (result.exit_code, changed[0].verdict)


def test_node_change_within_tolerance() -> None:
    """A 10 % node change passes with --tolerance 0.1."""
    times = base_times()
    old, new = frame(times, [10] * 40), frame(times, [11] * 40)
    assert CheckExit.REGRESSION == gate.compare(old, new, {"mrv": True}).exit_code
    result = gate.compare(old, new, {"mrv": True}, tolerance=0.1)
    assert CheckExit.OK == result.exit_code


def test_nondeterministic_counters_not_compared() -> None:
    """Counters of a backend not known to be deterministic may change freely."""
    times = base_times()
    result = gate.compare(frame(times, [10] * 40), frame(times, [99] * 40), {"mrv": False})
    assert CheckExit.OK == result.exit_code


def test_fewer_solved_fails() -> None:
    """A puzzle answered before and timed out now is a regression."""
    times = base_times()
    new = frame(times, [10] * 40)
    new.loc[0, "status"] = "TIMEOUT"
    assert CheckExit.REGRESSION == gate.compare(frame(times, [10] * 40), new).exit_code


def test_wrong_exits_2() -> None:
    """Any WRONG row in the new run gives exit code 2."""
    times = base_times()
    new = frame(times, [10] * 40)
    new.loc[5, "status"] = "WRONG"
    assert CheckExit.WRONG == gate.compare(frame(times, [10] * 40), new).exit_code


def test_check_cli_exit_code_and_markdown(tmp_path: Path) -> None:
    """harness check prints a Markdown table and exits 2 on a WRONG row."""
    times = base_times()
    old, new = frame(times, [10] * 40), frame(times, [10] * 40)
    new.loc[0, "status"] = "WRONG"
    old.to_csv(tmp_path / "old.csv", index=False)
    new.to_csv(tmp_path / "new.csv", index=False)
    result = CliRunner().invoke(
        main, ["check", str(tmp_path / "old.csv"), str(tmp_path / "new.csv")]
    )
    assert 2 == result.exit_code
    assert "| backend | dataset | check |" in result.output


def test_a_one_node_change_shows_in_the_table() -> None:
    """Counter totals are printed exactly, so a change of one node is visible."""
    times = base_times()
    new_nodes = [12345] * 39 + [12346]
    result = gate.compare(frame(times, [12345] * 40), frame(times, new_nodes))
    line = next(x for x in result.markdown().splitlines() if "| nodes |" in x)
    assert CheckExit.REGRESSION == result.exit_code
    assert "493,800 | total 493,801" in line


def test_same_file_under_another_path_still_pairs() -> None:
    """A baseline made on datasets/d.txt gates a run made on /ci/checkout/datasets/d.txt."""
    times = base_times()
    old = frame(times, [10] * 40).assign(dataset="datasets/d.txt")
    new = frame(times, [10] * 40).assign(dataset="/ci/checkout/datasets/d.txt")
    assert CheckExit.OK == gate.compare(old, new).exit_code


def write_run(
    path: Path,
    rows: pd.DataFrame,
    calibration_s: float | None,
    cpu: str = "CPU A",
    workload: str = CALIBRATION_WORKLOAD,
    specs: tuple[str, ...] = ("mrv",),
) -> Path:
    """A results CSV and its metadata: one machine, one calibration; the metadata vouches
    for the file as a run's end does (its made-up answers are not checked again)."""
    rows.to_csv(path, index=False)
    meta: dict = {
        "machine": {"cpu_model": cpu, "cpu_count": 2},
        "python": {"version": "3.11.7"},
        "backends": [{"spec": spec, "deterministic": True} for spec in specs],
        "csv_digest": provenance.csv_digest(path),
    }
    if calibration_s is not None:
        meta["calibration"] = {
            "workload": workload,
            "start_s": calibration_s,
            "end_s": calibration_s,
        }
    provenance.write_json(provenance.meta_path_for(path), meta)
    return path


def check(*args: object) -> object:
    return CliRunner().invoke(main, ["check", *map(str, args)])


def test_slower_machine_with_slower_calibration_holds(tmp_path: Path) -> None:
    """Times and calibration both 1.5x slower: the calibrated gate holds."""
    times = base_times()
    old = write_run(tmp_path / "old.csv", frame(times, [10] * 40), 0.001)
    new = write_run(tmp_path / "new.csv", frame(wobble(times, 1.5), [10] * 40), 0.0015)
    result = check(old, new)
    assert 0 == result.exit_code, result.output
    assert "calibration (1 ms -> 1.5 ms, x1.5)" in result.output


def test_a_baseline_calibrated_as_the_fastest_of_31_still_scales_times(tmp_path: Path) -> None:
    """A baseline whose calibration was the fastest of 31 runs is divided by it too."""
    times = base_times()
    fastest_of_31 = "8-queens + 2000 dict updates, fastest of 31"
    rows = frame(times, [10] * 40)
    old = write_run(tmp_path / "old.csv", rows, 0.001, workload=fastest_of_31)
    new = write_run(tmp_path / "new.csv", frame(wobble(times, 1.5), [10] * 40), 0.0015)
    result = check(old, new)
    assert 0 == result.exit_code, result.output
    assert "calibration (1 ms -> 1.5 ms, x1.5)" in result.output


def test_a_calibration_of_another_workload_is_not_used() -> None:
    """Seconds recorded for a workload the gate does not know give no calibration."""
    meta = {"calibration": {"workload": "9-queens", "start_s": 0.002, "end_s": None}}
    assert None is calibration_of(meta)


def test_slower_times_with_the_same_calibration_fail(tmp_path: Path) -> None:
    """Times 1.5x slower on a machine that calibrates the same: a regression."""
    times = base_times()
    old = write_run(tmp_path / "old.csv", frame(times, [10] * 40), 0.001)
    new = write_run(tmp_path / "new.csv", frame(wobble(times, 1.5), [10] * 40), 0.001)
    assert 1 == check(old, new).exit_code


def test_other_machine_judges_answers_and_counters_only(tmp_path: Path) -> None:
    """Another CPU: time is not judged and the gate says so, unless asked to judge it."""
    times = base_times()
    old = write_run(tmp_path / "old.csv", frame(times, [10] * 40), 0.001)
    new = write_run(tmp_path / "new.csv", frame(wobble(times, 2), [10] * 40), 0.001, "CPU B")
    result = check(old, new)
    assert 0 == result.exit_code
    assert "the machines differ (CPU CPU A -> CPU B): time not judged" in result.output
    assert 1 == check(old, new, "--compare-time-anyway").exit_code


def test_only_common_skips_a_backend_the_new_run_lacks(tmp_path: Path) -> None:
    """A baseline backend the new run was asked for and lacks fails, unless --only-common."""
    times = base_times()
    both = pd.concat([frame(times, [10] * 40), frame(times, [10] * 40).assign(backend="ac3")])
    old = write_run(tmp_path / "old.csv", both, 0.001, specs=("mrv", "ac3"))
    new = write_run(tmp_path / "new.csv", frame(times, [10] * 40), 0.001, specs=("mrv", "ac3"))
    assert 1 == check(old, new).exit_code
    result = check(old, new, "--only-common")
    assert 0 == result.exit_code
    assert "--only-common: 40 row(s) not in both runs left out" in result.output


def test_p_values_never_show_an_exponent() -> None:
    """p below 0.001 is 'p<0.001'; above, two significant figures."""
    assert ["p<0.001", "p=0.001", "p=0.012", "p=1"] == [
        gate.p_value(p) for p in (6.2e-09, 0.001, 0.0123, 1.0)
    ]


def test_runs_with_nothing_in_common_do_not_hold(tmp_path: Path) -> None:
    """No backend in both runs, with --only-common too: nothing compared, exit 1, not holds."""
    times = base_times()
    old = write_run(tmp_path / "old.csv", frame(times, [10] * 40), 0.001)
    new = write_run(tmp_path / "new.csv", frame(times, [10] * 40).assign(backend="ac3"), 0.001)
    results = [check(old, new, *extra) for extra in ((), ("--only-common",))]
    assert [1, 1] == [result.exit_code for result in results]
    assert all("NOTHING COMPARED" in result.output for result in results)


def test_a_backend_not_asked_for_and_one_new_compare_nothing() -> None:
    """The run's only backend is new, the baseline's was not asked for: nothing compared."""
    times = base_times()
    old, new = frame(times, [10] * 40), frame(times, [10] * 40).assign(backend="ac3")
    assert CheckExit.REGRESSION == gate.compare(old, new, scope={"ac3"}).exit_code


def test_wrong_answers_outrank_nothing_compared() -> None:
    """WRONG rows of a backend the baseline lacks: the verdict is WRONG ANSWERS, exit 2."""
    times = base_times()
    old = frame(times, [10] * 40)
    new = frame(times, [10] * 40, status="WRONG").assign(backend="ac3")
    result = gate.compare(old, new)
    assert (CheckExit.WRONG, "WRONG ANSWERS") == (result.exit_code, result.headline)


def test_one_changed_repeat_out_of_five_is_a_change(tmp_path: Path) -> None:
    """Counters compare per repeat: one repeat's nodes differing fails, though medians agree."""
    times = base_times(10)
    old = pd.concat([frame(times, [10] * 10).assign(repeat=r) for r in range(5)])
    new = old.copy()
    new.loc[(new.repeat == 3) & (new.line == 4), "nodes"] = 11
    result = gate.check_files(
        write_run(tmp_path / "old.csv", old, 0.001), write_run(tmp_path / "new.csv", new, 0.001)
    )
    assert 1 == result.exit_code
    assert "1 row(s) differ, first line 4 repeat 3: 10 -> 11" in result.markdown()


def test_malformed_results_are_one_line(tmp_path: Path) -> None:
    """A short row, nodes=abc, a missing solve_s column: one line naming it, exit 2."""
    good = write_run(tmp_path / "good.csv", frame(base_times(5), [10] * 5), 0.001)
    lines = good.read_text().splitlines()
    header = lines[0].split(",")
    bad_nodes = lines[2].split(",")
    bad_nodes[header.index("nodes")] = "abc"
    cases = {
        "short.csv": [*lines[:2], "d.txt,3,p2,mrv", *lines[4:]],
        "nodes.csv": [lines[0], lines[1], ",".join(bad_nodes)],
        "nosolve.csv": [
            ",".join(c for i, c in enumerate(line.split(",")) if i != header.index("solve_s"))
            for line in lines
        ],
    }
    expected = {
        "short.csv": ":3: 4 field(s), the header has",
        "nodes.csv": ":3: nodes is 'abc', not a number",
        "nosolve.csv": ": not a harness results CSV (no column solve_s)",
    }
    for name, text in cases.items():
        (tmp_path / name).write_text("\n".join(text) + "\n")
        result = check(good, tmp_path / name)
        assert (2, 1) == (result.exit_code, len(result.output.splitlines())), result.output
        assert f"{tmp_path / name}{expected[name]}" in result.output


def test_a_wrong_row_is_named_by_its_line_and_message() -> None:
    """The first WRONG row is named by its line, status and message; no message, no text."""
    times = base_times()
    new = frame(times, [10] * 40)
    new.loc[5, "status"] = "WRONG"
    new.loc[9, ["status", "message"]] = ["WRONG", "cell r1c1 is 3, not 4"]
    result = gate.compare(frame(times, [10] * 40), new)
    assert ["2 (line 6: WRONG)"] == [f.new for f in result.findings if f.check == "wrong/errors"]
    new.loc[5, "status"] = "SOLVED"
    result = gate.compare(frame(times, [10] * 40), new)
    said = "1 (line 10: WRONG cell r1c1 is 3, not 4)"
    assert [said] == [f.new for f in result.findings if f.check == "wrong/errors"]
