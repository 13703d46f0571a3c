"""``harness explain`` and ``harness rate``: one puzzle step by step, and difficulty tiers."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from backends.errors import SudokuError
from harness.cli.common import (
    RESULTS_DIR,
    UserError,
    file_stems,
    load_records,
    out_option,
    quiet_option,
    timeout_option,
)


@click.command("explain", context_settings={"ignore_unknown_options": True})
@click.argument("puzzle")
@timeout_option(60.0, "Seconds before the solver gives up.")
def explain(puzzle: str, timeout: float) -> None:
    """Solve PUZZLE step by step, one line per deduction, guess or backtrack, then rate it.

    PUZZLE is a puzzle's text (any size), FILE:LINE for the puzzle at that line of a file,
    or - for the one puzzle on standard input (-:LINE for the one at that line).
    """
    from harness.puzzles import rating

    try:
        lines = rating.explain_lines(rating.load_puzzle(puzzle), time_limit=timeout)
    except SudokuError as exc:
        raise UserError(str(exc)) from None
    click.echo("\n".join(lines))


@click.command("rate")
@click.argument("files", nargs=-1, required=True)
@out_option("CSV to write [default: results/<file stems>-rating.csv].")
@timeout_option(60.0, "Seconds per puzzle; a puzzle not rated in time is 'unrated'.")
@click.option("--skip-invalid", is_flag=True, help="Rate the good lines, skip the bad ones.")
@quiet_option()
def rate(
    files: tuple[str, ...], out: Path | None, timeout: float, skip_invalid: bool, quiet: bool
) -> None:
    """Rate the difficulty of every puzzle in FILES: a CSV and a tier count table."""
    from harness.puzzles import rating

    path = out or RESULTS_DIR / f"{file_stems(files)}-rating.csv"
    if path.exists():  # as `harness run` does, never overwrite a file
        raise UserError(f"{path} exists; choose another --out")
    records, _bad = load_records(files, skip_invalid, 20)
    with click.progressbar(
        length=len(records), label="rating", file=sys.stderr, show_pos=True, hidden=quiet
    ) as bar:
        rows = rating.rate_records(records, time_limit=timeout, progress=bar.update)
    try:
        rating.write_csv(rows, path)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc}") from None
    click.echo(rating.tier_table(rows))
    click.echo(f"\nrows: {path}")
