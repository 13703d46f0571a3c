"""``harness history``: per-commit trends of results, runs over many commits, bisection and
the trends page."""

from __future__ import annotations

from pathlib import Path

import click

from backends.errors import SudokuError
from harness.cli.common import UserError

#: The ratio a time step needs (the paired gate's) and the p-value below which it counts.
TIME_RATIO, ALPHA = 1.10, 0.01


class HistoryGroup(click.Group):
    """``harness history [PATHS...]`` shows the history; ``run``, ``find`` and ``report``
    are subcommands. Arguments that do not start with one go to ``show``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("-h", "--help")):
            args = ["show", *args]
        return super().parse_args(ctx, args)


def _paths(paths: tuple[Path, ...]) -> list[Path]:
    return list(paths) or [Path("results")]


paths_argument = click.argument("paths", nargs=-1, type=click.Path(path_type=Path))


def step_options(function):
    """--time-ratio and --alpha: what a time step needs."""
    function = click.option(
        "--alpha",
        type=click.FloatRange(0, 1, min_open=True, max_open=True),
        default=ALPHA,
        show_default=True,
        help="A time step needs its one-sided Wilcoxon p-value below this.",
    )(function)
    return click.option(
        "--time-ratio",
        type=click.FloatRange(min=1, min_open=True),
        default=TIME_RATIO,
        show_default=True,
        help="A time step needs the median per-puzzle ratio above this (or below its inverse).",
    )(function)


@click.group(cls=HistoryGroup)
def history() -> None:
    """How each backend's time and search effort moved from commit to commit.

    \b
      harness history [PATHS...]              trends and steps of the runs in PATHS
      harness history run A..B -b SPEC FILES  one run measuring every commit of A..B
      harness history find GOOD BAD -b SPEC FILES  the first slower commit, bisected
      harness history report -o trends.html   the trends as one HTML page

    PATHS default to results/ (folders are searched for CSVs with a .meta.json).
    """


@history.command("show")
@paths_argument
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("text", "markdown", "csv", "json")),
    default="text",
    show_default=True,
)
@click.option(
    "-b", "--backend", "backends", multiple=True, help="Only these backends (repeatable)."
)
@step_options
def show(
    paths: tuple[Path, ...], fmt: str, backends: tuple[str, ...], time_ratio: float, alpha: float
) -> None:
    """Trends of the runs in PATHS [default: results/]: for each machine class, backend
    and dataset, one row per commit (median time on the clock that judges the backend, its
    interquartile range, total nodes, puzzles answered), and the steps between neighbouring
    commits: a significant paired time change, or any change of a deterministic counter.
    """
    from harness.history import render, trends

    try:
        found = trends.read(_paths(paths), time_ratio, alpha, backends)
    except SudokuError as exc:
        raise UserError(str(exc)) from None
    click.echo(render.formatted(found, fmt))
