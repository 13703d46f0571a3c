"""``harness generate``: make puzzle files whose header says how to make them again; and
``python -m harness.puzzles.generate``, which (re)writes the small shipped datasets."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

import click

from backends.errors import SudokuError
from harness.cli.common import UserError, fit, jobs_option, out_option, quiet_option, write_file
from harness.puzzles import generate as generate_lib
from harness.tables.humanize import duration

#: Seconds without a line after which ``harness generate`` says what it is doing.
HEARTBEAT_S = 5.0


class Reporter:
    """What ``harness generate`` says on stderr as it works: each candidate kept (or made,
    with a pool) with the time so far (:meth:`say`), and after ``interval`` seconds without
    a line, the time so far and the step being done (:meth:`stage`: which candidate, and
    whether it is being carved, solved to rank it or rated). A context manager: the
    heartbeat runs on a thread while inside."""

    def __init__(
        self, interval: float = HEARTBEAT_S, write: Callable[[str], None] | None = None
    ) -> None:
        self.interval = interval
        self.write = write or (lambda line: click.echo(line, err=True))
        self.start = self.last = time.monotonic()
        self.doing = "starting"
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="generate-heartbeat", daemon=True)

    def __enter__(self) -> Reporter:
        self.start = self.last = time.monotonic()
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()

    def say(self, message: str) -> None:
        """A line now: ``message`` and the time so far."""
        self._line(f"{message} ({self._elapsed()})")

    def stage(self, message: str) -> None:
        """What is being done now, for the next heartbeat line (nothing printed now)."""
        self.doing = message

    def _beat(self) -> None:
        while not self._stop.wait(min(self.interval, 1.0)):
            if time.monotonic() - self.last >= self.interval:
                self._line(f"{self._elapsed()} so far; {self.doing}")

    def _elapsed(self) -> str:
        return duration(time.monotonic() - self.start)

    def _line(self, text: str) -> None:
        with self._lock:
            self.write(fit(text))
            self.last = time.monotonic()


@click.command("generate")
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
    default=None,
    help="Stop carving at this many givens (0 = carve to a minimal puzzle) [default: "
    + ", ".join(f"{g} for {n}x{n}" for n, g in generate_lib.DEFAULT_MIN_GIVENS.items())
    + ": seconds a puzzle, where a minimal 16x16 or 25x25 one can take many minutes].",
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
    help="Keep only puzzles of this harness.puzzles.rating tier: easy, medium, hard, expert or "
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
    size: str, min_givens: int | None, jobs: int, out: Path | None, quiet: bool, **options: Any
) -> None:
    """Generate minimal unique-solution puzzles; the header says how to make the file again.

    Progress goes to stderr (-q: none): each puzzle kept, and every few seconds without
    one, the time so far and the step being done. 16x16 and 25x25 puzzles stop carving at
    110 and 330 givens unless --min-givens says otherwise.
    """
    # The other options are GenerateOptions' fields under the same names, passed whole.
    side = int(size)
    fewest = generate_lib.DEFAULT_MIN_GIVENS[side]
    givens = fewest if min_givens is None else min_givens
    record = generate_lib.GenerateOptions(size=side, min_givens=givens, **options)
    if givens < fewest and not quiet:
        click.echo(
            fit(
                f"note: a {side}x{side} puzzle carved below {fewest} givens can take many "
                f"minutes; --min-givens {fewest} takes seconds"
            ),
            err=True,
        )
    try:
        if quiet:
            generated = generate_lib.generate(record, jobs)
        else:
            with Reporter() as reporter:
                generated = generate_lib.generate(record, jobs, reporter.say, reporter.stage)
    except SudokuError as exc:
        raise UserError(str(exc)) from None
    text = generate_lib.write(generated, None)
    if out is None:
        click.echo(text, nl=False)
    else:
        write_file(out, lambda p: p.write_text(text, encoding="utf-8"))
        click.echo(f"wrote {len(generated.kept)} puzzle(s) to {out}", err=True)


@click.command("python -m harness.puzzles.generate")
@click.argument(
    "directory",
    required=False,
    default="datasets",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
)
@click.option(
    "--tdoku",
    is_flag=True,
    help="Write unsolvable.txt and multi.txt as tdoku's puzzle:count lines.",
)
def small_datasets_command(directory: Path, tdoku: bool) -> None:
    """(Re)write the small datasets (unsolvable.txt, multi.txt, sizes.txt) into DIRECTORY
    (default: datasets)."""
    try:
        texts = generate_lib.small_datasets(tdoku=tdoku)
    except SudokuError as exc:
        raise UserError(str(exc)) from None
    for name, text in texts.items():
        path = directory / name
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
        click.echo(f"wrote {path}", err=True)
