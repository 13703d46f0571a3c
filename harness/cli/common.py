"""What the command modules share: exit codes, option declarations, the user-error type and
reading puzzle files for a command."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import click

from backends.errors import SudokuError
from harness.exit_codes import RunExit, stopped_by
from harness.puzzles.readers import BadLine, PuzzleRecord, format_bad_lines, read_puzzles

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


@contextmanager
def stop_signals() -> Iterator[None]:
    """While inside, SIGTERM and SIGHUP raise :class:`Terminated`, as Ctrl-C raises
    KeyboardInterrupt; the previous handlers come back on leaving."""
    previous = {signum: signal.signal(signum, _terminate) for signum in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def interrupted_code(stop: KeyboardInterrupt) -> int:
    """The exit code for a run stopped by Ctrl-C or by a stop signal."""
    return stopped_by(stop.signum) if isinstance(stop, Terminated) else RunExit.INTERRUPTED


class HarnessGroup(click.Group):
    """The command group: Ctrl-C while a command starts or reads is one line and exit 130
    (click alone would print "Aborted!" and exit 1, the code of a regression); a stdout
    closed early (``harness run ... | head``) ends a command quietly with 141; an output it
    cannot write (a full disk) is one line and exit 2; a bad option or value is one line
    and exit 2, not click's usage block. (Streams closed from the start: see
    :mod:`harness.cli.entry`.)"""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            try:
                return super().invoke(ctx)
            finally:  # before exit, so a broken pipe is seen here, not at shutdown
                sys.stdout.flush()
        except KeyboardInterrupt as stop:
            click.echo("\nharness: interrupted", err=True)
            raise click.exceptions.Exit(interrupted_code(stop)) from None
        except BrokenPipeError:  # stdout closed early (| head): nothing more to write there
            _stdout_to_devnull()
            raise click.exceptions.Exit(RunExit.BROKEN_PIPE) from None
        except click.exceptions.NoArgsIsHelpError:  # no arguments at all: click shows the help
            raise
        except click.UsageError as error:  # a bad option or value: one line, as every user error
            where = f" (see '{error.ctx.command_path} --help')" if error.ctx else ""
            raise UserError(f"{error.format_message()}{where}", error.exit_code) from None
        except OSError as error:  # a full disk or a device that refuses: one line
            _stdout_to_devnull()
            raise UserError(cannot_write(error)) from None
        except Exception as error:
            if not _engine_out_of_memory(error):
                raise
            from harness.results.engine import MEMORY_LIMIT

            raise UserError(
                f"the results do not fit the {MEMORY_LIMIT} the results engine may hold: "
                f"{str(error).splitlines()[0]}"
            ) from None


def _engine_out_of_memory(error: Exception) -> bool:
    """Whether ``error`` is DuckDB's: a query that needs more memory than it may hold."""
    duckdb = sys.modules.get("duckdb")  # not imported: not its error
    return duckdb is not None and isinstance(error, duckdb.OutOfMemoryException)


def cannot_write(error: OSError, path: object = None) -> str:
    """One line for an output that could not be written: its file (standard output when
    none is named) and why."""
    where = path or error.filename or "standard output"
    return f"cannot write {where}: {error.strerror or error}"


def write_file(path: Path, write: Callable[[Path], None]) -> None:
    """Make ``path`` through ``write`` (given a temporary path beside it), then rename it
    into place: a full disk or a failure half-way leaves no partial file and any earlier
    file as it was. A path that is not a regular file (/dev/stdout, a FIFO) is written in
    place. An OSError is one line (:class:`UserError`)."""
    import stat
    import tempfile

    try:
        if path.exists() and not stat.S_ISREG(path.stat().st_mode):
            write(path)
            return
    except OSError as exc:
        raise UserError(cannot_write(exc, path)) from None
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=path.suffix)
    os.close(fd)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        write(Path(tmp))
        os.replace(tmp, path)
    except OSError as exc:
        raise UserError(cannot_write(exc, path)) from None
    finally:
        Path(tmp).unlink(missing_ok=True)


def _stdout_to_devnull() -> None:
    """Point fd 1 at /dev/null: what is still buffered for stdout goes nowhere, quietly."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _folder_exists(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """--out in a folder that does not exist is one line and exit 2, for every command."""
    if value is not None and not value.parent.is_dir():
        what = "is not a folder" if value.parent.exists() else "does not exist"
        raise UserError(f"cannot write {value}: {value.parent} {what}")
    return value


# Options several commands share, each defined once.
def out_option(help: str) -> Callable[[F], F]:
    return click.option(
        "--out",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        callback=_folder_exists,
        help=help,
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


def gate_options(prefix: str = "") -> Callable[[F], F]:
    """--only-common, --ignore-time and --compare-time-anyway, for ``check``, ``run
    --baseline`` and ``report --baseline``: the same options, the same verdict."""

    def decorate(function: F) -> F:
        function = click.option(
            "--ignore-time",
            is_flag=True,
            help=f"{prefix}Judge answers and counters only, not time.",
        )(function)
        function = click.option(
            "--compare-time-anyway",
            is_flag=True,
            help=f"{prefix}Judge time even when the two runs' machines differ (CPU, cores, "
            "Python).",
        )(function)
        return click.option(
            "--only-common",
            is_flag=True,
            help=f"{prefix}Judge only the backends, datasets and puzzles of both runs.",
        )(function)

    return decorate


def given_once(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> str | None:
    """The one value of an option declared ``multiple=True`` only to see it repeated: given
    twice or more, one line and exit 2 rather than the last one silently."""
    if len(values) > 1:
        name = param.opts[0]
        raise UserError(
            f"{name} given {len(values)} times ({' and '.join(values)}); give it once "
            "(run the command once for each)"
        )
    return values[0] if values else None


def quiet_option(help: str = "No progress display.") -> Callable[[F], F]:
    return click.option("-q", "--quiet", is_flag=True, help=help)


class UserError(click.ClickException):
    """One clear line on stderr and a non-zero exit code."""

    def __init__(self, message: str, exit_code: int = RunExit.USAGE) -> None:
        super().__init__(message)
        self.exit_code = exit_code

    def show(self, file: object = None) -> None:
        click.echo(f"harness: error: {self.format_message()}", err=True)


#: The widest line a command prints.
WIDTH = 100


def fit(text: str, width: int = WIDTH) -> str:
    """``text`` with every line longer than ``width`` wrapped, the rest of it indented by
    four spaces (a long path or message is cut where it must be)."""
    import textwrap

    lines = []
    for line in text.splitlines():
        if len(line) <= width:
            lines.append(line)
            continue
        wrapped = textwrap.wrap(line, width, subsequent_indent="    ", break_on_hyphens=False)
        lines.extend(wrapped)
    return "\n".join(lines)


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
        click.echo(fit(format_bad_lines(bad, limit=max_bad)), err=True)
        raise UserError(
            f"{len(bad)} bad puzzle line(s); fix them or pass --skip-invalid to run the rest"
        )
    if bad:
        click.echo(f"skipping {len(bad)} bad line(s):", err=True)
        click.echo(fit(format_bad_lines(bad, limit=max_bad)), err=True)
    if not records:
        raise UserError(f"no puzzles found in {', '.join(files)}")
    return records, bad


def file_stems(files: Sequence[str]) -> str:
    """The input files' names without suffixes, joined by '+', for a default output name."""
    return "+".join(Path(f).name.split(".")[0] or "stdin" for f in files)[:80] or "stdin"


def default_out(files: Sequence[str]) -> Path:
    """``results/FILES-DATE-TIME.csv``; with ``-2``, ``-3``, ... before ``.csv`` when an
    earlier run of the same second has that name."""
    name = f"{file_stems(files)}-{time.strftime('%Y%m%d-%H%M%S')}"
    path, n = RESULTS_DIR / f"{name}.csv", 1
    while path.exists():
        n += 1
        path = RESULTS_DIR / f"{name}-{n}.csv"
    return path
