"""The ``harness`` command line: a thin, typed layer over the library.

Exit codes (``harness run``):

==  ==========================================================================
0   every answer was checked right (timeouts and UNSAT proofs are not errors)
1   a regression against ``--baseline`` (see ``harness check``)
2   bad input or usage: unreadable file, bad puzzle lines, unknown backend or option
3   at least one WRONG answer (checker refused it, or another backend refuted it)
4   a backend failed: ERROR (exception, dead worker) or MEMOUT
130 interrupted by Ctrl-C (143 SIGTERM, 129 SIGHUP): rows kept, workers stopped; --resume
141 stdout closed early (``harness run ... | head``): quietly, the run itself completed
==  ==========================================================================
"""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from harness.cli.check import check
from harness.cli.common import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_REGRESSION,
    EXIT_USAGE,
    EXIT_WRONG,
)
from harness.cli.explain import explain, rate
from harness.cli.generate import generate
from harness.cli.info import datasets, list_backends
from harness.cli.report import plot, report, table
from harness.cli.run import run

__all__ = [
    "EXIT_BROKEN_PIPE",
    "EXIT_ERROR",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_REGRESSION",
    "EXIT_USAGE",
    "EXIT_WRONG",
    "main",
]


#: Exit code when stdout is a pipe closed early: 128 + SIGPIPE, as for any Unix filter.
EXIT_BROKEN_PIPE = 141


class _Harness(click.Group):
    """The command group; a closed stdout (``| head``) ends a command quietly with 141."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            try:
                return super().invoke(ctx)
            finally:  # before exit, so a broken pipe is seen here, not at shutdown
                sys.stdout.flush()
        except BrokenPipeError:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more
            sys.exit(EXIT_BROKEN_PIPE)


@click.group(cls=_Harness, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sudoku-harness")
def main() -> None:
    """Compare Sudoku solvers: run them over puzzle files, check and time every answer."""


for command in (run, check, list_backends, generate, explain, rate, datasets, report, plot, table):
    main.add_command(command)
