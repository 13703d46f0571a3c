"""The ``harness`` command line: a thin, typed layer over the library.

Exit codes are named once, in :mod:`harness.exit_codes` (``harness run --help`` shows them).
"""

from __future__ import annotations

import importlib

import click

from harness.cli.common import HarnessGroup

__all__ = ["main"]


#: Every command: its name -> (module, function). A command's module is imported when the
#: command runs (or ``--help`` lists them all), so ``harness run`` does not pay for the
#: other commands' imports.
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("harness.cli.run", "run"),
    "check": ("harness.cli.check", "check"),
    "backends": ("harness.cli.info", "list_backends"),
    "generate": ("harness.cli.generate", "generate"),
    "history": ("harness.cli.history", "history"),
    "explain": ("harness.cli.explain", "explain"),
    "rate": ("harness.cli.explain", "rate"),
    "datasets": ("harness.cli.info", "datasets"),
    "report": ("harness.cli.report", "report"),
    "plot": ("harness.cli.report", "plot"),
    "table": ("harness.cli.table", "table"),
}


class LazyGroup(HarnessGroup):
    """The command group, importing each command's module only when it is needed."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            module, name = COMMANDS[cmd_name]
            self.add_command(getattr(importlib.import_module(module), name), cmd_name)
        return super().get_command(ctx, cmd_name)


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(package_name="sudoku-harness")
def main() -> None:
    """Compare Sudoku solvers: run them over puzzle files, check and time every answer."""
