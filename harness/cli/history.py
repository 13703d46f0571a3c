"""``harness history``: per-commit trends of results, runs over many commits, bisection and
the trends page."""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from backends.errors import SudokuError
from harness.cli.common import UserError, fit, out_option

if TYPE_CHECKING:
    from harness.run.config import RunConfig

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


def measure_options(function):
    """The options of a run that measures commits: those of ``harness run``."""
    from harness.cli.common import jobs_option, quiet_option, timeout_option
    from harness.run.config import DEFAULT_TIMEOUT_S

    for option in reversed(
        [
            click.argument("files", nargs=-1, required=True),
            click.option(
                "-b",
                "--backend",
                "backends",
                multiple=True,
                default=("mrv",),
                show_default=True,
                help="Backend spec, repeatable: each runs once per commit, as SPEC@<sha>.",
            ),
            timeout_option(DEFAULT_TIMEOUT_S, "Seconds per solve (encode + solve)."),
            click.option(
                "--repeat",
                type=click.IntRange(min=1),
                default=1,
                show_default=True,
                help="Timed solves per puzzle, commit and backend (after a warm-up when above 1).",
            ),
            jobs_option("Worker processes in parallel."),
            click.option("--seed", type=int, default=0, show_default=True, help="Seeds the order."),
            quiet_option(),
        ]
    ):
        function = option(function)
    return function


@dataclasses.dataclass(frozen=True)
class Measuring:
    """What a run over commits measures, as the command line gave it."""

    files: list[str]
    backends: tuple[str, ...]
    timeout: float
    repeat: int
    jobs: int
    seed: int
    quiet: bool

    def config(self, out: Path) -> RunConfig:
        """The run's settings before the commits' twins replace its backends; an
        unavailable backend or an --out the runner refuses is one line."""
        from harness.run import runner

        try:
            choices = runner.resolve_backends(self.backends)
        except SudokuError as exc:
            raise UserError(str(exc)) from None
        for choice in choices:
            if choice.unavailable:
                raise UserError(f"backend {choice.spec} is unavailable: {choice.unavailable}")
        config = runner.RunConfig(
            backends=choices,
            out=out,
            timeout=self.timeout,
            repeat=self.repeat,
            jobs=self.jobs,
            seed=self.seed,
            datasets=self.files,
        )
        try:
            runner.validate(config)
        except SudokuError as exc:
            raise UserError(str(exc)) from None
        return config

    def run(self, repo: Path, commits: list, out: Path) -> Path:
        """Measure ``commits`` in one interleaved run writing ``out``; its CSV's path."""
        from harness.cli.common import interrupted_code, stop_signals
        from harness.cli.progress import Progress
        from harness.cli.run import scan_puzzles
        from harness.history import measure
        from harness.puzzles.readers.files import PuzzleFiles
        from harness.run import runner

        config = self.config(out)
        try:
            config = measure.configure(config, repo, commits)
        except SudokuError as exc:
            raise UserError(str(exc)) from None
        with PuzzleFiles(config.datasets) as puzzles:
            scan_puzzles(puzzles, False, 20)
            total = runner.total_steps(sum(puzzles.counts.values()), config)
            try:
                with stop_signals(), Progress(total, quiet=self.quiet) as bar:
                    result = runner.run(puzzles, config, progress=bar)
            except SudokuError as exc:
                raise UserError(str(exc)) from None
            except OSError as exc:
                raise UserError(f"cannot write {exc.filename or out}: {exc.strerror}") from None
            except KeyboardInterrupt as stop:
                click.echo(f"\ninterrupted; the rows so far are in {out}", err=True)
                sys.exit(interrupted_code(stop))
        if result.results is not None:
            result.results.close()
        return result.csv_path


def _measuring(files, backends, timeout, repeat, jobs, seed, quiet) -> Measuring:
    from harness.cli.common import distinct_files

    return Measuring(distinct_files(files), backends, timeout, repeat, jobs, seed, quiet)


def _history_out(files: list[str], name: str | None = None) -> Path:
    """``results/history/<file stems>-<time>.csv`` (or a folder of that name)."""
    from harness.cli.common import RESULTS_DIR, default_out

    stem = default_out(files).stem if name is None else name
    return RESULTS_DIR / "history" / (stem + (".csv" if name is None else ""))


@history.command("run")
@click.argument("revs")
@measure_options
@click.option(
    "--steps",
    type=click.IntRange(min=1),
    default=None,
    help="At most N commits of REVS, evenly spaced (the first and the last kept).",
)
@out_option("The CSV to write [default: results/history/<file stems>-<time>.csv].")
def run_commits(
    revs: str,
    files: tuple[str, ...],
    backends: tuple[str, ...],
    timeout: float,
    repeat: int,
    jobs: int,
    seed: int,
    quiet: bool,
    steps: int | None,
    out: Path | None,
) -> None:
    """Measure every commit of REVS in one run over puzzle FILES.

    REVS is a range A..B (A and each commit after it up to B) or a list A,B,C. Each
    backend runs once per commit, as SPEC@<sha>, from the commit's tree (checked out once
    in the cache that 'harness run --against' keeps), every commit interleaved puzzle by
    puzzle in an order shuffled with --seed, so load falls on all of them alike. The CSV
    and its .meta.json are what 'harness history' reads; the history of this run is printed.
    """
    from harness.history import git, render, trends

    measuring = _measuring(files, backends, timeout, repeat, jobs, seed, quiet)
    try:
        repo = git.repository()
        commits = git.commits(repo, git.spaced(git.revisions(repo, revs), steps))
    except SudokuError as exc:
        raise UserError(str(exc)) from None
    out = out or _history_out(measuring.files)
    out.parent.mkdir(parents=True, exist_ok=True)
    csv = measuring.run(repo, commits, out)
    try:
        found = trends.read([csv])
    except SudokuError as exc:
        raise UserError(str(exc)) from None
    click.echo(render.text(found))
    click.echo(f"\nrows: {csv}")


@history.command("find")
@click.argument("good")
@click.argument("bad")
@measure_options
@step_options
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("text", "json")),
    default="text",
    show_default=True,
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The folder for each step's run [default: results/history/find-<time>/].",
)
def find(
    good: str,
    bad: str,
    files: tuple[str, ...],
    backends: tuple[str, ...],
    timeout: float,
    repeat: int,
    jobs: int,
    seed: int,
    quiet: bool,
    time_ratio: float,
    alpha: float,
    fmt: str,
    out: Path | None,
) -> None:
    """Bisect for the first commit after GOOD, up to BAD, where a backend became slower or
    its counters changed.

    Each step measures the middle commit against the last one known good, the two
    interleaved puzzle by puzzle in one run (kept in --out), judged as 'harness history'
    judges steps. Prints each step's verdict and the commit. Exit 0 when found, 1 when no
    step lies between GOOD and BAD, 2 on bad input.
    """
    import json

    from harness.history import bisect, git, trends

    measuring = _measuring(files, backends, timeout, repeat, jobs, seed, quiet)
    try:
        repo = git.repository()
        first, last = git.resolve(repo, good), git.resolve(repo, bad)
        if first == last:
            raise UserError(f"GOOD and BAD are the same commit ({first[:10]})")
        candidates = git.commits(repo, git.ancestry(repo, first, last))
        known = git.commits(repo, [first])[0]
    except SudokuError as exc:
        raise UserError(str(exc)) from None
    folder = out or _history_out(measuring.files, f"find-{time.strftime('%Y%m%d-%H%M%S')}")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create {folder}: {exc.strerror}") from None

    def measure(old, new, index: int) -> bisect.Verdict:
        csv = measuring.run(repo, [old, new], folder / f"step-{index}.csv")
        try:
            found = trends.read([csv], time_ratio, alpha)
        except SudokuError as exc:
            raise UserError(str(exc)) from None
        verdict, steps = bisect.judge(found, old, new)
        return bisect.Verdict(new, old, verdict, steps, csv)

    def report(verdict: bisect.Verdict, index: int) -> None:
        if fmt == "text":
            click.echo(fit(verdict.line(index)))

    commit, verdicts = bisect.search(known, candidates, measure, report)
    if fmt == "json":
        document = {"commit": commit.sha if commit else None}
        document["steps"] = [v.record() for v in verdicts]
        click.echo(json.dumps(document, indent=1))
    elif commit is not None:
        click.echo(f"first bad commit: {commit.sha} {(commit.date or '')[:10]}")
        click.echo(fit(f"    {commit.subject or ''}"))
    else:
        click.echo(f"no step between {first[:10]} and {last[:10]}")
    sys.exit(0 if commit is not None else 1)


@history.command("report")
@paths_argument
@click.option(
    "-o",
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("trends.html"),
    show_default=True,
    help="The HTML file to write.",
)
@click.option(
    "-b", "--backend", "backends", multiple=True, help="Only these backends (repeatable)."
)
@step_options
def report(
    paths: tuple[Path, ...], out: Path, backends: tuple[str, ...], time_ratio: float, alpha: float
) -> None:
    """Write the trends of the runs in PATHS [default: results/] as one self-contained HTML
    page: a table of every step, newest first, and a trend plot per machine class, backend
    and dataset (median and interquartile range by commit, node counts below, steps
    marked). It works offline: inline SVG and no network reference.
    """
    from harness.cli.common import write_file
    from harness.cli.report import _need_matplotlib
    from harness.history import page, trends

    _need_matplotlib()
    try:
        found = trends.read(_paths(paths), time_ratio, alpha, backends)
    except SudokuError as exc:
        raise UserError(str(exc)) from None
    text = page.build(found, time_ratio, alpha)
    write_file(out, lambda p: p.write_text(text, encoding="utf-8"))
    click.echo(f"trends: {out}")
