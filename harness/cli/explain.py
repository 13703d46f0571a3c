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
    fit,
    load_records,
    out_option,
    quiet_option,
    timeout_option,
    write_file,
)


@click.command("explain", context_settings={"ignore_unknown_options": True})
@click.argument("puzzle")
@timeout_option(60.0, "Seconds before the solver gives up.")
def explain(puzzle: str, timeout: float) -> None:
    """Solve PUZZLE step by step, one line per deduction, guess or backtrack, then rate it.

    PUZZLE is a puzzle's text (any size), FILE:LINE for the puzzle that starts on line LINE
    of a file (counted as an editor does, comment lines included: the line column of a
    results or rating CSV), or - for the one puzzle on standard input (-:LINE for the one
    starting on that line).
    """
    from harness.puzzles import rating

    try:
        lines = rating.explain_lines(rating.load_puzzle(puzzle), time_limit=timeout)
    except SudokuError as exc:
        raise UserError(str(exc)) from None
    # The puzzle's line stays whole (to copy); the rating's is wrapped at 100 columns.
    click.echo("\n".join([*lines[:-1], fit(lines[-1])]))


@click.command("rate")
@click.argument("files", nargs=-1, required=True)
@out_option("CSV to write [default: results/<file stems>-rating.csv, -2, -3, ... if taken].")
@timeout_option(60.0, "Seconds per puzzle; a puzzle not rated in time is 'unrated'.")
@click.option("--skip-invalid", is_flag=True, help="Rate the good lines, skip the bad ones.")
@click.option("--force", is_flag=True, help="Replace --out when it exists.")
@quiet_option()
def rate(
    files: tuple[str, ...],
    out: Path | None,
    timeout: float,
    skip_invalid: bool,
    force: bool,
    quiet: bool,
) -> None:
    """Rate the difficulty of every puzzle in FILES: a CSV and a tier count table.

    A text a spreadsheet would run as a formula (a dataset named =...) gets a leading '
    in the CSV, as in results CSVs.
    """
    from harness.puzzles import rating
    from harness.results import escape_cell

    if out is not None and out.exists() and not force:  # as `harness run`: never overwrite
        raise UserError(f"{out} exists; choose another --out, or pass --force to replace it")
    path = out or _free_name(RESULTS_DIR / f"{file_stems(files)}-rating.csv")
    records, _bad = load_records(files, skip_invalid, 20)
    with click.progressbar(
        length=len(records), label="rating", file=sys.stderr, show_pos=True, hidden=quiet
    ) as bar:
        rows = rating.rate_records(records, time_limit=timeout, progress=bar.update)
    cells = [{k: escape_cell(v) if isinstance(v, str) else v for k, v in r.items()} for r in rows]
    path.parent.mkdir(parents=True, exist_ok=True)
    write_file(path, lambda p: rating.write_csv(cells, p))
    click.echo(rating.tier_table(rows))
    click.echo(f"\nrows: {path}")


def _free_name(path: Path) -> Path:
    """``path``, or ``path`` with -2, -3, ... before its suffix: the first that is free."""
    free, n = path, 1
    while free.exists():
        n += 1
        free = path.with_name(f"{path.stem}-{n}{path.suffix}")
    return free
