"""Run conditions: a probe timed in the workers through the run; the gate compares them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.exit_codes import CheckExit
from harness.gate import conditions as gate_conditions
from harness.results import conditions, provenance
from tests.test_gate import frame, write_run


def quiet(count: int = 20) -> list[tuple[float, float, int | None, float | None]]:
    """Samples of a quiet machine: 4.3 ms probes, all on the CPU, one task runnable."""
    return [(0.0043 + k * 1e-5, 0.0043, 1, 0.5) for k in range(count)]


def loaded(count: int = 20) -> list[tuple[float, float, int | None, float | None]]:
    """Samples under load: the same CPU time, twice the wall time, six tasks runnable."""
    return [(0.0086 + k * 2e-5, 0.0043, 6, 5.5) for k in range(count)]


def test_samples_parse_and_a_bad_line_is_skipped() -> None:
    """Lines 'wall cpu queue load' parse; '-' is unknown; a torn line is skipped."""
    text = "0.0043 0.0042 2 0.5\n0.0050 0.0049 - -\n0.00\n"
    assert [(0.0043, 0.0042, 2, 0.5), (0.005, 0.0049, None, None)] == conditions.parse(text)


def test_summary_of_loaded_samples() -> None:
    """Loaded samples: median 8.7 ms, half a CPU, every sample time-sliced, queue 6."""
    summary = conditions.summarize(loaded(3))
    expected = (8.62, 0.5, 1.0, {"median": 6, "max": 6})
    got = (
        summary["wall_ms"]["median"],
        round(summary["cpu_share"]["median"], 1),
        summary["sliced"],
        summary["run_queue"],
    )
    assert expected == got


def test_workers_of_a_run_record_samples(tmp_path: Path, fake_backends: dict) -> None:
    """A run's metadata holds its conditions: the probe sampled at least in the harness and a
    worker, the run queue known."""
    data = tmp_path / "p.txt"
    data.write_text(".234341221434321\n")
    out = tmp_path / "r.csv"
    result = CliRunner().invoke(main, ["run", "-q", "-b", "naive", "--out", str(out), str(data)])
    meta = provenance.read_meta(out)
    recorded = meta["conditions"]
    assert (0, conditions.PROBE_WORKLOAD, True) == (
        result.exit_code,
        recorded["workload"],
        recorded["samples"] >= 2 and recorded["run_queue"]["max"] >= 1,
    )


def test_a_forked_child_appends_to_the_run_s_samples() -> None:
    """What a process forked inside recording() samples is in the summary."""
    with conditions.recording() as summary:
        pid = os.fork()
        if pid == 0:  # the child: one sample, then out without running the test's cleanup
            conditions.sampler()(0.0)
            os._exit(0)
        os.waitpid(pid, 0)
        assert 2 == summary()["samples"]


def meta_with(samples: list) -> dict:
    return {"conditions": conditions.summarize(samples)}


def test_a_loaded_run_differs_from_a_quiet_one() -> None:
    """Quiet against loaded: the conditions differ, and the reason names the slicing."""
    reason = gate_conditions.differ(meta_with(quiet()), meta_with(loaded()))
    expected = "a busy machine: probe time-sliced in 0% -> 100% of samples"
    assert reason is not None and reason.startswith(expected)


def test_two_quiet_runs_do_not_differ() -> None:
    """Quiet against quiet: no difference."""
    assert None is gate_conditions.differ(meta_with(quiet()), meta_with(quiet(25)))


def test_a_quarter_of_samples_sliced_differs_and_a_few_do_not() -> None:
    """Against a quiet run: 40 % of samples time-sliced differ, 10 % do not."""

    def partly(share: float) -> list:
        count = int(20 * share)
        return loaded(20)[:count] + quiet(20)[count:]

    assert [True, False] == [
        gate_conditions.differ(meta_with(quiet()), meta_with(partly(s))) is not None
        for s in (0.4, 0.1)
    ]


def test_a_slower_probe_beyond_its_noise_differs() -> None:
    """Unsliced probes 1.5x slower (a slower clock): the probe's median differs."""
    slower = [(w * 1.5, c * 1.5, q, x) for w, c, q, x in quiet()]
    reason = gate_conditions.differ(meta_with(quiet()), meta_with(slower))
    assert reason is not None and reason.startswith("probe 4.39 -> 6.59 ms (x1.50")


def test_runs_without_enough_samples_are_not_compared() -> None:
    """A run with two samples, or none recorded: no verdict on conditions."""
    assert [None, None] == [
        gate_conditions.differ(meta_with(quiet(2)), meta_with(loaded())),
        gate_conditions.differ({}, meta_with(loaded())),
    ]


def with_conditions(path: Path, samples: list) -> None:
    meta_path = provenance.meta_path_for(path)
    meta = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps({**meta, **meta_with(samples)}))


@pytest.mark.parametrize(
    ("new_samples", "expected"),
    [
        (quiet(), (CheckExit.REGRESSION, "REGRESSION")),
        (loaded(), (CheckExit.OK, "INCONCLUSIVE")),
    ],
)
def test_a_slower_run_under_load_is_inconclusive(
    tmp_path: Path, new_samples: list, expected: tuple
) -> None:
    """Times 1.8x slower: a REGRESSION in the same conditions, INCONCLUSIVE (exit 0) when
    the new run was loaded and the baseline was not; the note says why, first."""
    times = [0.01 + k * 1e-4 for k in range(30)]
    old, new = tmp_path / "old.csv", tmp_path / "new.csv"
    write_run(old, frame(times, [10] * 30), 0.001)
    write_run(new, frame([t * 1.8 for t in times], [10] * 30), 0.001)
    with_conditions(old, quiet())
    with_conditions(new, new_samples)
    result = CliRunner().invoke(main, ["check", str(old), str(new)])
    verdict = next(v for v in ("REGRESSION", "INCONCLUSIVE") if f"**{v}**" in result.output)
    assert expected == (result.exit_code, verdict)
    if verdict == "INCONCLUSIVE":
        assert "**harness check: holds; time INCONCLUSIVE**\n\n- time INCONCLUSIVE" in result.output


def test_no_temporary_directory_records_nothing_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """TMPDIR unusable: recording yields an empty summary, and samples go nowhere."""
    monkeypatch.setattr(conditions.tempfile, "tempdir", str(tmp_path / "absent"))
    with conditions.recording() as summary:
        due = conditions.sampler()(0.0)
        assert (0, float("inf")) == (summary()["samples"], due)
