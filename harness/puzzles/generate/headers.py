"""Dataset headers: the ``#`` lines that say what a generated file holds and how to make it
again, and the file itself."""

from __future__ import annotations

import statistics
from pathlib import Path

from harness.puzzles.generate.common import SINGLES_BACKEND
from harness.puzzles.generate.hardness import difficulty_tiers
from harness.puzzles.generate.options import GenerateOptions
from harness.puzzles.generate.pool import Generated
from harness.puzzles.generate.symmetry import SYMMETRY_WORDS


def describe(generated: Generated) -> list[str]:
    """The header lines (without ``# ``) that say what the file holds and how it was made.

    The options of the first generator (size, count, seed, pool, backend, require_guess,
    min_givens, check_backend) give exactly the lines they always gave, so that files made
    before symmetry, difficulty and adversarial mode still reproduce byte for byte.
    """
    opt = generated.options
    kept = generated.kept
    nodes = [c.nodes for c in kept]
    givens = [c.puzzle.givens for c in kept]
    return [
        *_origin(generated),
        *_symmetry(opt),
        *_adversarial(generated),
        *_filters(opt),
        f"{opt.ranking_backend} nodes (limit=1): {_spread(nodes)}, total {sum(nodes)}.",
        f"Givens: {_spread(givens)}.",
        f"reproduce: {opt.command()}",
        "(--out FILE writes these same bytes to FILE; --jobs does not change them.)",
    ]


def _origin(generated: Generated) -> list[str]:
    """What the file holds, which candidates were kept, and how each was made."""
    opt = generated.options
    grid = f"{opt.size}x{opt.size}"
    if opt.pool is None and not opt.filtered:
        rule = f"all {opt.count}"
    elif opt.pool is None:
        rule = f"the first {opt.count} that {opt.wanted()}"
    else:
        rule = f"the {opt.count} with the most {opt.ranking_backend} nodes (limit=1)"
        if opt.filtered:
            rule += f",\n  among those that {opt.wanted()}"
    stop = f", stopping at {opt.min_givens} givens" if opt.min_givens else ""
    selection = f"Selection: of {generated.made} candidates made from seed {opt.seed}, {rule}."
    return [
        f"{len(generated.kept)} {grid} puzzles, each with a unique solution.",
        *selection.split("\n"),
        f"Candidate: a random complete grid, then {_group(opt)}s removed in random order while the",
        f"  solution stays unique ({opt.check_backend}, limit=2){stop}.",
    ]


def _symmetry(opt: GenerateOptions) -> list[str]:
    """The symmetry and minimality lines (none for files of the first generator)."""
    lines = []
    if opt.symmetry != "none":
        lines += [
            f"Symmetry: {opt.symmetry}; a clue group is the cells mapped onto each other by",
            f"  {SYMMETRY_WORDS[opt.symmetry]}, so the givens have that symmetry.",
        ]
    extended = opt.symmetry != "none" or opt.difficulty is not None or opt.adversarial
    if extended and not opt.min_givens:
        lines.append(
            "Minimal: removing any one given leaves two or more solutions."
            if opt.symmetry == "none"
            else "Minimal for its symmetry: removing any one clue group leaves two or more "
            "solutions."
        )
    return lines


def _adversarial(generated: Generated) -> list[str]:
    """How the candidates were hill-climbed, and their nodes before (none without a climb)."""
    opt = generated.options
    if opt.adversarial is None:
        return []
    start = [c.start_nodes for c in generated.kept if c.start_nodes is not None]
    group = _group(opt)
    return [
        f"Adversarial: each candidate then hill-climbed for {opt.iterations} moves to raise "
        f"{opt.adversarial} nodes",
        f"  (limit=1); a move fills an empty {group} from the same solution grid and, half "
        "the time,",
        f"  empties a given {group}; it must stay unique, then is made minimal again; it is "
        "kept when",
        f"  the nodes do not fall. {opt.adversarial} nodes before climbing: {_spread(start)}.",
    ]


def _filters(opt: GenerateOptions) -> list[str]:
    """What ``require_guess`` and ``difficulty`` kept."""
    lines = []
    if opt.require_guess:
        lines += [
            "Need a guess: naked and hidden singles alone do not solve it",
            f"  ({SINGLES_BACKEND} makes at least one guess).",
        ]
    if opt.difficulty is not None:
        lines += [
            f"Difficulty: tier {opt.difficulty} by harness rate (the logic backend's ladder of",
            f"  human strategies; tiers {', '.join(difficulty_tiers())}).",
        ]
    return lines


def _group(opt: GenerateOptions) -> str:
    """What is emptied and filled together: a clue, or a clue group under a symmetry."""
    return "clue" if opt.symmetry == "none" else "clue group"


def _spread(values: list[int]) -> str:
    return f"median {_fmt(statistics.median(values))}, min {min(values)}, max {max(values)}"


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def render(generated: Generated) -> str:
    """The whole file: ``#`` header lines, then one canonical puzzle per line."""
    header = [f"# {line}" for line in describe(generated)]
    body = [c.puzzle.to_string() for c in generated.kept]
    return "\n".join(header + body) + "\n"


def write(generated: Generated, out: Path | None) -> str:
    """Write :func:`render`'s text to ``out`` (when given) and return it."""
    text = render(generated)
    if out is not None:
        out.write_text(text, encoding="utf-8")
    return text
