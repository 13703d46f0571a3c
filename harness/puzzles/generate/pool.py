"""The pool: candidates made one by one or on worker processes, and the ones kept.

Candidate ``i`` is made from its own seed (drawn in order from ``random.Random(seed)``), so
the result depends only on the options, never on ``jobs`` or timing.
"""

from __future__ import annotations

import itertools
import random
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from backends import make_backend
from backends.base import Backend
from backends.puzzle import Puzzle
from harness.puzzles.generate.carving import carve
from harness.puzzles.generate.climbing import climb
from harness.puzzles.generate.common import SINGLES_BACKEND, GenerateError
from harness.puzzles.generate.grids import random_grid
from harness.puzzles.generate.hardness import effort, needs_guess, rate_tier
from harness.puzzles.generate.options import GenerateOptions

#: How many candidates per wanted puzzle :func:`generate` tries, without a pool, before
#: giving up on ``require_guess`` or ``difficulty`` (4x4 puzzles, for one, hardly ever
#: need a guess).
MAX_TRIES_PER_PUZZLE = 200
#: For ``difficulty="needs-guess"``, rare: 6 of 1000 random minimal 9x9 puzzles (seed 2).
MAX_TRIES_PER_RARE_PUZZLE = 2000

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Candidate:
    """One generated puzzle: its index in the pool, the puzzle, and how hard it was.

    ``nodes`` is the ranking backend's ``nodes`` with ``limit=1``; ``needs_guess`` is None
    when it was not asked for, ``tier`` (:mod:`harness.puzzles.rating`'s) likewise, and
    ``start_nodes`` is the nodes before the adversarial climb (None without one).
    """

    index: int
    puzzle: Puzzle
    nodes: int
    needs_guess: bool | None = None
    tier: str | None = None
    start_nodes: int | None = None


@dataclass(frozen=True)
class Generated:
    """The kept puzzles (in output order) and how many candidates were made to find them."""

    options: GenerateOptions
    kept: tuple[Candidate, ...]
    made: int


_BACKENDS: dict[str, Backend] = {}


def _backend(spec: str) -> Backend:
    """One backend per spec per process (backends keep no state between solves)."""
    if spec not in _BACKENDS:
        _BACKENDS[spec] = make_backend(spec)
    return _BACKENDS[spec]


def make_candidate(
    seed: int,
    options: GenerateOptions | None = None,
    index: int = 0,
    stage: Progress | None = None,
) -> Candidate:
    """The puzzle made from ``random.Random(seed)`` as ``options`` say (default: the defaults).

    A random grid of ``options.size``, carved with ``options.check_backend``; ranked by
    ``options.backend``'s nodes, or, with ``options.adversarial``, hill-climbed for
    ``options.iterations`` moves to raise that backend's nodes, which then rank it.
    ``require_guess`` fills ``Candidate.needs_guess``, ``difficulty`` ``Candidate.tier``.
    ``stage``, if given, is told each step as it starts.
    """
    options = options or GenerateOptions()
    say = stage or (lambda _message: None)
    name = f"candidate {index + 1}"
    rng = random.Random(seed)
    say(f"{name}: filling a random {options.size}x{options.size} grid")
    solution = random_grid(options.box, rng)
    check = _backend(options.check_backend)
    say(f"{name}: carving, uniqueness by {options.check_backend} (limit=2)")
    puzzle = carve(solution, rng, check, options.min_givens, options.symmetry)
    say(f"{name}: {puzzle.givens} givens; solving it with {options.ranking_backend} (limit=1)")
    start = None
    if options.adversarial is not None:
        target = _backend(options.adversarial)
        found = climb(
            puzzle,
            solution,
            rng,
            target,
            check,
            options.iterations,
            options.symmetry,
            options.min_givens,
        )
        puzzle, nodes, start = found.puzzle, found.nodes, found.start_nodes
    else:
        nodes = effort(_backend(options.backend), puzzle, solution)
    if options.require_guess:
        say(f"{name}: solving it with {SINGLES_BACKEND}: does it need a guess?")
    guess = needs_guess(puzzle, _backend(SINGLES_BACKEND)) if options.require_guess else None
    if options.difficulty is not None:
        say(f"{name}: rating its difficulty")
    tier = rate_tier(puzzle) if options.difficulty is not None else None
    return Candidate(index, puzzle, nodes, guess, tier, start)


def candidate_seeds(seed: int) -> Iterator[int]:
    """The seed of candidate 0, 1, 2, ...: 64-bit draws from ``random.Random(seed)``."""
    master = random.Random(seed)
    while True:
        yield master.getrandbits(64)


def _candidates(
    options: GenerateOptions, jobs: int, limit: int | None, stage: Progress
) -> Iterator[Candidate]:
    """Candidates 0, 1, 2, ... (at most ``limit``), in index order, made on ``jobs`` cores;
    on one, ``stage`` is told each step of each candidate.

    With several jobs, a window of ``4 * jobs`` candidates is in flight; closing the
    iterator early cancels those not started.
    """
    seeds = candidate_seeds(options.seed)
    indices = iter(range(limit) if limit is not None else itertools.count())
    if jobs <= 1:
        for i in indices:
            yield make_candidate(next(seeds), options, i, stage)
        return
    stage(f"making {options.size}x{options.size} candidates on {jobs} worker processes")
    from concurrent.futures import Future, ProcessPoolExecutor  # only for jobs > 1

    executor = ProcessPoolExecutor(max_workers=jobs)

    def submit(index: int) -> Future[Candidate]:
        return executor.submit(make_candidate, next(seeds), options, index)

    try:
        window = deque(submit(i) for i in itertools.islice(indices, 4 * jobs))
        while window:
            done = window.popleft().result()
            window.extend(submit(i) for i in itertools.islice(indices, 1))
            yield done
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


def max_tries(options: GenerateOptions) -> int | None:
    """How many candidates :func:`generate` makes without a pool before giving up."""
    if not options.filtered:
        return None
    per_puzzle = (
        MAX_TRIES_PER_RARE_PUZZLE if options.difficulty == "needs-guess" else MAX_TRIES_PER_PUZZLE
    )
    return options.count * per_puzzle


def generate(
    options: GenerateOptions,
    jobs: int = 1,
    progress: Progress | None = None,
    stage: Progress | None = None,
) -> Generated:
    """Make the puzzles ``options`` ask for. Deterministic in ``options``; ``jobs`` only
    changes the speed. ``progress`` is told each candidate kept (or made, with a pool);
    ``stage`` what is being done now, many times a second with small grids.

    * Without a pool: candidates 0, 1, 2, ... in order, keeping each that qualifies
      (``require_guess``, ``difficulty``) until ``count`` are kept; output in that order.
    * With a pool: exactly ``pool`` candidates; of those that qualify, the ``count`` with the
      most nodes (ties: lower index first), hardest first.
    """
    options.validate()
    say = progress or (lambda _message: None)
    doing = stage or (lambda _message: None)
    if options.pool is None:
        return _first_qualifying(options, jobs, say, doing)
    return _hardest_of_pool(options, options.pool, jobs, say, doing)


def _first_qualifying(
    options: GenerateOptions, jobs: int, say: Progress, stage: Progress
) -> Generated:
    """The first ``count`` candidates that qualify, in index order."""
    kept: list[Candidate] = []
    made = 0
    stream = _candidates(options, jobs, max_tries(options), stage)
    for candidate in stream:
        made += 1
        if options.qualifies(candidate):
            kept.append(candidate)
            say(f"kept {len(kept)}/{options.count} of {made} made")
        stage(f"{made} made, {len(kept)}/{options.count} kept")
        if len(kept) == options.count:
            stream.close()
            return Generated(options, tuple(kept), made)
    raise GenerateError(
        f"only {len(kept)} of {made} {_grid(options)} candidates {_wanted_long(options)}; "
        f"wanted {options.count}"
    )


def _hardest_of_pool(
    options: GenerateOptions, size: int, jobs: int, say: Progress, stage: Progress
) -> Generated:
    """Of ``size`` candidates, the ``count`` qualifying ones with the most nodes."""
    pool: list[Candidate] = []
    every = max(10, size // 50)
    for candidate in _candidates(options, jobs, size, stage):
        pool.append(candidate)
        if len(pool) % every == 0 or len(pool) == size:
            say(f"made {len(pool)}/{size}")
        stage(f"made {len(pool)}/{size}")
    qualifying = [c for c in pool if options.qualifies(c)]
    if len(qualifying) < options.count:
        raise GenerateError(
            f"only {len(qualifying)} of the {size} {_grid(options)} candidates "
            f"{_wanted_long(options)}; wanted {options.count} (try a larger --pool)"
        )
    ranked = sorted(qualifying, key=lambda c: (-c.nodes, c.index))
    return Generated(options, tuple(ranked[: options.count]), len(pool))


def _grid(options: GenerateOptions) -> str:
    return f"{options.size}x{options.size}"


def _wanted_long(options: GenerateOptions) -> str:
    return options.wanted().replace("need a guess", "need a guess beyond singles")
