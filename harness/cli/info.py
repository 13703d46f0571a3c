"""``harness backends`` and ``harness datasets``: what can run here, and what data ships."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import click

from backends import REGISTRY, Backend, availability, backend_class
from backends.errors import SudokuError
from harness.cli.common import UserError

#: What the shorthand in the backends' descriptions means.
SHORTHAND = (
    "Shorthand: 'seed 000'..'seed 004' name the solver write-ups this project started from "
    "(docs/benchmarks.md, Reproductions, gives each one's comparison as rerun here): 000 "
    "backtracking, plain and fewest-candidates; 001 Norvig's propagation, with Vermeer's "
    "pairs; 002 singles before backtracking, iterative; 003 a book chapter's backtrack and "
    "rule ladder; 004 backtracking with AC-3, where approach A/B is the cell choice and "
    "A-1/A-2 the value orders. Run a backend as NAME or NAME:opt=value,... (harness run -b)."
)


class _Wrapper(textwrap.TextWrapper):
    """Breaks a line at spaces and after a '|' (a long list of choices), never inside a
    word or at a hyphen."""

    wordsep_simple_re = re.compile(r"(\s+|(?<=\|)(?=\S))")


def _wrapped(text: str, indent: str, width: int = 100) -> str:
    wrapper = _Wrapper(
        width,
        initial_indent=indent,
        subsequent_indent=indent + "  ",
        break_long_words=False,
        break_on_hyphens=False,
    )
    return wrapper.fill(text)


@click.command("backends")
def list_backends() -> None:
    """List every backend, its options and defaults, and whether it can run here; then the
    plugins other installed distributions declare (entry points), with where each comes from."""
    from backends import plugins  # only this command and a plugin's run need it

    for name in REGISTRY:  # imports every built-in backend's module
        _describe(name, backend_class(name))
    found = plugins.listing(REGISTRY)
    if not found:
        click.echo(f"\nplugins: none installed (entry-point group {plugins.GROUP!r})")
    else:
        click.echo(f"\nplugins (entry-point group {plugins.GROUP!r}):")
    for plugin in found:
        if plugin.cls is None:
            click.echo(_wrapped(f"{plugin.name}  [UNAVAILABLE]", ""))
            click.echo(_wrapped(str(plugin.reason), "    "))
            click.echo(_wrapped(f"from {plugin.origin}", "    "))
        else:
            _describe(plugin.name, plugin.cls, f"from {plugin.origin}")
    click.echo("\n" + _wrapped(SHORTHAND, ""))


def _describe(name: str, cls: type[Backend], origin: str = "") -> None:
    """One backend's entry: state, kind, largest grid, summary, options, native statistics."""
    reason = availability(cls)
    state = "available" if reason is None else f"UNAVAILABLE: {reason}"
    kind = "deterministic" if cls.deterministic else "non-deterministic"
    size = f"up to {cls.max_box**2}x{cls.max_box**2}"
    slow = "; slow" if cls.slow else ""
    click.echo(_wrapped(f"{name}  [{state}; {kind}; {size}{slow}]", ""))
    click.echo(_wrapped(cls.summary, "    "))
    if origin:
        click.echo(_wrapped(origin, "    "))
    for opt in cls.options:
        choices = f" ({'|'.join(opt.choices)})" if opt.choices else ""
        click.echo(_wrapped(f"{opt.name}={opt.default}{choices}: {opt.help}", "    "))
    if cls.native_counters:
        click.echo(_wrapped(f"native statistics: {', '.join(cls.native_counters)}", "    "))


@click.command("datasets")
@click.option(
    "--dir",
    "directory",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="Folder of puzzle files to list [default: the project's datasets/].",
)
@click.option(
    "--solve",
    is_flag=True,
    help="Also solve every puzzle: each file's solution counts (dlx, limit=2) and difficulty "
    "mix ('harness rate' tiers). Takes seconds; the listing alone only reads the files.",
)
def datasets(directory: Path | None, solve: bool) -> None:
    """List the shipped datasets (size, count, givens, what each file states, the command
    that made each) and describe the public collections you may bring."""
    from harness.puzzles import catalog

    rate, count = (catalog.rate_record, catalog.count_record) if solve else (None, None)
    try:
        text = catalog.catalog_text(directory or catalog.DATASETS_DIR, rate, count)
    except SudokuError as exc:
        raise UserError(str(exc)) from None
    click.echo(text, nl=False)
