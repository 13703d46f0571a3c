"""Whether two runs were measured in the same conditions, before their times are compared.

Each run records a probe timed in its workers through the run
(:mod:`harness.results.conditions`): a fixed workload of a few milliseconds, its wall time
(quartiles), the share of a CPU the worker had while it ran, how often it was time-sliced,
and the machine's run queue. Two runs' conditions differ when

- the probe was time-sliced (under :data:`~harness.results.conditions.SLICED_BELOW` of a
  CPU) in a share of one run's samples that differs by more than :data:`SLICED_GAP` from
  the other's (one run shared its CPUs with other work, the other did not), or in more than
  :data:`BUSY` of either run's samples: on a busy machine the load changes from one moment
  to the next, and the probe cannot match it between two runs within the noise that
  matters (a run against the old code in the same run, ``--against``, can); or
- the probe's median wall time, once divided by the calibration's ratio the gate already
  applies, moved by more than its noise: twice the standard error of the two medians
  (estimated from each run's interquartile range and sample count), at least
  :data:`MIN_SPREAD`.

Then a slowdown cannot be told from the load: the time verdict is INCONCLUSIVE, said in one
line with the reason, never REGRESSION; answers and counters are judged as always. Runs
that lack the record (older runs, too few samples) are compared as before.
"""

from __future__ import annotations

import math
from typing import Any

from harness.results.conditions import PROBE_WORKLOAD

#: Runs whose probes were time-sliced in shares of their samples this far apart differ.
SLICED_GAP = 0.25
#: A run whose probes were time-sliced in more than this share of its samples was busy.
BUSY = 0.5
#: The probe's median may move this much (relative) before it counts, whatever the noise.
MIN_SPREAD = 0.10
#: Fewer samples than this in a run: its conditions are not compared.
MIN_SAMPLES = 3
#: A time finding's check starts so (see :mod:`harness.gate.baseline`, rule 4).
TIME_CHECK = "median solve ms"


def recorded(meta: dict[str, Any] | None) -> dict[str, Any] | None:
    """A run's conditions when comparable: the probe recorded, with enough samples."""
    entry = (meta or {}).get("conditions")
    if not isinstance(entry, dict) or entry.get("workload") != PROBE_WORKLOAD:
        return None
    try:
        if int(entry["samples"]) < MIN_SAMPLES or float(entry["wall_ms"]["median"]) <= 0:
            return None
        float(entry["sliced"])
    except (KeyError, TypeError, ValueError):
        return None
    return entry


def _error(entry: dict[str, Any]) -> float:
    """The relative standard error of the probe's median wall time: its relative
    interquartile range over the square root of the sample count."""
    wall = entry["wall_ms"]
    spread = (float(wall["q3"]) - float(wall["q1"])) / float(wall["median"])
    return spread / math.sqrt(int(entry["samples"]))


def _queue(entry: dict[str, Any]) -> str:
    queue = entry.get("run_queue") or {}
    return f"{queue.get('median', '?')}"


def differ(old_meta: dict | None, new_meta: dict | None, scale: float = 1.0) -> str | None:
    """Why the two runs' conditions differ beyond their noise, or None (also when either
    run lacks them). ``scale`` is the new run's calibration over the baseline's."""
    old, new = recorded(old_meta), recorded(new_meta)
    if old is None or new is None:
        return None
    reasons = []
    sliced_old, sliced_new = float(old["sliced"]), float(new["sliced"])
    if abs(sliced_new - sliced_old) > SLICED_GAP or max(sliced_old, sliced_new) > BUSY:
        busy = "a busy machine: " if max(sliced_old, sliced_new) > BUSY else ""
        reasons.append(
            f"{busy}probe time-sliced in {sliced_old:.0%} -> {sliced_new:.0%} of samples"
        )
    m_old, m_new = float(old["wall_ms"]["median"]), float(new["wall_ms"]["median"])
    ratio = m_new / m_old / (scale if scale > 0 else 1.0)
    noise = max(MIN_SPREAD, 2 * math.hypot(_error(old), _error(new)))
    if abs(math.log(ratio)) > math.log1p(noise):
        calibrated = "" if scale == 1.0 else " calibrated"
        reasons.append(
            f"probe {m_old:.3g} -> {m_new:.3g} ms (x{ratio:.2f}{calibrated}, noise ±{noise:.0%})"
        )
    if not reasons:
        return None
    queue = f"run queue {_queue(old)} -> {_queue(new)} ({new.get('usable_cpus', '?')} CPUs)"
    return f"{'; '.join(reasons)}; {queue}"


def judge(result: Any, old_meta: dict | None, new_meta: dict | None, scale: float) -> None:
    """When the runs' conditions differ, every time finding of ``result`` (a
    :class:`~harness.gate.baseline.GateResult`) becomes INCONCLUSIVE, and the first note
    says why."""
    reason = differ(old_meta, new_meta, scale)
    if reason is None:
        return
    timed = [f for f in result.findings if f.check.startswith(TIME_CHECK)]
    for finding in timed:
        finding.verdict = "INCONCLUSIVE"
    if timed:
        result.notes.insert(0, f"time INCONCLUSIVE, conditions differ: {reason}")
