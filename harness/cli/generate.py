"""``harness generate``: make puzzle files whose header says how to make them again."""

from __future__ import annotations

from pathlib import Path

import click

from backends.errors import SudokuError
from harness import generate as generate_lib
from harness.cli.common import UserError, jobs_option, out_option, quiet_option


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
