"""The ``harness`` command line: a thin, typed layer over the library.

Exit codes (``harness run``):

==  ==========================================================================
0   every answer was checked right (timeouts and UNSAT proofs are not errors)
1   a regression against ``--baseline`` (see ``harness check``)
2   bad input or usage: unreadable file, bad puzzle lines, unknown backend or option
3   at least one WRONG answer (checker refused it, or another backend refuted it)
4   a backend failed: ERROR (exception, dead worker) or MEMOUT
130 interrupted by Ctrl-C (143 SIGTERM, 129 SIGHUP): rows kept, workers stopped; --resume
==  ==========================================================================
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from backends import REGISTRY
from backends.base import Status
from backends.errors import SudokuError
from harness import generate as generate_lib
from harness import results, runner
from harness.readers import BadLine, PuzzleRecord, format_bad_lines, read_puzzles

EXIT_OK = 0
EXIT_REGRESSION = 1
EXIT_USAGE = 2
EXIT_WRONG = 3
EXIT_ERROR = 4
EXIT_INTERRUPTED = 130

RESULTS_DIR = Path("results")

F = TypeVar("F", bound=Callable[..., Any])

#: Signals that stop a run the way Ctrl-C does: workers killed, rows kept, exit 128 + signal.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Terminated(KeyboardInterrupt):
    """A stop signal other than SIGINT, raised in the main thread so the run ends cleanly."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _terminate(signum: int, frame: object) -> None:
    raise Terminated(signum)


# Options several commands share, each defined once.
def out_option(help: str) -> Callable[[F], F]:
    return click.option(
        "--out", type=click.Path(dir_okay=False, path_type=Path), default=None, help=help
    )


def timeout_option(default: float, help: str) -> Callable[[F], F]:
    return click.option(
        "--timeout",
        type=click.FloatRange(min=0, min_open=True),
        default=default,
        show_default=True,
        help=help,
    )


def jobs_option(help: str) -> Callable[[F], F]:
    return click.option(
        "-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True, help=help
    )


def quiet_option(help: str = "No progress bar.") -> Callable[[F], F]:
    return click.option("-q", "--quiet", is_flag=True, help=help)


class UserError(click.ClickException):
    """One clear line on stderr and a non-zero exit code."""

    def __init__(self, message: str, exit_code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.exit_code = exit_code

    def show(self, file: object = None) -> None:
        click.echo(f"harness: error: {self.format_message()}", err=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sudoku-harness")
def main() -> None:
    """Compare Sudoku solvers: run them over puzzle files, check and time every answer."""


def distinct_files(files: Sequence[str]) -> list[str]:
    """``files`` with any file named twice (even by another path) kept once, first name
    first: each puzzle is measured once per backend and repeat."""
    seen: dict[str, str] = {}
    for path in files:
        seen.setdefault(path if path == "-" else os.path.realpath(path), path)
    return list(seen.values())


def load_records(
    files: Sequence[str], skip_invalid: bool, max_bad: int
) -> tuple[list[PuzzleRecord], list[BadLine]]:
    """Read every file; bad lines stop the run unless ``skip_invalid``."""
    records: list[PuzzleRecord] = []
    bad: list[BadLine] = []
    for path in distinct_files(files):
        try:
            result = read_puzzles(path)
        except SudokuError as exc:
            raise UserError(str(exc)) from None
        records.extend(result.records)
        bad.extend(result.bad)
    if bad and not skip_invalid:
        click.echo(format_bad_lines(bad, limit=max_bad), err=True)
        raise UserError(
            f"{len(bad)} bad puzzle line(s); fix them or pass --skip-invalid to run the rest"
        )
    if bad:
        click.echo(f"skipping {len(bad)} bad line(s):", err=True)
        click.echo(format_bad_lines(bad, limit=max_bad), err=True)
    if not records:
        raise UserError(f"no puzzles found in {', '.join(files)}")
    return records, bad


def file_stems(files: Sequence[str]) -> str:
    """The input files' names without suffixes, joined by '+', for a default output name."""
    return "+".join(Path(f).name.split(".")[0] or "stdin" for f in files)[:80] or "stdin"


def default_out(files: Sequence[str]) -> Path:
    return RESULTS_DIR / f"{file_stems(files)}-{time.strftime('%Y%m%d-%H%M%S')}.csv"


def exit_code_for(statuses: Sequence[str]) -> int:
    present = set(statuses)
    if Status.WRONG.value in present:
        return EXIT_WRONG
    if present & {Status.ERROR.value, Status.MEMOUT.value}:
        return EXIT_ERROR
    return EXIT_OK


@main.command()
@click.argument("files", nargs=-1, required=True)
@click.option(
    "-b",
    "--backend",
    "backends",
    multiple=True,
    default=("mrv",),
    show_default=True,
    help="Backend spec, repeatable: NAME or NAME:opt=value,... ; 'all' = every backend.",
)
@timeout_option(
    runner.DEFAULT_TIMEOUT_S,
    "Seconds per solve (encode + solve); a later answer is TIMEOUT, and a backend that does "
    "not stop is killed 0.1 s + 10% (at most 0.5 s) after.",
)
@click.option(
    "--memory-limit",
    type=click.FloatRange(min=16),
    default=runner.DEFAULT_MEMORY_MIB,
    show_default=True,
    help="MiB of resident memory per worker; over it the solve is MEMOUT.",
)
@click.option(
    "--limit-solutions",
    type=click.IntRange(1, 2),
    default=1,
    show_default=True,
    help="1 = find one solution, 2 = also prove uniqueness.",
)
@click.option(
    "--repeat",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Timed solves per puzzle and backend, after one untimed warm-up when above 1.",
)
@jobs_option("Worker processes in parallel (recorded: it changes timings).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seeds the backend order.")
@out_option("The CSV to write [default: results/<file stems>-<time>.csv].")
@click.option("--resume", is_flag=True, help="Complete an interrupted run in --out.")
@click.option("--skip-invalid", is_flag=True, help="Run the good lines, record the bad ones.")
@click.option(
    "--max-bad-lines",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="Bad lines to list before '... and K more'.",
)
@click.option(
    "--baseline",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="After the run, gate it against this CSV as 'harness check' does.",
)
@click.option(
    "--by-tier",
    is_flag=True,
    help="Also print the table per difficulty tier (rates each puzzle with 'logic' first).",
)
@quiet_option()
def run(
    files: tuple[str, ...],
    backends: tuple[str, ...],
    timeout: float,
    memory_limit: float,
    limit_solutions: int,
    repeat: int,
    jobs: int,
    seed: int,
    out: Path | None,
    resume: bool,
    skip_invalid: bool,
    max_bad_lines: int,
    baseline: Path | None,
    by_tier: bool,
    quiet: bool,
) -> None:
    """Run backends over puzzle FILES (- for stdin); write a CSV and print a table."""
    try:
        choices = runner.resolve_backends(backends)
    except SudokuError as exc:
        raise UserError(str(exc)) from None
    for choice in choices:
        if choice.unavailable and "all" not in backends:
            raise UserError(f"backend {choice.spec} is unavailable: {choice.unavailable}")
        if choice.unavailable:
            click.echo(
                f"backend {choice.spec} is unavailable ({choice.unavailable}); "
                "recorded as UNAVAILABLE",
                err=True,
            )
    cores = os.cpu_count() or 1
    if jobs >= cores and not quiet:
        click.echo(
            f"note: --jobs {jobs} on {cores} core(s): workers share the CPUs with each other "
            "and with the harness, so times are higher than with fewer jobs (recorded per row)",
            err=True,
        )
    if resume and out is None:
        raise UserError("--resume needs --out naming the CSV to complete")
    if out is not None and out.exists() and not resume:
        raise UserError(f"{out} exists; pass --resume to complete it, or choose another --out")
    if baseline is not None:  # a baseline the gate cannot read fails now, not after the run
        try:
            results.require_columns(baseline, results.read_results(baseline)[0])
        except SudokuError as exc:
            raise UserError(str(exc)) from None
    records, bad = load_records(files, skip_invalid, max_bad_lines)
    config = runner.RunConfig(
        backends=choices,
        out=out or default_out(files),
        limit=limit_solutions,
        timeout=timeout,
        memory_limit_mib=memory_limit,
        repeat=repeat,
        jobs=jobs,
        seed=seed,
        resume=resume,
        skipped=bad,
        datasets=distinct_files(files),
    )
    total = runner.total_steps(records, config)
    previous = {signum: signal.signal(signum, _terminate) for signum in STOP_SIGNALS}
    try:
        with click.progressbar(
            length=total,
            label="solving",
            file=sys.stderr,
            show_pos=True,
            hidden=quiet,
        ) as bar:
            result = runner.run(
                records, config, progress=bar.update, background_imports=("harness.tables",)
            )
    except SudokuError as exc:  # a CSV that cannot be resumed: found before anything runs
        raise UserError(str(exc)) from None
    except OSError as exc:  # cannot write the CSV or its metadata (rows so far are kept)
        raise UserError(f"cannot write {exc.filename or config.out}: {exc.strerror}") from None
    except KeyboardInterrupt as stop:
        click.echo(
            f"\ninterrupted; the rows so far are in {config.out}; "
            f"complete it with --resume --out {config.out}",
            err=True,
        )
        sys.exit(128 + stop.signum if isinstance(stop, Terminated) else EXIT_INTERRUPTED)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    from harness import tables  # pandas loads only once the solving is done

    frame = tables.load(result.csv_path)
    click.echo(tables.render(tables.summary(frame)))
    native = tables.native_summary(frame)
    if not native.empty:
        click.echo("\nnative statistics (medians over answered puzzles):")
        click.echo(tables.render(native))
    if by_tier:
        from harness import rating

        tiers = rating.tiers_of(r.puzzle.to_string() for r in records)
        click.echo("\nby difficulty tier (harness rate):")
        click.echo(tables.render(tables.summary_by_tier(frame, tiers, rating.ALL_TIERS)))
    if result.resumed:
        click.echo(f"\nresumed: {result.resumed} row(s) were already in the CSV")
    if result.cross_checked:
        click.echo(f"cross-check: {result.cross_checked} claim(s) refuted by another backend")
    click.echo(f"\nrows: {result.csv_path}\nmetadata: {result.meta_path}")
    code = exit_code_for(list(frame["status"]))
    if baseline is not None:
        from harness import gate

        verdict = gate.check_files(baseline, result.csv_path)
        click.echo("\n" + verdict.markdown())
        if code == EXIT_OK and verdict.exit_code == gate.EXIT_REGRESSION:
            code = EXIT_REGRESSION
    # Nothing is left to collect: move every object out of the collector's sight, so that
    # interpreter shutdown skips its full collections (~0.1 s once pandas is loaded).
    gc.freeze()
    sys.exit(code)


@main.command("backends")
def list_backends() -> None:
    """List every backend, its options and defaults, and whether it can run here."""
    for name, cls in REGISTRY.items():
        reason = cls.available()
        state = "available" if reason is None else f"UNAVAILABLE: {reason}"
        kind = "deterministic" if cls.deterministic else "non-deterministic"
        click.echo(f"{name}  [{state}; {kind}; up to {cls.max_box**2}x{cls.max_box**2}]")
        click.echo(f"    {cls.summary}")
        for opt in cls.options:
            choices = f" ({'|'.join(opt.choices)})" if opt.choices else ""
            click.echo(f"    {opt.name}={opt.default}{choices}: {opt.help}")
        if cls.native_counters:
            click.echo(f"    native statistics: {', '.join(cls.native_counters)}")


@main.command()
@click.argument("baseline", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("new", type=click.Path(exists=True, dir_okay=False, path_type=Path))
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
    default=1.25,
    show_default=True,
    help="A median slowdown must exceed this factor to count...",
)
@click.option(
    "--alpha",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.01,
    show_default=True,
    help="...and be significant at this level (one-sided Wilcoxon signed-rank).",
)
@click.option(
    "--ignore-time",
    is_flag=True,
    help="Compare answers and counters only (runs made on different machines).",
)
@out_option("Also write the Markdown table here (for a pull-request comment).")
def check(
    baseline: Path,
    new: Path,
    tolerance: float,
    time_ratio: float,
    alpha: float,
    ignore_time: bool,
    out: Path | None,
) -> None:
    """Gate NEW against BASELINE: exit 0 holds, 1 regression, 2 wrong answers or errors."""
    from harness import gate

    try:
        verdict = gate.check_files(
            baseline, new, tolerance, time_ratio, alpha, compare_time=not ignore_time
        )
    except SudokuError as exc:  # names the file and what is wrong with it
        raise UserError(str(exc)) from None
    except (KeyError, ValueError, OSError) as exc:
        raise UserError(f"cannot compare {baseline} and {new}: {exc}") from None
    text = verdict.markdown()
    click.echo(text)
    if out is not None:
        out.write_text(text + "\n")
    sys.exit(verdict.exit_code)


# --- generate ---


@main.command("generate")
@click.option(
    "--size",
    type=click.Choice(["4", "9", "16", "25"]),
    default="9",
    show_default=True,
    help="Grid side.",
)
@click.option(
    "--count", type=click.IntRange(min=1), default=1, show_default=True, help="Puzzles to write."
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Seeds random.Random; same seed and options, same file.",
)
@click.option(
    "--pool",
    type=click.IntRange(min=1),
    default=None,
    help="Make this many candidates and keep the COUNT hardest by --backend (or --adversarial) "
    "nodes.",
)
@click.option(
    "--backend",
    default=generate_lib.DEFAULT_BACKEND,
    show_default=True,
    help="Backend spec whose nodes (limit=1) rank hardness.",
)
@click.option(
    "--require-guess",
    is_flag=True,
    help="Keep only puzzles that naked and hidden singles alone do not solve.",
)
@click.option(
    "--min-givens",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Stop carving at this many givens (0 = carve to a minimal puzzle).",
)
@click.option(
    "--check-backend",
    default=generate_lib.CHECK_BACKEND,
    show_default=True,
    help="Backend spec that proves uniqueness while carving (speed only).",
)
@click.option(
    "--symmetry",
    type=click.Choice(list(generate_lib.SYMMETRIES)),
    default="none",
    show_default=True,
    help="Remove clues in groups symmetric under: a half turn (rotational), a quarter turn, "
    "the vertical centre line (mirror), a diagonal, or all of them (dihedral).",
)
@click.option(
    "--difficulty",
    default=None,
    help="Keep only puzzles of this harness.rating tier: easy, medium, hard, expert or "
    "needs-guess.",
)
@click.option(
    "--adversarial",
    default=None,
    metavar="BACKEND",
    help="Hill-climb each puzzle to raise this backend's nodes (limit=1); they then rank.",
)
@click.option(
    "--iterations",
    type=click.IntRange(min=0),
    default=generate_lib.DEFAULT_ITERATIONS,
    show_default=True,
    help="Hill-climbing moves per puzzle with --adversarial.",
)
@jobs_option("Worker processes; the output does not depend on it.")
@out_option("Write here instead of stdout.")
@quiet_option("No progress on stderr.")
def generate(
    size: str,
    count: int,
    seed: int,
    pool: int | None,
    backend: str,
    require_guess: bool,
    min_givens: int,
    check_backend: str,
    symmetry: str,
    difficulty: str | None,
    adversarial: str | None,
    iterations: int,
    jobs: int,
    out: Path | None,
    quiet: bool,
) -> None:
    """Generate minimal unique-solution puzzles; the header says how to make the file again."""
    options = generate_lib.GenerateOptions(
        size=int(size),
        count=count,
        seed=seed,
        pool=pool,
        backend=backend,
        require_guess=require_guess,
        check_backend=check_backend,
        min_givens=min_givens,
        symmetry=symmetry,
        difficulty=difficulty,
        adversarial=adversarial,
        iterations=iterations,
    )
    progress = None if quiet else (lambda message: click.echo(message, err=True))
    try:
        text = generate_lib.write(generate_lib.generate(options, jobs, progress), out)
    except SudokuError as exc:
        raise UserError(str(exc)) from None
    if out is None:
        click.echo(text, nl=False)


# --- explain and rate ---


@main.command("explain")
@click.argument("puzzle")
@timeout_option(60.0, "Seconds before the solver gives up.")
def explain(puzzle: str, timeout: float) -> None:
    """Solve PUZZLE step by step, one line per deduction, guess or backtrack, then rate it.

    PUZZLE is a one-line puzzle text, or FILE:LINE for the puzzle at that line of a file.
    """
    from harness import rating

    try:
        lines = rating.explain_lines(rating.load_puzzle(puzzle), time_limit=timeout)
    except SudokuError as exc:
        raise UserError(str(exc)) from None
    click.echo("\n".join(lines))


@main.command("rate")
@click.argument("files", nargs=-1, required=True)
@out_option("CSV to write [default: results/<file stems>-rating.csv].")
@timeout_option(60.0, "Seconds per puzzle; a puzzle not rated in time is 'unrated'.")
@click.option("--skip-invalid", is_flag=True, help="Rate the good lines, skip the bad ones.")
@quiet_option()
def rate(
    files: tuple[str, ...], out: Path | None, timeout: float, skip_invalid: bool, quiet: bool
) -> None:
    """Rate the difficulty of every puzzle in FILES: a CSV and a tier count table."""
    from harness import rating

    records, _bad = load_records(files, skip_invalid, 20)
    path = out or RESULTS_DIR / f"{file_stems(files)}-rating.csv"
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


# --- datasets ---


@main.command("datasets")
@click.option(
    "--dir",
    "directory",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="Folder of puzzle files to list [default: the project's datasets/].",
)
@click.option("--no-rate", is_flag=True, help="Skip the difficulty mix (harness.rating tiers).")
def datasets(directory: Path | None, no_rate: bool) -> None:
    """List the shipped datasets (size, count, solutions, difficulty mix, the command that
    made each) and describe the public collections you may bring."""
    from harness import catalog

    rate = None if no_rate else catalog.rate_record
    try:
        text = catalog.catalog_text(directory or catalog.DATASETS_DIR, rate=rate)
    except SudokuError as exc:
        raise UserError(str(exc)) from None
    click.echo(text, nl=False)
