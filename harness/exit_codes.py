"""Every exit code of the ``harness`` command, named once.

``harness run`` and ``harness check`` use two different sets on purpose: ``run`` tells a
wrong answer (3) from a backend failure (4) and from bad input (2); ``check``, the CI gate,
keeps the three-way verdict its callers test (0 holds, 1 regression, 2 wrong answers or
errors), so a check that cannot even read its input also gives 2. The other commands
(``generate``, ``explain``, ``rate``, ``report``, ``plot``, ``table``, ``backends``,
``datasets``) give 0, 2 or 130.
"""

from __future__ import annotations

import signal
from enum import IntEnum


class RunExit(IntEnum):
    """``harness run`` (and every command but ``check``, for OK, USAGE and INTERRUPTED)."""

    OK = 0  # every answer was checked right (timeouts and UNSAT proofs are not errors)
    REGRESSION = 1  # the gate against --baseline found a regression
    USAGE = 2  # bad input or usage: unreadable file, bad lines, unknown backend, busy --out
    WRONG = 3  # at least one WRONG answer
    ERROR = 4  # a backend failed: ERROR or MEMOUT
    INTERRUPTED = 130  # Ctrl-C (128 + signal number for SIGTERM, SIGHUP)
    BROKEN_PIPE = 141  # stdout closed early (``| head``): 128 + SIGPIPE, as any Unix filter


class CheckExit(IntEnum):
    """``harness check`` and the gate after ``harness run --baseline``."""

    OK = 0  # the new run holds against the baseline
    REGRESSION = 1  # fewer answered, changed counters, a significant slowdown, a missing backend
    WRONG = 2  # WRONG, ERROR or MEMOUT rows; also a CSV it cannot read, or bad usage


def stopped_by(signum: int) -> int:
    """The exit code of a run stopped by signal ``signum``: 128 + its number, as shells do."""
    return 128 + signum


#: The exit-code table shown by ``harness run --help`` and copied into the README.
TABLE = f"""\
harness run:
  {RunExit.OK:<4} all answers right (timeouts and UNSAT proofs are not errors)
  {RunExit.REGRESSION:<4} a regression against --baseline
  {RunExit.USAGE:<4} bad input or usage: unreadable file, bad lines, unknown backend or
       option, a results CSV or --out it cannot use, an --out another run is writing
  {RunExit.WRONG:<4} a WRONG answer
  {RunExit.ERROR:<4} a backend ERROR or MEMOUT
  {RunExit.INTERRUPTED:<4} Ctrl-C ({stopped_by(signal.SIGTERM)} SIGTERM, \
{stopped_by(signal.SIGHUP)} SIGHUP): rows kept, --resume completes the run
harness check:
  {CheckExit.OK:<4} holds
  {CheckExit.REGRESSION:<4} a regression
  {CheckExit.WRONG:<4} wrong answers or errors, or a CSV or --out it cannot use
generate, explain, rate, report, plot, table, backends, datasets:
  {RunExit.OK:<4} done
  {RunExit.USAGE:<4} bad input or usage (rate: also an --out that exists, without --force)
every command: {RunExit.INTERRUPTED} on Ctrl-C while starting or reading, never a traceback;
  {RunExit.BROKEN_PIPE} when its stdout is closed early (| head), quietly;
  {RunExit.USAGE} with one line when an output cannot be written (a full disk);
  a stream closed from the start (>&-, 2>&-), or stderr closed while running: what would go
       there is dropped (a closed stdout is said on stderr), the work and the exit code are
       unchanged; - with stdin closed (<&-): one line, {RunExit.USAGE}"""
