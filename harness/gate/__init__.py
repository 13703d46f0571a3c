"""The regression gate: does a new run hold against a baseline?

- :mod:`.baseline`: two results CSVs compared, backend x dataset: answers, counters, time;
- :mod:`.paired`: two backends of one run, old against new (``harness run --against``,
  ``harness check --pair``).

Called by ``harness check``, by ``harness run --baseline`` and by the report's baseline
section. Its verdicts' exit codes are :class:`harness.exit_codes.CheckExit`.
"""

from __future__ import annotations

from harness.gate.baseline import (
    Finding,
    GateResult,
    check_files,
    compare,
    counter_columns,
    deterministic_in,
    deterministic_specs,
    judge,
    p_value,
    prepare,
    read,
    same_dataset_names,
    time_judgement,
)

__all__ = [
    "Finding",
    "GateResult",
    "check_files",
    "compare",
    "counter_columns",
    "deterministic_in",
    "deterministic_specs",
    "judge",
    "p_value",
    "prepare",
    "read",
    "same_dataset_names",
    "time_judgement",
]
