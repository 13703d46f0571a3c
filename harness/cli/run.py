"""``harness run``: run backends over puzzle files, write the CSV, print the tables."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from backends.base import Status
from backends.errors import SudokuError
from harness import exit_codes
from harness.cli.common import (
    UserError,
    default_out,
    distinct_files,
    fit,
    gate_options,
    interrupted_code,
    jobs_option,
    out_option,
    quiet_option,
    stop_signals,
    timeout_option,
)
from harness.cli.progress import Progress
from harness.exit_codes import CheckExit, RunExit
from harness.puzzles.readers import BadLines
from harness.puzzles.readers.files import PuzzleFiles
from harness.results.engine import Results
from harness.run import runner

if TYPE_CHECKING:
    from harness.run.cluster import ClusterTarget


def cluster_target(
    address: str | None, scheduler_file: Path | None, jobs: int
) -> ClusterTarget | None:
    """The Dask cluster to solve on, or None for local worker processes."""
    if address is None and scheduler_file is None:
        return None
    if address is not None and scheduler_file is not None:
        raise UserError("give --cluster or --scheduler-file, not both")
    if jobs > 1:
        raise UserError("--jobs is for local runs; a cluster runs one solve per Dask thread")
    from harness.run.cluster import ClusterTarget

    target = ClusterTarget(address, scheduler_file)
    try:
        target.local_workers  # noqa: B018 - validates local:N now, before any file is read
    except SudokuError as exc:
        raise UserError(str(exc)) from None
    return target


def exit_code_for(statuses: Iterable[str]) -> int:
    present = set(statuses)
    if Status.WRONG.value in present:
        return RunExit.WRONG
    if present & {Status.ERROR.value, Status.MEMOUT.value}:
        return RunExit.ERROR
    return RunExit.OK


@dataclasses.dataclass(frozen=True)
class GateOptions:
    """How ``--baseline`` judges the run (see :mod:`harness.gate`)."""

    baseline: Path | None
    only_common: bool
    ignore_time: bool
    compare_time_anyway: bool


@click.command(
    epilog="\b\nExit codes:\n" + "\n".join(f"  {line}" for line in exit_codes.TABLE.split("\n"))
)
@click.argument("files", nargs=-1)
@click.option(
    "-b",
    "--backend",
    "backends",
    multiple=True,
    default=("mrv",),
    show_default=True,
    help="Backend spec, repeatable: NAME or NAME:opt=value,... ; 'all' = every built-in "
    "backend (name plugins, cmd:COMMAND and lib:PATH solvers one by one).",
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
@click.option(
    "--resume",
    is_flag=True,
    help="Complete an interrupted run in --out, with the settings in its .meta.json "
    "(FILES and options may be left out; any given must match).",
)
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
    help="After the run, gate it against this CSV as 'harness check' does; backends not "
    "run here are not judged.",
)
@gate_options("With --baseline: ")
@click.option(
    "--by-tier",
    is_flag=True,
    help="Also print the table per difficulty tier (rates each puzzle with 'logic' first).",
)
@click.option(
    "--cluster",
    metavar="ADDRESS",
    default=None,
    help="Solve on a Dask cluster: tcp://HOST:8786, or local:N to start N Dask worker "
    "processes here (pip install 'sudoku-harness[dask]'). Replaces --jobs.",
)
@click.option(
    "--scheduler-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Solve on the Dask cluster whose scheduler wrote this file (dask scheduler "
    "--scheduler-file).",
)
@click.option(
    "--against",
    metavar="REV",
    default=None,
    help="Also run each backend as it was at git revision REV (branch, tag or hash), as "
    "SPEC@REV, interleaved puzzle by puzzle, and gate each pair inside the run.",
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
    only_common: bool,
    ignore_time: bool,
    compare_time_anyway: bool,
    by_tier: bool,
    cluster: str | None,
    scheduler_file: Path | None,
    against: str | None,
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
      harness run -b mrv --against origin/main FILE      # old and new code, one run
      harness run -b 'cmd:./my_solver --fast' -b bitmask FILE  # your solver beside ours
      harness run -b all --cluster local:2 FILE          # on a Dask cluster
      harness report results/x.csv -o report.html        # then look at the results
    """
    given = {
        "backends": list(backends),
        "files": list(files),
        "timeout": timeout,
        "memory_limit": memory_limit,
        "limit_solutions": limit_solutions,
        "repeat": repeat,
        "seed": seed,
    }
    context = click.get_current_context()
    context.with_resource(stop_signals())  # from here, SIGTERM ends the command as Ctrl-C does
    target = cluster_target(cluster, scheduler_file, jobs)
    config = _checked_config(given, jobs, out, resume, target, baseline)
    if against is not None:  # the twins SPEC@REV, checked before any file is read
        config = _against(config, against)
    _note_jobs(jobs, quiet)
    puzzles = context.with_resource(PuzzleFiles(config.datasets))
    bad = scan_puzzles(puzzles, skip_invalid, max_bad_lines)
    config = dataclasses.replace(config, skipped=bad.kept, skipped_more=bad.more)
    result = _solve(puzzles, config, quiet)
    gate = GateOptions(baseline, only_common, ignore_time, compare_time_anyway)
    with result.results or contextlib.nullcontext():
        code = report(result, puzzles, config, gate, by_tier)
    sys.exit(code)


def scan_puzzles(puzzles: PuzzleFiles, skip_invalid: bool, max_bad: int) -> BadLines:
    """Read every file once (counting its puzzles); bad lines stop the run unless
    ``skip_invalid``: the first ``max_bad`` are shown, the rest counted."""
    try:
        bad = puzzles.scan(max_bad).bad
    except SudokuError as exc:
        raise UserError(str(exc)) from None
    if bad.count and not skip_invalid:
        click.echo(str(bad), err=True)
        raise UserError(
            f"{bad.count} bad puzzle line(s); fix them or pass --skip-invalid to run the rest"
        )
    if bad.count:
        click.echo(f"skipping {bad.count} bad line(s):", err=True)
        click.echo(str(bad), err=True)
    if not sum(puzzles.counts.values()):
        raise UserError(f"no puzzles found in {', '.join(puzzles.paths)}")
    return bad


def _checked_config(
    given: dict[str, Any],
    jobs: int,
    out: Path | None,
    resume: bool,
    target: ClusterTarget | None,
    baseline: Path | None,
) -> runner.RunConfig:
    """The run's configuration, checked before any puzzle file is read: a baseline the gate
    cannot read, or settings the runner refuses, are one line now, not after the run."""
    try:
        config = dataclasses.replace(_config(given, jobs, out, resume), cluster=target)
        if baseline is not None:  # every row and its metadata checked, as the gate reads them
            from harness.results import engine

            engine.read([baseline], ["status"], natives=False).close()
        runner.validate(config)
    except SudokuError as exc:
        raise UserError(str(exc)) from None
    return config


def _against(config: runner.RunConfig, rev: str) -> runner.RunConfig:
    from harness.run import against

    try:
        return against.configure(config, rev)
    except SudokuError as exc:
        raise UserError(str(exc)) from None


def _explicit(name: str) -> bool:
    source = click.get_current_context().get_parameter_source(name)
    return source not in (ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP, None)


def _config(given: dict[str, Any], jobs: int, out: Path | None, resume: bool) -> runner.RunConfig:
    """The run's configuration; a --resume takes what the command line leaves out from the
    run's metadata, and refuses what differs from it."""
    if resume and out is None:
        raise UserError("--resume needs --out naming the CSV to complete")
    named = {k: v for k, v in given.items() if _explicit(k) or (k == "files" and v)}
    if "backends" in named:  # compared as canonical specs ('all' expanded)
        named["backends"] = [c.spec for c in runner.resolve_backends(named["backends"])]
    settings = {**given, **named}
    if resume and out is not None:
        settings.update(runner.resume_settings(out, named))
    if not settings["files"]:
        raise UserError("give at least one puzzle FILE, or - for standard input")
    choices = runner.resolve_backends(settings["backends"])
    for choice in choices:
        if choice.unavailable and "all" not in settings["backends"]:
            raise UserError(f"backend {choice.spec} is unavailable: {choice.unavailable}")
        if choice.unavailable:
            click.echo(
                f"backend {choice.spec} is unavailable ({choice.unavailable}); "
                "recorded as UNAVAILABLE",
                err=True,
            )
    files = distinct_files(settings["files"])
    return runner.RunConfig(
        backends=choices,
        out=out or default_out(files),
        limit=settings["limit_solutions"],
        timeout=settings["timeout"],
        memory_limit_mib=settings["memory_limit"],
        repeat=settings["repeat"],
        jobs=jobs,
        seed=settings["seed"],
        resume=resume,
        datasets=files,
    )


def _note_jobs(jobs: int, quiet: bool) -> None:
    cores = os.cpu_count() or 1
    if jobs >= cores and not quiet:
        note = (
            f"note: --jobs {jobs} on {cores} core(s): workers share the CPUs with each other "
            "and with the harness, so times are higher than with fewer jobs (recorded per row)"
        )
        click.echo(fit(note), err=True)


def resume_command(config: runner.RunConfig, width: int = 100) -> str:
    """The whole command that completes ``config``'s run, for the interrupt hint: indented
    2, and broken with `` \\`` between an option and the next so no line passes ``width``
    columns (a shell runs it, pasted, as one line)."""
    import shlex  # here: only an interrupted run prints it

    units = [["harness", "run"], *(["-b", c.spec] for c in config.backends)]
    units += [
        ["--timeout", f"{config.timeout:g}"],
        ["--memory-limit", f"{config.memory_limit_mib:g}"],
    ]
    units += [["--limit-solutions", str(config.limit)], ["--repeat", str(config.repeat)]]
    if config.cluster is None:
        units.append(["--jobs", str(config.jobs)])
    elif config.cluster.scheduler_file is not None:
        units.append(["--scheduler-file", str(config.cluster.scheduler_file)])
    else:
        units.append(["--cluster", str(config.cluster.address)])
    units += [["--seed", str(config.seed)], ["--resume"], ["--out", str(config.out)]]
    units += [[dataset] for dataset in config.datasets]
    lines = [""]
    for unit in map(shlex.join, units):
        room = width - (2 if len(lines) == 1 else 4) - len(" \\")
        if lines[-1] and len(lines[-1]) + 1 + len(unit) > room:
            lines.append("")
        lines[-1] = f"{lines[-1]} {unit}".lstrip()
    return " \\\n".join(("  " if i == 0 else "    ") + line for i, line in enumerate(lines))


def _solve(puzzles: PuzzleFiles, config: runner.RunConfig, quiet: bool) -> runner.RunResult:
    """Run with a progress bar; a stop signal ends it with the resume hint and its code."""
    total = runner.total_steps(sum(puzzles.counts.values()), config)
    try:
        with Progress(total, quiet=quiet) as bar:
            return runner.run(puzzles, config, progress=bar)
    except SudokuError as exc:  # a CSV that cannot be resumed or is busy: found before solving
        raise UserError(str(exc)) from None
    except OSError as exc:  # cannot write the CSV or its metadata (rows so far are kept)
        raise UserError(f"cannot write {exc.filename or config.out}: {exc.strerror}") from None
    except KeyboardInterrupt as stop:
        if config.against is not None:
            click.echo(f"\ninterrupted; the rows so far are in {config.out}", err=True)
            sys.exit(interrupted_code(stop))
        click.echo(
            f"\ninterrupted; the rows so far are in {config.out}; complete it with --resume:\n"
            f"{resume_command(config)}",
            err=True,
        )
        sys.exit(interrupted_code(stop))


def print_tables(results: Results, puzzles: PuzzleFiles | None, by_tier: bool) -> None:
    """The summary of the run's rows (as the results engine read them back at the end),
    then the native statistics and, ``by_tier``, the table per difficulty tier."""
    from harness.tables import render, stats

    click.echo(render.render(stats.summary(results.con)))
    native = stats.native_summary(results.con)
    if native:
        click.echo("\nnative statistics (medians over answered puzzles):")
        click.echo(render.render_native(native))
    if by_tier and puzzles is not None:
        from harness.puzzles import rating

        tiers = [(r.dataset, r.line, rating.rate(r.puzzle).tier) for r in puzzles.records()]
        click.echo("\nby difficulty tier (harness rate):")
        table = stats.summary_by_tier(results.con, tiers, rating.ALL_TIERS)
        click.echo(render.render(table))


def report(
    result: runner.RunResult,
    puzzles: PuzzleFiles | None,
    config: runner.RunConfig,
    gate_options: GateOptions,
    by_tier: bool,
) -> int:
    """Print the tables, the notes and the gate's verdict; return the run's exit code."""
    from harness.cli.check import fit_markdown
    from harness.tables import stats

    results = result.results
    assert results is not None  # a run that returned has read its rows back
    print_tables(results, puzzles, by_tier)
    if result.resumed:
        click.echo(f"\nresumed: {result.resumed} row(s) were already in the CSV")
    if result.cross_checked:
        click.echo(f"cross-check: {result.cross_checked} claim(s) refuted by another backend")
    for line in stats.failure_lines(results.con):
        click.echo(fit(line))
    click.echo(f"\nrows: {result.csv_path}\nmetadata: {result.meta_path}")
    twins = set((config.against or {}).get("pairs", {}))  # the old code's failures: not the run's
    code = exit_code_for(stats.statuses(results.con, excluding=sorted(twins)))
    if gate_options.baseline is not None:
        from harness import gate

        verdict = gate.check_files(
            gate_options.baseline,
            result.csv_path,
            compare_time=not gate_options.ignore_time,
            compare_time_anyway=gate_options.compare_time_anyway,
            only_common=gate_options.only_common,
        )
        click.echo("\n" + fit_markdown(verdict.markdown()))
        if code == RunExit.OK and verdict.exit_code == CheckExit.REGRESSION:
            code = RunExit.REGRESSION
    if config.against is not None:
        from harness.gate import paired

        verdict = paired.check_file(result.csv_path)
        click.echo("\n" + fit_markdown(verdict.markdown()))
        if code == RunExit.OK and verdict.exit_code == CheckExit.REGRESSION:
            code = RunExit.REGRESSION
    return code
