"""``harness run``: run backends over puzzle files, write the CSV, print the tables."""

from __future__ import annotations

import gc
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

import click

from backends.base import Status
from backends.errors import SudokuError
from harness import results, runner
from harness.cli.common import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_REGRESSION,
    EXIT_WRONG,
    STOP_SIGNALS,
    Terminated,
    UserError,
    _terminate,
    default_out,
    distinct_files,
    jobs_option,
    load_records,
    out_option,
    quiet_option,
    timeout_option,
)
from harness.progress import Progress


def exit_code_for(statuses: Sequence[str]) -> int:
    present = set(statuses)
    if Status.WRONG.value in present:
        return EXIT_WRONG
    if present & {Status.ERROR.value, Status.MEMOUT.value}:
        return EXIT_ERROR
    return EXIT_OK


@click.command()
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
    """Run backends over puzzle FILES (- for stdin); write a CSV and print a table.

    Examples:

    \b
      harness run datasets/easy.txt                      # mrv, 30 s timeout
      harness run -b all --timeout 5 datasets/hard95.txt # every backend
      harness run -b ac3:select=B,order=least -b dlx --repeat 5 datasets/hard95.txt
      harness run -b all --out results/x.csv FILE        # after Ctrl-C: add --resume
      harness run -b mrv --baseline results/old.csv FILE # gate it as 'harness check' does
      harness report results/x.csv -o report.html        # then look at the results
    """
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
        with Progress(total, quiet=quiet) as bar:
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
