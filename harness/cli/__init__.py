"""The ``harness`` command line: a thin, typed layer over the library.

Exit codes are named once, in :mod:`harness.exit_codes` (``harness run --help`` shows them).
"""

from __future__ import annotations

import click

from harness.cli.check import check
from harness.cli.common import (
    EXIT_BROKEN_PIPE,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_REGRESSION,
    EXIT_USAGE,
    EXIT_WRONG,
    HarnessGroup,
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


@click.group(
    cls=HarnessGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(package_name="sudoku-harness")
def main() -> None:
    """Compare Sudoku solvers: run them over puzzle files, check and time every answer."""


for command in (run, check, list_backends, generate, explain, rate, datasets, report, plot, table):
    main.add_command(command)
