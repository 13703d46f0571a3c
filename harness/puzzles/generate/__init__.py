"""The puzzle generator: random complete grids, carved into minimal unique-solution puzzles.

How one puzzle is made (:func:`make_candidate`, from one ``random.Random`` and the one
:class:`GenerateOptions` record):

1. :func:`random_grid` (:mod:`.grids`) fills an empty grid by randomized search (most
   constrained cell first, ties and value order drawn from the generator), restarting on a
   rare dead end.
2. :func:`carve` (:mod:`.carving`) visits the clue groups in a random order and empties each
   one whose removal keeps the solution unique, uniqueness being a registry backend's
   ``limit=2`` solve. Without symmetry a group is one cell and the result is minimal; with
   a symmetry (:data:`SYMMETRIES`, :mod:`.symmetry`) a group is an orbit of the symmetry and
   the result is minimal for its symmetry.
3. With ``adversarial``, :func:`climb` (:mod:`.climbing`) hill-climbs from that puzzle to
   raise a chosen backend's ``nodes``.
4. The ranking backend (default ``mrv``; the adversarial backend in that mode) solves it
   once with ``limit=1``; its ``nodes`` rank hardness (:mod:`.hardness`). With
   ``require_guess``, ``mrv:inference=singles`` also solves it and a puzzle it solves with
   ``guesses == 0`` (naked and hidden singles alone) is dropped. With ``difficulty``,
   :mod:`harness.puzzles.rating` rates it and a puzzle of another tier is dropped.

:func:`generate` (:mod:`.pool`) makes a pool of such candidates, candidate ``i`` from its own
seed (drawn in order from ``random.Random(seed)``), so the result depends only on the
options, never on ``jobs`` or timing. :func:`render` (:mod:`.headers`) writes the file:
``#`` header lines, including the command that reproduces it, then one canonical puzzle per
line. :func:`small_datasets` (:mod:`.datasets`) makes the small shipped files;
``python -m harness.puzzles.generate [DIR] [--tdoku]`` writes them.

Difficulty targeting
--------------------
``difficulty`` keeps the candidates :func:`harness.puzzles.rating.rate` puts in that tier
(rated with
no time limit, so the output never depends on timing). Random minimal 9x9 puzzles fall in
every tier, so filtering fresh candidates reaches each: of 1000 (seed 2), 421 were easy, 185
medium, 38 hard, 350 expert and 6 needs-guess. Climbing the rating's score instead was
tried and found needs-guess puzzles less often per solve than fresh candidates did.
"""

from __future__ import annotations

from harness.puzzles.generate.carving import (
    carve,
    count_solutions,
    is_minimal,
    minimize,
    removable_groups,
)
from harness.puzzles.generate.climbing import Climb, climb, mutate
from harness.puzzles.generate.common import (
    CHECK_BACKEND,
    DEFAULT_BACKEND,
    DEFAULT_ITERATIONS,
    DEFAULT_MIN_GIVENS,
    SINGLES_BACKEND,
    GenerateError,
)
from harness.puzzles.generate.datasets import (
    add_wrong_given,
    exact_count,
    remove_needed_given,
    small_datasets,
    solution_of,
)
from harness.puzzles.generate.grids import random_grid
from harness.puzzles.generate.hardness import difficulty_tiers, effort, needs_guess, rate_tier
from harness.puzzles.generate.headers import describe, render, write
from harness.puzzles.generate.options import GenerateOptions
from harness.puzzles.generate.pool import (
    Candidate,
    Generated,
    candidate_seeds,
    generate,
    make_candidate,
)
from harness.puzzles.generate.symmetry import SYMMETRIES, clue_groups, is_symmetric

__all__ = [
    "CHECK_BACKEND",
    "DEFAULT_BACKEND",
    "DEFAULT_ITERATIONS",
    "DEFAULT_MIN_GIVENS",
    "SINGLES_BACKEND",
    "SYMMETRIES",
    "Candidate",
    "Climb",
    "GenerateError",
    "GenerateOptions",
    "Generated",
    "add_wrong_given",
    "candidate_seeds",
    "carve",
    "climb",
    "clue_groups",
    "count_solutions",
    "describe",
    "difficulty_tiers",
    "effort",
    "exact_count",
    "generate",
    "is_minimal",
    "is_symmetric",
    "make_candidate",
    "minimize",
    "mutate",
    "needs_guess",
    "random_grid",
    "rate_tier",
    "removable_groups",
    "remove_needed_given",
    "render",
    "small_datasets",
    "solution_of",
    "write",
]
