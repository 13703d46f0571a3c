"""``harness generate``: make puzzle files whose header says how to make them again; and
``python -m harness.puzzles.generate``, which (re)writes the small shipped datasets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from backends.errors import SudokuError
from harness.cli.common import UserError, jobs_option, out_option, quiet_option, write_file
from harness.puzzles import generate as generate_lib


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
def generate(size: str, jobs: int, out: Path | None, quiet: bool, **options: Any) -> None:
    """Generate minimal unique-solution puzzles; the header says how to make the file again."""
    # The other options are GenerateOptions' fields under the same names, passed whole.
    record = generate_lib.GenerateOptions(size=int(size), **options)
    progress = None if quiet else (lambda message: click.echo(message, err=True))
    try:
        text = generate_lib.write(generate_lib.generate(record, jobs, progress), None)
    except SudokuError as exc:
        raise UserError(str(exc)) from None
    if out is None:
        click.echo(text, nl=False)
    else:
        write_file(out, lambda p: p.write_text(text, encoding="utf-8"))


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
