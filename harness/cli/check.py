"""``harness check``: gate a new results CSV against a baseline."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from backends.errors import SudokuError
from harness.cli.common import (
    WIDTH,
    UserError,
    fit,
    gate_options,
    given_once,
    out_option,
    write_file,
)
from harness.exit_codes import CheckExit


@click.command()
@click.argument("baseline", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("new", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=False)
@click.option(
    "--tolerance",
    type=click.FloatRange(min=0),
    default=0.0,
    show_default=True,
    help="Relative change allowed in deterministic counters (0 = exact).",
)
@click.option(
    "--time-ratio",
    type=click.FloatRange(min=1),
    default=None,
    help="A median slowdown must exceed this factor to count (default: 1.25 against a "
    "baseline, 1.1 for pairs of one run)...",
)
@click.option(
    "--alpha",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.01,
    show_default=True,
    help="...and be significant at this level (one-sided Wilcoxon signed-rank).",
)
@click.option(
    "--pair",
    metavar="OLD,NEW",
    multiple=True,
    callback=given_once,
    help="Judge two backends of the one run BASELINE (new against old, puzzle by puzzle), "
    "one pair a check; a run made with --against needs no --pair.",
)
@gate_options()
@out_option("Also write the Markdown table here (for a pull-request comment).")
def check(
    baseline: Path,
    new: Path | None,
    tolerance: float,
    time_ratio: float | None,
    alpha: float,
    ignore_time: bool,
    pair: str | None,
    compare_time_anyway: bool,
    only_common: bool,
    out: Path | None,
) -> None:
    """Gate NEW against BASELINE: exit 0 holds, 1 regression, 2 wrong answers or errors, an
    INCOMPLETE new run (stopped early: the verdict says how to complete it), or a CSV it
    cannot read. Time is judged on CPU time where the solver runs in the worker, else on its
    own clock or wall time, each run's times divided by its calibration; under a load one
    run had (wall/CPU moved), a wall-time finding is INCONCLUSIVE. When the machines
    differ, only answers and counters are judged. An incomplete BASELINE is judged on the
    puzzles both runs reached, and said. With one CSV: its pairs, old against new (a run
    made with --against, or --pair OLD,NEW)."""
    from harness import gate
    from harness.results.metadata import read_meta

    try:
        for path in (baseline, new):
            if path is not None:
                read_meta(path)  # a .meta.json the gate cannot use is one line, as a bad CSV
        if new is None or pair is not None:
            verdict = _paired(baseline, new, pair, tolerance, time_ratio, alpha, ignore_time)
        else:
            verdict = gate.check_files(
                baseline,
                new,
                tolerance,
                time_ratio or 1.25,
                alpha,
                compare_time=not ignore_time,
                compare_time_anyway=compare_time_anyway,
                only_common=only_common,
            )
    except SudokuError as exc:  # names the file (and line) and what is wrong with it
        raise UserError(str(exc), CheckExit.WRONG) from None
    except (KeyError, ValueError, OSError) as exc:
        raise UserError(f"cannot compare {baseline} and {new}: {exc}", CheckExit.WRONG) from None
    text = verdict.markdown()
    click.echo(fit_markdown(text))
    if out is not None:
        try:
            write_file(out, lambda p: p.write_text(text + "\n", encoding="utf-8"))
        except UserError as error:
            raise UserError(error.message, CheckExit.WRONG) from None
    sys.exit(verdict.exit_code)


def _paired(
    run: Path,
    extra: Path | None,
    pair: str | None,
    tolerance: float,
    time_ratio: float | None,
    alpha: float,
    ignore_time: bool,
):
    """The paired verdict of one run (:mod:`harness.gate.paired`)."""
    from harness.gate import paired

    if extra is not None:
        raise UserError(f"--pair judges one run; give {run} alone", CheckExit.WRONG)
    ratio = paired.PAIRED_TIME_RATIO if time_ratio is None else time_ratio
    return paired.check_file(run, pair, tolerance, ratio, alpha, compare_time=not ignore_time)


def fit_markdown(text: str, width: int = WIDTH) -> str:
    """The verdict's Markdown for a terminal: a table row wider than ``width`` has its
    longest cells wrapped inside the row (each on lines of its own width, the row's other
    cells padded), so every value stays in its row; other long lines are wrapped
    (:func:`harness.cli.common.fit`)."""
    lines = []
    for line in text.splitlines():
        table_row = line.startswith("| ") and line.endswith(" |") and len(line) > width
        lines.extend(_wrapped_row(line[2:-2].split(" | "), width) if table_row else [line])
    return fit("\n".join(lines), width)


#: No cell of a wrapped row is made narrower than this.
NARROWEST = 6


def _wrapped_row(cells: list[str], width: int) -> list[str]:
    """A table row as lines of at most ``width`` columns: the widest cells capped at one
    width (the largest that fits), their text wrapped on to the lines below."""
    import textwrap

    room = width - 3 * len(cells) - 1
    cap = max(len(c) for c in cells)
    while cap > NARROWEST and sum(min(len(c), cap) for c in cells) > room:
        cap -= 1
    columns = [
        textwrap.wrap(c, max(1, min(len(c), cap)), break_on_hyphens=False) or [""] for c in cells
    ]
    widths = [max(map(len, column)) for column in columns]
    depth = max(map(len, columns))
    return [
        "| "
        + " | ".join(
            (column[i] if i < len(column) else "").ljust(w)
            for column, w in zip(columns, widths, strict=True)
        )
        + " |"
        for i in range(depth)
    ]
