"""``harness report`` and ``harness plot``: draw results CSVs (matplotlib)."""

from __future__ import annotations

from pathlib import Path

import click

from backends.errors import SudokuError
from harness.cli.common import UserError, gate_options, given_once, write_file

PLOT_SUFFIXES = (".svg", ".png", ".pdf")


def _pair(value: str | None) -> tuple[str, str] | None:
    if value is None:
        return None
    names = [v.strip() for v in value.split(",")]
    if len(names) != 2 or not all(names):
        raise UserError(f"--pair takes two backends as A,B, not {value!r}")
    return names[0], names[1]


def _need_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401 (only to know it is there)
    except ImportError:
        raise UserError("plots need matplotlib: pip install 'sudoku-harness[report]'") from None


def _check_metadata(csvs) -> None:
    """Refuse, in one line, a ``.meta.json`` beside one of ``csvs`` that cannot be used."""
    from harness.results.metadata import read_meta

    for path in csvs:
        read_meta(path)


results_argument = click.argument(
    "csvs", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
merge_option = click.option(
    "--merge",
    is_flag=True,
    help="Pool the rows of every CSV as one run (by default each CSV stays a run of its own: "
    "a run column in a table, a backend labelled with its file in a plot).",
)
pair_option = click.option(
    "--pair",
    multiple=True,
    callback=given_once,
    help="Two backends A,B for the scatter plot [default: the two best].",
)
time_option = click.option(
    "--time",
    "time",
    type=click.Choice(["solve", "own"]),
    default="solve",
    show_default=True,
    help="The cactus plot's time: our solve time, or the solver's own clock (own_solve_s, "
    "for backends that report one).",
)


@click.command()
@results_argument
@click.option(
    "-o",
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("report.html"),
    show_default=True,
    help="The HTML file to write.",
)
@pair_option
@click.option(
    "--baseline",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Add the gate's verdict on each CSV against this one (as 'harness check' gives it).",
)
@gate_options("With --baseline: ")
@time_option
@merge_option
def report(
    csvs: tuple[Path, ...],
    out: Path,
    pair: str | None,
    baseline: Path | None,
    only_common: bool,
    ignore_time: bool,
    compare_time_anyway: bool,
    time: str,
    merge: bool,
) -> None:
    """Write one self-contained HTML page (plots, tables, provenance) for results CSVS.

    It works offline: inline SVG and no network reference.
    """
    _need_matplotlib()
    from harness.report import ReportError, build

    try:
        _check_metadata([*csvs, *([baseline] if baseline else [])])
        text = build(
            csvs, _pair(pair), baseline, time, merge, only_common, ignore_time, compare_time_anyway
        )
    except (SudokuError, ReportError) as exc:
        raise UserError(str(exc)) from None
    write_file(out, lambda p: p.write_text(text, encoding="utf-8"))
    click.echo(f"report: {out}")


@click.command()
@click.argument("kind", type=click.Choice(["cactus", "scatter", "effort"]))
@results_argument
@click.option(
    "-o",
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="The file to write; its suffix picks the format (.svg, .png, .pdf).",
)
@pair_option
@click.option("--dataset", default=None, help="Dataset to draw, by file name [default: the first].")
@time_option
@merge_option
def plot(
    kind: str,
    csvs: tuple[Path, ...],
    out: Path,
    pair: str | None,
    dataset: str | None,
    time: str,
    merge: bool,
) -> None:
    """Draw one plot of results CSVS: cactus, scatter (two backends) or effort."""
    if out.suffix.lower() not in PLOT_SUFFIXES:
        raise UserError(f"{out}: the suffix must be one of {', '.join(PLOT_SUFFIXES)}")
    _need_matplotlib()
    from harness.report import ReportError, check_pair, data, plots

    try:
        _check_metadata(csvs)
        runs = data.load_runs(csvs, merge)
    except SudokuError as exc:
        raise UserError(str(exc)) from None
    with runs:
        try:
            check_pair(runs, _pair(pair))
        except ReportError as exc:
            raise UserError(str(exc)) from None
        figure = _figure(kind, runs, _pair(pair), dataset, time)
    write_file(out, lambda p: plots.save(figure, p))  # the temporary file keeps the suffix
    click.echo(f"{kind}: {out}")


def _figure(kind: str, runs, pair: tuple[str, str] | None, dataset: str | None, time: str):
    """The ``kind`` plot of one dataset of ``runs`` (``dataset``, else the first)."""
    from harness.report import data, plots, thin

    choices = data.groups(runs)
    titles = [g.title for g in choices]
    if dataset is not None and dataset not in titles:
        raise UserError(f"--dataset: no {dataset!r} in the results; they hold {', '.join(titles)}")
    group = next((g for g in choices if g.title == dataset), choices[0])
    title = group.title
    if dataset is None and len(choices) > 1:
        click.echo(f"note: drawing {title}; --dataset picks one of {', '.join(titles)}", err=True)
    palette = plots.colours(data.names(runs, ran=True))
    frame = data.puzzles(runs, group)
    if kind == "cactus":
        points = data.cactus(frame, data.ranking(runs, group), data.TIMES[time])
        if not points:
            raise UserError(f"no backend in {title} reports its own clock (own_solve_s)")
        clock = data.CLOCKS[time]
        return plots.cactus(points, runs.timeout, f"{title}: cactus", palette, clock)
    if kind == "effort":
        effort = data.effort(frame)
        dense = thin.dense(sum(len(rows) for rows in effort.values()))
        return (plots.effort_density if dense else plots.effort)(effort, title, palette)
    chosen = pair or data.default_pair(runs, group)
    if chosen is None:
        raise UserError(f"a scatter plot needs two backends; {title} has fewer")
    points = data.scatter(frame, *chosen, runs.timeout)
    return plots.scatter(points, *chosen, runs.timeout, f"{title}: {chosen[0]} vs {chosen[1]}")
