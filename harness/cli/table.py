"""``harness table``: the summary table of results CSVs, as text, Markdown, CSV or JSON."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from backends.errors import SudokuError
from harness.cli.common import UserError, fit
from harness.cli.report import merge_option, results_argument

FORMATS = ("text", "markdown", "csv", "json")


@click.command()
@results_argument
@click.option(
    "--by",
    default=None,
    help="Group columns, comma-separated, from backend, dataset, size "
    "[default: backend,dataset, and size when a dataset mixes sizes].",
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("--wide", is_flag=True, help="Every column in one table (text, markdown, csv).")
@merge_option
def table(csvs: tuple[Path, ...], by: str | None, fmt: str, wide: bool, merge: bool) -> None:
    """Print the summary table of results CSVS, numbers in human form.

    Text and Markdown fit 100 columns (split in parts repeating the key columns) unless
    --wide; CSV keeps the key columns unless --wide; JSON has every column. With several
    CSVS, each is a run of its own (the run column names it) unless --merge. In CSV and
    JSON, solved, correct and puzzles are numbers; a CSV cell a spreadsheet would run as a
    formula gets a leading ' (as in results CSVs).
    """
    from harness.results import engine
    from harness.tables import render, stats

    groups = None
    if by is not None:
        groups = tuple(g.strip() for g in by.split(",") if g.strip())
        unknown = [g for g in groups if g not in ("backend", "dataset", "size")]
        if unknown or not groups:
            raise UserError(f"--by takes backend, dataset and size, not {by!r}")
    try:
        results = engine.read(csvs, SUMMARY_COLUMNS)
    except SudokuError as exc:
        raise UserError(str(exc)) from None
    with results:
        for path, count in zip(csvs, results.counts, strict=True):
            if not count:
                raise UserError(f"{path}: no result rows")
        summary = stats.summary(results.con, by=groups, merge=merge)
        for note in results.notes:
            click.echo(fit(f"note: {note}"), err=True)
    width = None if wide else render.WIDTH
    if fmt == "text":
        text = render.render(summary, width)
    elif fmt == "markdown":
        text = render.markdown(summary, width)
    elif fmt == "json":
        text = render.to_json(summary)
    else:
        text = render.to_csv(summary, keys_only=not wide, extra_keys=groups or ())
    click.echo(text)
    sys.stdout.flush()


#: The columns the summary reads of a results CSV.
SUMMARY_COLUMNS = ("dataset", "line", "backend", "repeat", "status", "size", "encode_s")
SUMMARY_COLUMNS += ("solve_s", "solve_cpu_s", "own_solve_s", "nodes", "guesses")
