"""The puzzle generator: random complete grids, carved into minimal unique-solution puzzles.

How one puzzle is made (:func:`make_candidate`), all from one ``random.Random``:

1. :func:`random_grid` fills an empty grid by randomized search (most constrained cell
   first, ties and value order drawn from the generator), restarting on a rare dead end.
2. :func:`carve` visits the clue groups in a random order and empties each one whose
   removal keeps the solution unique, uniqueness being a registry backend's ``limit=2``
   solve. Without symmetry a group is one cell, and the result is **minimal**: removing any
   one given leaves two or more solutions (:func:`is_minimal`). One pass suffices, because
   a clue that was needed stays needed as more clues go (fewer givens never rule out a
   solution). With a symmetry (:data:`SYMMETRIES`) a group is the set of cells the symmetry
   maps onto each other, and the result is minimal *for its symmetry*: no group can go,
   though a single given of a group sometimes could.
3. With ``adversarial``, :func:`climb` hill-climbs from that puzzle to raise a chosen
   backend's ``nodes`` (see *Adversarial mode* below).
4. The ranking backend (default ``mrv``; the adversarial backend in that mode) solves it
   once with ``limit=1``; its ``nodes`` rank hardness. With ``require_guess``,
   ``mrv:inference=singles`` also solves it and a puzzle it solves with ``guesses == 0``
   (naked and hidden singles alone) is dropped. With ``difficulty``, :mod:`harness.rating`
   rates it and a puzzle of another tier is dropped.

:func:`generate` makes a pool of such candidates, candidate ``i`` from its own seed (drawn
in order from ``random.Random(seed)``), so the result depends only on the options, never on
``jobs`` or timing. :func:`render` writes the file: ``#`` header lines, including the
command that reproduces it, then one canonical puzzle per line.

Adversarial mode
----------------
:func:`climb` keeps the puzzle's solution grid fixed and repeats ``iterations`` times: a
move (:func:`mutate`) fills one empty clue group from the solution and, half the time,
empties one given group; a result with more than one solution is refused; otherwise
:func:`minimize` then empties every group it can (the filled group last), so every puzzle
on the way stays unique and minimal. The move is kept when the target backend's ``nodes``
(``limit=1``) do not fall, so the climb can cross plateaus and never ends below its start.
Every random choice comes from the candidate's own generator: same seed, same climb.

Difficulty targeting
--------------------
``difficulty`` keeps the candidates :func:`harness.rating.rate` puts in that tier (rated with
no time limit, so the output never depends on timing). Random minimal 9x9 puzzles fall in
every tier, so filtering fresh candidates reaches each: of 1000 (seed 2), 421 were easy, 185
medium, 38 hard, 350 expert and 6 needs-guess. Climbing the rating's score instead was
tried and found needs-guess puzzles less often per solve than fresh candidates did.
"""

from __future__ import annotations

import itertools
import random
import shlex
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from backends import make_backend
from backends.base import Backend, SolveResult, Status
from backends.errors import SudokuError
from backends.puzzle import SIZES, Puzzle, geometry

#: The backend whose ``nodes`` rank hardness, unless told otherwise.
DEFAULT_BACKEND = "mrv"
#: The backend that tells whether naked and hidden singles alone solve a puzzle.
SINGLES_BACKEND = "mrv:inference=singles"
#: The backend that proves uniqueness while carving (any correct one gives the same puzzles;
#: singles propagation makes ``limit=2`` solves of near-minimal puzzles fastest).
CHECK_BACKEND = SINGLES_BACKEND
#: How many candidates per wanted puzzle :func:`generate` tries, without a pool, before
#: giving up on ``require_guess`` or ``difficulty`` (4x4 puzzles, for one, hardly ever
#: need a guess).
MAX_TRIES_PER_PUZZLE = 200
#: For ``difficulty="needs-guess"``, rare: 6 of 1000 random minimal 9x9 puzzles (seed 2).
MAX_TRIES_PER_RARE_PUZZLE = 2000
#: Hill-climbing moves per candidate in adversarial mode, unless told otherwise.
DEFAULT_ITERATIONS = 50
#: The share of adversarial moves that also empty a given group (the rest only fill one).
MOVE_SHARE = 0.5

Progress = Callable[[str], None]

__all__ = [
    "CHECK_BACKEND",
    "DEFAULT_BACKEND",
    "DEFAULT_ITERATIONS",
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


class GenerateError(SudokuError):
    """The generator cannot do what it was asked (bad option, too few qualifying puzzles)."""


# --------------------------------------------------------------------------- complete grids


def random_grid(box: int, rng: random.Random) -> Puzzle:
    """A random complete grid of box side ``box`` (2..5), drawn only from ``rng``.

    Depth-first search with forward checking over bitmask candidates: the empty cell with
    the fewest candidates first (ties broken by ``rng``), its values in an ``rng`` order. A
    search that exceeds its step budget restarts from scratch with the same ``rng``.
    """
    geo = geometry(box)
    budget = 20 * geo.ncells
    while True:
        grid = _fill(box, rng, budget)
        if grid is not None:
            return Puzzle(box, grid)


def _fill(box: int, rng: random.Random, budget: int) -> tuple[int, ...] | None:
    """One randomized fill attempt; ``None`` when it ran out of ``budget`` steps."""
    geo = geometry(box)
    n, ncells, peers = geo.n, geo.ncells, geo.peers
    grid = [0] * ncells
    cand = [(1 << n) - 1] * ncells
    # Each frame: (cell, values still to try, candidate masks to restore on undo).
    stack: list[tuple[int, list[int], list[int]]] = []
    steps = 0
    while True:
        cell = _most_constrained(grid, cand, rng)
        if cell is None:
            return tuple(grid)
        values = [d + 1 for d in range(n) if cand[cell] >> d & 1]
        rng.shuffle(values)
        stack.append((cell, values, cand[:]))
        # Take the next value of the top frame, undoing frames that have none left.
        while True:
            steps += 1
            if steps > budget or not stack:
                return None
            cell, values, saved = stack[-1]
            cand[:] = saved
            grid[cell] = 0
            if not values:
                stack.pop()
                continue
            digit = values.pop()
            grid[cell] = digit
            bit = ~(1 << (digit - 1))
            dead = False
            for p in peers[cell]:
                if not grid[p]:
                    cand[p] &= bit
                    dead = dead or not cand[p]
            if not dead:
                break


def _most_constrained(grid: list[int], cand: list[int], rng: random.Random) -> int | None:
    """An empty cell with the fewest candidates (``rng`` breaks ties), or None if full."""
    best: list[int] = []
    fewest = 1 << 30
    for cell, digit in enumerate(grid):
        if digit:
            continue
        count = cand[cell].bit_count()
        if count < fewest:
            fewest, best = count, [cell]
        elif count == fewest:
            best.append(cell)
    return rng.choice(best) if best else None


# --------------------------------------------------------------------------- symmetry

#: A symmetry: the images of cell (row, col) of an ``n`` x ``n`` grid under its generators.
Symmetry = Callable[[int, int, int], tuple[tuple[int, int], ...]]


def no_symmetry(row: int, col: int, n: int) -> tuple[tuple[int, int], ...]:
    """No symmetry: every cell is a group of its own."""
    return ()


def half_turn(row: int, col: int, n: int) -> tuple[tuple[int, int], ...]:
    """A half turn about the centre (the classic newspaper symmetry)."""
    return ((n - 1 - row, n - 1 - col),)


def quarter_turn(row: int, col: int, n: int) -> tuple[tuple[int, int], ...]:
    """A quarter turn about the centre (groups of four, one in the centre)."""
    return ((col, n - 1 - row),)


def mirror(row: int, col: int, n: int) -> tuple[tuple[int, int], ...]:
    """A reflection in the vertical centre line: left and right swap."""
    return ((row, n - 1 - col),)


def diagonal(row: int, col: int, n: int) -> tuple[tuple[int, int], ...]:
    """A reflection in the main diagonal (top left to bottom right)."""
    return ((col, row),)


def antidiagonal(row: int, col: int, n: int) -> tuple[tuple[int, int], ...]:
    """A reflection in the anti-diagonal (top right to bottom left)."""
    return ((n - 1 - col, n - 1 - row),)


def dihedral(row: int, col: int, n: int) -> tuple[tuple[int, int], ...]:
    """Every rotation and reflection of the square (groups of up to eight)."""
    return (*quarter_turn(row, col, n), *mirror(row, col, n))


#: The symmetries ``--symmetry`` takes, by name.
SYMMETRIES: dict[str, Symmetry] = {
    "none": no_symmetry,
    "rotational": half_turn,
    "quarter": quarter_turn,
    "mirror": mirror,
    "diagonal": diagonal,
    "antidiagonal": antidiagonal,
    "dihedral": dihedral,
}


@cache
def clue_groups(box: int, symmetry: str = "none") -> tuple[tuple[int, ...], ...]:
    """The groups of cells that are emptied or filled together under ``symmetry``.

    Each group is an orbit of the symmetry (sorted cells), and the groups come in the order
    of their first cell; without symmetry, ``((0,), (1,), ...)``.
    """
    if symmetry not in SYMMETRIES:
        raise GenerateError(f"symmetry {symmetry!r} is not one of {', '.join(SYMMETRIES)}")
    images = SYMMETRIES[symmetry]
    n = geometry(box).n
    seen: set[int] = set()
    groups: list[tuple[int, ...]] = []
    for start in range(n * n):
        if start in seen:
            continue
        orbit, todo = {start}, [start]
        while todo:
            row, col = divmod(todo.pop(), n)
            for r, c in images(row, col, n):
                if r * n + c not in orbit:
                    orbit.add(r * n + c)
                    todo.append(r * n + c)
        seen |= orbit
        groups.append(tuple(sorted(orbit)))
    return tuple(groups)


def is_symmetric(puzzle: Puzzle, symmetry: str) -> bool:
    """True when every clue group of ``symmetry`` is all given or all empty in ``puzzle``."""
    return all(
        len({bool(puzzle.cells[c]) for c in group}) == 1
        for group in clue_groups(puzzle.box, symmetry)
    )


# --------------------------------------------------------------------------- carving


def solve_checked(backend: Backend, puzzle: Puzzle, limit: int) -> SolveResult:
    """``backend``'s answer for ``puzzle``; an answer other than SOLVED/UNSAT is an error."""
    result = backend.solve(backend.encode(puzzle), limit=limit)
    if result.status not in (Status.SOLVED, Status.UNSAT):
        raise GenerateError(
            f"backend {backend.spec!r} returned {result.status} on {puzzle.to_string()}"
            f"{': ' + result.message if result.message else ''}"
        )
    return result


def count_solutions(backend: Backend, puzzle: Puzzle, limit: int = 2) -> int:
    """How many solutions ``backend`` finds for ``puzzle``, up to ``limit``."""
    return solve_checked(backend, puzzle, limit).solutions_found


def minimize(
    puzzle: Puzzle,
    rng: random.Random,
    backend: Backend,
    symmetry: str = "none",
    min_givens: int = 0,
    last: tuple[int, ...] = (),
) -> Puzzle:
    """Empty the given clue groups of ``puzzle`` in a random order while it stays unique.

    A group stays emptied when ``backend`` finds exactly one solution with ``limit=2``. The
    group ``last``, if given, is tried after all the others. No group is emptied that would
    leave fewer than ``min_givens`` givens, and the pass stops once exactly ``min_givens``
    are left (0: never). ``puzzle`` must have a unique solution.
    """
    groups = [g for g in clue_groups(puzzle.box, symmetry) if puzzle.cells[g[0]] and g != last]
    rng.shuffle(groups)
    if last and puzzle.cells[last[0]]:
        groups.append(last)
    cells = list(puzzle.cells)
    givens = puzzle.givens
    for group in groups:
        if givens <= min_givens:
            break
        if givens - len(group) < min_givens:
            continue
        digits = [cells[c] for c in group]
        for c in group:
            cells[c] = 0
        if count_solutions(backend, Puzzle(puzzle.box, tuple(cells))) == 1:
            givens -= len(group)
        else:
            for c, digit in zip(group, digits, strict=True):
                cells[c] = digit
    return Puzzle(puzzle.box, tuple(cells))


def carve(
    solution: Puzzle,
    rng: random.Random,
    backend: Backend,
    min_givens: int = 0,
    symmetry: str = "none",
) -> Puzzle:
    """Empty the clue groups of ``solution`` in a random order while the solution stays unique.

    That is :func:`minimize` from the full grid: with ``min_givens=0`` and no symmetry the
    result is a minimal puzzle. Without symmetry the random order is the same shuffle of
    the cells as it always was, so older outputs stay reproducible.
    """
    return minimize(solution, rng, backend, symmetry, min_givens)


def removable_groups(
    puzzle: Puzzle, backend: Backend, symmetry: str = "none"
) -> list[tuple[int, ...]]:
    """The given clue groups whose removal alone keeps ``puzzle``'s solution unique."""
    found = []
    for group in clue_groups(puzzle.box, symmetry):
        if puzzle.cells[group[0]]:
            cells = list(puzzle.cells)
            for c in group:
                cells[c] = 0
            if count_solutions(backend, Puzzle(puzzle.box, tuple(cells))) == 1:
                found.append(group)
    return found


def is_minimal(puzzle: Puzzle, backend: Backend, symmetry: str = "none") -> bool:
    """True when ``puzzle`` is unique and removing any one given (group, with ``symmetry``)
    leaves two or more solutions, as ``backend`` counts with ``limit=2``."""
    if count_solutions(backend, puzzle) != 1:
        return False
    return not removable_groups(puzzle, backend, symmetry)


def needs_guess(puzzle: Puzzle, singles: Backend | None = None) -> bool:
    """True when naked and hidden singles alone do not solve ``puzzle``.

    That is, ``mrv:inference=singles`` (or ``singles``) makes at least one guess.
    """
    singles = singles or make_backend(SINGLES_BACKEND)
    result = solve_checked(singles, puzzle, limit=1)
    if result.guesses is None:
        raise GenerateError(f"backend {singles.spec!r} does not count guesses")
    return result.guesses > 0


# --------------------------------------------------------------------------- difficulty


def difficulty_tiers() -> tuple[str, ...]:
    """The tiers ``difficulty`` may name: :data:`harness.rating.TIERS`, easiest first."""
    try:
        from harness.rating import TIERS
    except ImportError as exc:  # pragma: no cover - only while harness.rating is missing
        raise GenerateError(f"difficulty targeting needs harness.rating: {exc}") from None
    return TIERS


def rate_tier(puzzle: Puzzle) -> str:
    """The tier :func:`harness.rating.rate` gives ``puzzle`` (easy ... needs-guess)."""
    from harness.rating import rate

    return rate(puzzle, time_limit=None).tier


# --------------------------------------------------------------------------- adversarial


def effort(backend: Backend, puzzle: Puzzle, solution: Puzzle | None = None) -> int:
    """``backend``'s ``nodes`` for ``puzzle`` with ``limit=1``.

    Raises :class:`GenerateError` when the backend does not count nodes, or when it finds
    another grid than ``solution`` (if given).
    """
    result = solve_checked(backend, puzzle, limit=1)
    if result.nodes is None:
        raise GenerateError(f"backend {backend.spec!r} does not count nodes; it cannot rank")
    if solution is not None and result.solution != solution.cells:
        raise GenerateError(f"backend {backend.spec!r} solved {puzzle} to another grid")
    return result.nodes


def mutate(
    puzzle: Puzzle,
    solution: Puzzle,
    rng: random.Random,
    check: Backend,
    symmetry: str = "none",
    min_givens: int = 0,
) -> Puzzle | None:
    """One adversarial move from the unique ``puzzle`` (see the module docstring).

    Fills a random empty clue group from ``solution``; with probability
    :data:`MOVE_SHARE` also empties a random given group, and returns None when that leaves
    more than one solution. Then :func:`minimize` (the filled group last). The result is
    unique, and minimal for ``symmetry``; None also when no group is empty.
    """
    groups = clue_groups(puzzle.box, symmetry)
    given = [g for g in groups if puzzle.cells[g[0]]]
    empty = [g for g in groups if not puzzle.cells[g[0]]]
    if not empty:
        return None
    cells = list(puzzle.cells)
    filled = rng.choice(empty)
    for c in filled:
        cells[c] = solution.cells[c]
    if given and rng.random() < MOVE_SHARE:
        for c in rng.choice(given):
            cells[c] = 0
        if count_solutions(check, Puzzle(puzzle.box, tuple(cells))) != 1:
            return None
    return minimize(Puzzle(puzzle.box, tuple(cells)), rng, check, symmetry, min_givens, filled)


@dataclass(frozen=True)
class Climb:
    """The end of one hill-climb: the puzzle, its nodes, the nodes it started from, and how
    many of the ``iterations`` moves were kept."""

    puzzle: Puzzle
    nodes: int
    start_nodes: int
    kept: int
    iterations: int


def climb(
    puzzle: Puzzle,
    solution: Puzzle,
    rng: random.Random,
    target: Backend,
    check: Backend,
    iterations: int = DEFAULT_ITERATIONS,
    symmetry: str = "none",
    min_givens: int = 0,
) -> Climb:
    """Hill-climb from ``puzzle`` (unique, solved by ``solution``) to raise ``target``'s nodes.

    ``iterations`` moves of :func:`mutate`, each kept when the nodes do not fall; ``check``
    proves uniqueness. Deterministic in ``rng``'s state.
    """
    best, score = puzzle, effort(target, puzzle, solution)
    start, kept = score, 0
    for _ in range(iterations):
        trial = mutate(best, solution, rng, check, symmetry, min_givens)
        if trial is None or trial == best:
            continue
        nodes = effort(target, trial, solution)
        if nodes >= score:
            best, score, kept = trial, nodes, kept + 1
    return Climb(best, score, start, kept, iterations)


# --------------------------------------------------------------------------- candidates


@dataclass(frozen=True)
class Candidate:
    """One generated puzzle: its index in the pool, the puzzle, and how hard it was.

    ``nodes`` is the ranking backend's ``nodes`` with ``limit=1``; ``needs_guess`` is None
    when it was not asked for, ``tier`` (:mod:`harness.rating`'s) likewise, and
    ``start_nodes`` is the nodes before the adversarial climb (None without one).
    """

    index: int
    puzzle: Puzzle
    nodes: int
    needs_guess: bool | None = None
    tier: str | None = None
    start_nodes: int | None = None


@dataclass(frozen=True)
class _Job:
    index: int
    seed: int
    box: int
    backend: str
    check_backend: str
    require_guess: bool
    min_givens: int
    symmetry: str = "none"
    difficulty: str | None = None
    adversarial: str | None = None
    iterations: int = DEFAULT_ITERATIONS


_BACKENDS: dict[str, Backend] = {}


def _backend(spec: str) -> Backend:
    """One backend per spec per process (backends keep no state between solves)."""
    if spec not in _BACKENDS:
        _BACKENDS[spec] = make_backend(spec)
    return _BACKENDS[spec]


def make_candidate(
    seed: int,
    box: int = 3,
    backend: str = DEFAULT_BACKEND,
    check_backend: str = CHECK_BACKEND,
    require_guess: bool = False,
    min_givens: int = 0,
    index: int = 0,
    symmetry: str = "none",
    difficulty: str | None = None,
    adversarial: str | None = None,
    iterations: int = DEFAULT_ITERATIONS,
) -> Candidate:
    """The puzzle made from ``random.Random(seed)``, ranked by ``backend``'s nodes.

    ``check_backend`` proves uniqueness while carving; any correct backend gives the same
    puzzle, so it only changes the speed. With ``adversarial`` (a backend spec) the puzzle
    is hill-climbed for ``iterations`` moves to raise that backend's nodes, which then rank
    it instead of ``backend``'s. ``difficulty`` (a tier name) fills ``Candidate.tier``.
    """
    return _run_job(
        _Job(
            index,
            seed,
            box,
            backend,
            check_backend,
            require_guess,
            min_givens,
            symmetry,
            difficulty,
            adversarial,
            iterations,
        )
    )


def _run_job(job: _Job) -> Candidate:
    rng = random.Random(job.seed)
    solution = random_grid(job.box, rng)
    check = _backend(job.check_backend)
    puzzle = carve(solution, rng, check, job.min_givens, job.symmetry)
    start = None
    if job.adversarial is not None:
        target = _backend(job.adversarial)
        found = climb(
            puzzle, solution, rng, target, check, job.iterations, job.symmetry, job.min_givens
        )
        puzzle, nodes, start = found.puzzle, found.nodes, found.start_nodes
    else:
        nodes = effort(_backend(job.backend), puzzle, solution)
    guess = needs_guess(puzzle, _backend(SINGLES_BACKEND)) if job.require_guess else None
    tier = rate_tier(puzzle) if job.difficulty is not None else None
    return Candidate(job.index, puzzle, nodes, guess, tier, start)


# --------------------------------------------------------------------------- the pool


@dataclass(frozen=True)
class GenerateOptions:
    """What ``harness generate`` was asked for. ``pool=None`` means "no ranking".

    ``symmetry`` names one of :data:`SYMMETRIES`; ``difficulty`` one of
    :func:`difficulty_tiers` (None: any); ``adversarial`` a backend spec whose nodes each
    candidate climbs for ``iterations`` moves (None: no climb).
    """

    size: int = 9
    count: int = 1
    seed: int = 0
    pool: int | None = None
    backend: str = DEFAULT_BACKEND
    require_guess: bool = False
    check_backend: str = CHECK_BACKEND
    min_givens: int = 0
    symmetry: str = "none"
    difficulty: str | None = None
    adversarial: str | None = None
    iterations: int = DEFAULT_ITERATIONS

    @property
    def ranking_backend(self) -> str:
        """The spec whose nodes rank (and, adversarially, are climbed)."""
        return self.adversarial if self.adversarial is not None else self.backend

    @property
    def filtered(self) -> bool:
        """True when some candidates may be dropped (``require_guess`` or ``difficulty``)."""
        return self.require_guess or self.difficulty is not None

    def validate(self) -> None:
        """Raise :class:`GenerateError` (or the registry's error) naming a bad option."""
        if self.size not in SIZES:
            raise GenerateError(f"size {self.size!r} is not one of {sorted(SIZES)}")
        if self.count < 1:
            raise GenerateError(f"count must be at least 1, got {self.count!r}")
        if self.pool is not None and self.pool < self.count:
            raise GenerateError(f"pool {self.pool!r} is smaller than count {self.count!r}")
        if not 0 <= self.min_givens <= self.size * self.size:
            raise GenerateError(f"min-givens {self.min_givens!r} is out of range")
        if self.symmetry not in SYMMETRIES:
            raise GenerateError(f"symmetry {self.symmetry!r} is not one of {', '.join(SYMMETRIES)}")
        if self.difficulty is not None and self.difficulty not in difficulty_tiers():
            raise GenerateError(
                f"difficulty {self.difficulty!r} is not one of {', '.join(difficulty_tiers())}"
            )
        if self.iterations < 0:
            raise GenerateError(f"iterations must be at least 0, got {self.iterations!r}")
        if self.adversarial is not None and self.backend not in (
            DEFAULT_BACKEND,
            self.adversarial,
        ):
            raise GenerateError(
                f"--adversarial {self.adversarial} ranks by its own nodes; "
                f"drop --backend {self.backend}"
            )
        specs = [self.ranking_backend, self.check_backend, SINGLES_BACKEND]
        for spec in specs:
            backend = make_backend(spec)  # unknown names and bad options fail here
            reason = type(backend).available()
            if reason is not None:
                raise GenerateError(f"backend {spec!r} is unavailable: {reason}")
        if not type(make_backend(self.ranking_backend)).deterministic:
            raise GenerateError(
                f"backend {self.ranking_backend!r} is not deterministic, so its nodes cannot "
                "rank puzzles reproducibly"
            )

    def command(self) -> str:
        """The ``harness generate`` command line that makes exactly this output."""
        args = ["harness", "generate", "--size", str(self.size), "--count", str(self.count)]
        args += ["--seed", str(self.seed)]
        if self.pool is not None:
            args += ["--pool", str(self.pool)]
        if self.adversarial is None:
            args += ["--backend", self.backend]
        if self.require_guess:
            args.append("--require-guess")
        if self.min_givens:
            args += ["--min-givens", str(self.min_givens)]
        if self.check_backend != CHECK_BACKEND:
            args += ["--check-backend", self.check_backend]
        if self.symmetry != "none":
            args += ["--symmetry", self.symmetry]
        if self.difficulty is not None:
            args += ["--difficulty", self.difficulty]
        if self.adversarial is not None:
            args += ["--adversarial", self.adversarial, "--iterations", str(self.iterations)]
        return shlex.join(args)

    def wanted(self) -> str:
        """What a kept candidate must be, in words ('need a guess', 'are rated easy')."""
        words = []
        if self.require_guess:
            words.append("need a guess")
        if self.difficulty is not None:
            words.append(f"are rated {self.difficulty}")
        return " and ".join(words)

    def qualifies(self, candidate: Candidate) -> bool:
        """True when ``candidate`` passes ``require_guess`` and ``difficulty``."""
        if self.require_guess and candidate.needs_guess is False:
            return False
        return self.difficulty is None or candidate.tier == self.difficulty


@dataclass(frozen=True)
class Generated:
    """The kept puzzles (in output order) and how many candidates were made to find them."""

    options: GenerateOptions
    kept: tuple[Candidate, ...]
    made: int


def candidate_seeds(seed: int) -> Iterator[int]:
    """The seed of candidate 0, 1, 2, ...: 64-bit draws from ``random.Random(seed)``."""
    master = random.Random(seed)
    while True:
        yield master.getrandbits(64)


def _candidates(options: GenerateOptions, jobs: int, limit: int | None) -> Iterator[Candidate]:
    """Candidates 0, 1, 2, ... (at most ``limit``), in index order, made on ``jobs`` cores.

    With several jobs, a window of ``4 * jobs`` candidates is in flight; closing the
    iterator early cancels those not started.
    """
    seeds = candidate_seeds(options.seed)
    box = SIZES[options.size]
    indices = iter(range(limit) if limit is not None else itertools.count())

    def job(index: int) -> _Job:
        return _Job(
            index,
            next(seeds),
            box,
            options.backend,
            options.check_backend,
            options.require_guess,
            options.min_givens,
            options.symmetry,
            options.difficulty,
            options.adversarial,
            options.iterations,
        )

    if jobs <= 1:
        for i in indices:
            yield _run_job(job(i))
        return
    from concurrent.futures import Future, ProcessPoolExecutor  # only for jobs > 1

    executor = ProcessPoolExecutor(max_workers=jobs)
    try:
        window: deque[Future[Candidate]] = deque(
            executor.submit(_run_job, job(i)) for i in itertools.islice(indices, 4 * jobs)
        )
        while window:
            done = window.popleft().result()
            window.extend(executor.submit(_run_job, job(i)) for i in itertools.islice(indices, 1))
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
    options: GenerateOptions, jobs: int = 1, progress: Progress | None = None
) -> Generated:
    """Make the puzzles ``options`` ask for. Deterministic in ``options``; ``jobs`` only
    changes the speed.

    * Without a pool: candidates 0, 1, 2, ... in order, keeping each that qualifies
      (``require_guess``, ``difficulty``) until ``count`` are kept; output in that order.
    * With a pool: exactly ``pool`` candidates; of those that qualify, the ``count`` with the
      most nodes (ties: lower index first), hardest first.
    """
    options.validate()
    say = progress or (lambda _message: None)
    grid = f"{options.size}x{options.size}"
    if options.pool is None:
        kept: list[Candidate] = []
        made = 0
        stream = _candidates(options, jobs, max_tries(options))
        for candidate in stream:
            made += 1
            if options.qualifies(candidate):
                kept.append(candidate)
                say(f"kept {len(kept)}/{options.count} of {made} made")
            if len(kept) == options.count:
                stream.close()
                return Generated(options, tuple(kept), made)
        raise GenerateError(
            f"only {len(kept)} of {made} {grid} candidates {_wanted_long(options)}; "
            f"wanted {options.count}"
        )
    pool: list[Candidate] = []
    every = max(10, options.pool // 50)
    for candidate in _candidates(options, jobs, options.pool):
        pool.append(candidate)
        if len(pool) % every == 0 or len(pool) == options.pool:
            say(f"made {len(pool)}/{options.pool}")
    qualifying = [c for c in pool if options.qualifies(c)]
    if len(qualifying) < options.count:
        raise GenerateError(
            f"only {len(qualifying)} of the {options.pool} {grid} candidates "
            f"{_wanted_long(options)}; wanted {options.count} (try a larger --pool)"
        )
    ranked = sorted(qualifying, key=lambda c: (-c.nodes, c.index))
    return Generated(options, tuple(ranked[: options.count]), len(pool))


def _wanted_long(options: GenerateOptions) -> str:
    return options.wanted().replace("need a guess", "need a guess beyond singles")


# --------------------------------------------------------------------------- output

#: How each symmetry's clue groups are described in a file's header.
SYMMETRY_WORDS: dict[str, str] = {
    "rotational": "a half turn about the centre",
    "quarter": "a quarter turn about the centre",
    "mirror": "a reflection in the vertical centre line",
    "diagonal": "a reflection in the main diagonal",
    "antidiagonal": "a reflection in the anti-diagonal",
    "dihedral": "every rotation and reflection of the square",
}


def describe(generated: Generated) -> list[str]:
    """The header lines (without ``# ``) that say what the file holds and how it was made.

    The options of the first generator (size, count, seed, pool, backend, require_guess,
    min_givens, check_backend) give exactly the lines they always gave, so that files made
    before symmetry, difficulty and adversarial mode still reproduce byte for byte.
    """
    import statistics  # only for the summary

    opt = generated.options
    kept = generated.kept
    nodes = [c.nodes for c in kept]
    givens = [c.puzzle.givens for c in kept]
    grid = f"{opt.size}x{opt.size}"
    ranker = opt.ranking_backend
    if opt.pool is None and not opt.filtered:
        rule = f"all {opt.count}"
    elif opt.pool is None:
        rule = f"the first {opt.count} that {opt.wanted()}"
    else:
        rule = f"the {opt.count} with the most {ranker} nodes (limit=1)"
        if opt.filtered:
            rule += f",\n  among those that {opt.wanted()}"
    stop = f", stopping at {opt.min_givens} givens" if opt.min_givens else ""
    group = "clue" if opt.symmetry == "none" else "clue group"
    groups = f"{group}s"
    lines = [
        f"{len(kept)} {grid} puzzles, each with a unique solution.",
        *f"Selection: of {generated.made} candidates made from seed {opt.seed}, {rule}.".split(
            "\n"
        ),
        f"Candidate: a random complete grid, then {groups} removed in random order while the",
        f"  solution stays unique ({opt.check_backend}, limit=2){stop}.",
    ]
    extended = opt.symmetry != "none" or opt.difficulty is not None or opt.adversarial
    if opt.symmetry != "none":
        lines += [
            f"Symmetry: {opt.symmetry}; a clue group is the cells mapped onto each other by",
            f"  {SYMMETRY_WORDS[opt.symmetry]}, so the givens have that symmetry.",
        ]
    if extended and not opt.min_givens:
        lines.append(
            "Minimal: removing any one given leaves two or more solutions."
            if opt.symmetry == "none"
            else "Minimal for its symmetry: removing any one clue group leaves two or more "
            "solutions."
        )
    if opt.adversarial is not None:
        start = [c.start_nodes for c in kept if c.start_nodes is not None]
        lines += [
            f"Adversarial: each candidate then hill-climbed for {opt.iterations} moves to raise "
            f"{opt.adversarial} nodes",
            f"  (limit=1); a move fills an empty {group} from the same solution grid and, half "
            "the time,",
            f"  empties a given {group}; it must stay unique, then is made minimal again; it is "
            "kept when",
            f"  the nodes do not fall. {opt.adversarial} nodes before climbing: median "
            f"{_fmt(statistics.median(start))}, min {min(start)}, max {max(start)}.",
        ]
    if opt.require_guess:
        lines += [
            "Need a guess: naked and hidden singles alone do not solve it",
            f"  ({SINGLES_BACKEND} makes at least one guess).",
        ]
    if opt.difficulty is not None:
        lines += [
            f"Difficulty: tier {opt.difficulty} by harness.rating (the logic backend's ladder of",
            f"  human strategies; tiers {', '.join(difficulty_tiers())}).",
        ]
    lines += [
        f"{ranker} nodes (limit=1): median {_fmt(statistics.median(nodes))}, "
        f"min {min(nodes)}, max {max(nodes)}, total {sum(nodes)}.",
        f"Givens: median {_fmt(statistics.median(givens))}, min {min(givens)}, max {max(givens)}.",
        f"reproduce: {opt.command()}",
        "(--out FILE writes these same bytes to FILE; --jobs does not change them.)",
    ]
    return lines


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


# --------------------------------------------------------------------------- variants


def add_wrong_given(puzzle: Puzzle, solution: Puzzle, rng: random.Random) -> Puzzle:
    """``puzzle`` plus one given that clashes with no given yet differs from ``solution``.

    For a unique puzzle the result has no duplicate givens and no solution.
    """
    geo = puzzle.geometry
    choices = [
        (cell, digit)
        for cell in range(geo.ncells)
        if not puzzle.cells[cell]
        for digit in range(1, geo.n + 1)
        if digit != solution.cells[cell] and all(puzzle.cells[p] != digit for p in geo.peers[cell])
    ]
    cell, digit = rng.choice(choices)
    return puzzle.with_cell(cell, digit)


def remove_needed_given(puzzle: Puzzle, rng: random.Random, backend: Backend) -> Puzzle:
    """``puzzle`` less one given whose removal leaves two or more solutions."""
    givens = [cell for cell in range(puzzle.geometry.ncells) if puzzle.cells[cell]]
    rng.shuffle(givens)
    for cell in givens:
        fewer = puzzle.with_cell(cell, 0)
        if count_solutions(backend, fewer) >= 2:
            return fewer
    raise GenerateError(f"no single given of {puzzle} is needed for uniqueness")


def solution_of(backend: Backend, puzzle: Puzzle) -> Puzzle:
    """The (first) solution ``backend`` finds for ``puzzle``."""
    result = solve_checked(backend, puzzle, limit=1)
    if result.solution is None:
        raise GenerateError(f"{puzzle} has no solution")
    return Puzzle(puzzle.box, tuple(result.solution))


#: The most solutions :func:`exact_count` counts before giving up.
EXACT_COUNT_LIMIT = 100_000


def exact_count(backend: Backend, puzzle: Puzzle, limit: int = EXACT_COUNT_LIMIT) -> int:
    """Every solution of ``puzzle``, counted by ``backend``; an error past ``limit``."""
    found = count_solutions(backend, puzzle, limit)
    if found >= limit:
        raise GenerateError(f"{puzzle} has {limit} or more solutions; not counted exactly")
    return found


def batch(size: int, count: int, seed: int, min_givens: int = 0) -> list[Puzzle]:
    """The puzzles of ``harness generate --size SIZE --count COUNT --seed SEED``."""
    options = GenerateOptions(size=size, count=count, seed=seed, min_givens=min_givens)
    return [c.puzzle for c in generate(options).kept]


#: Where ``sizes.txt``'s big puzzles stop carving, so that ``mrv`` solves them quickly.
SIZES_MIN_GIVENS: dict[int, int] = {16: 130, 25: 360}
#: The backend that counts every solution of the multi-solution puzzles.
COUNT_BACKEND = "dlx"


def small_datasets(seed: int = 1, tdoku: bool = False) -> dict[str, str]:
    """The texts of ``datasets/unsolvable.txt``, ``multi.txt`` and ``sizes.txt``.

    Deterministic in ``seed``; ``python -m harness.generate DIR`` writes them into DIR.
    The header of ``multi.txt`` gives each puzzle's exact number of solutions. With
    ``tdoku`` (``--tdoku``), ``unsolvable.txt`` and ``multi.txt`` are written as tdoku's
    ``puzzle:count`` lines instead, so that ``harness run`` checks each backend's UNSAT claim
    or solution count against the file.
    """
    backend = make_backend(DEFAULT_BACKEND)
    counter = make_backend(COUNT_BACKEND)
    rng = random.Random(seed)
    nine, four = batch(9, 4, seed), batch(4, 3, seed)
    flag = " --tdoku" if tdoku else ""
    made = [
        f"# Made by harness.generate.small_datasets(seed={seed}); reproduce:"
        f" python -m harness.generate datasets{flag}",
        f"# It starts from the puzzles of `harness generate --size 9 --count 4 --seed {seed}` and",
        f"# `harness generate --size 4 --count 3 --seed {seed}`.",
    ]
    wrong = [add_wrong_given(p, solution_of(backend, p), rng) for p in (*nine, four[0])]
    unsolvable = [
        "# Puzzles with no solution (UNSAT), 9x9 and 4x4, none with a duplicate given.",
        *made,
        "# Each is a unique puzzle plus one wrong given that clashes with no other given",
        "# (puzzles 1-4 9x9, 5 4x4). (harness.readers refuses duplicate givens as bad lines.)",
    ]
    if tdoku:
        unsolvable += [
            "# Lines are tdoku's puzzle:count form; count 0 (no solution) is what `harness run`",
            "# checks each backend's UNSAT claim against.",
        ]
    unsolvable += [f"{p.to_string()}{':0' if tdoku else ''}" for p in wrong]
    looser = [remove_needed_given(p, rng, backend) for p in (*nine[:3], *four[:2])]
    counts = [exact_count(counter, p) for p in looser]
    multi = [
        "# Puzzles with two or more solutions, 9x9 and 4x4.",
        *made,
        "# Each is a unique minimal puzzle less one given (puzzles 1-3 9x9, 4-5 4x4).",
        f"# Exact solution counts ({COUNT_BACKEND} counted them all), in order: "
        f"{', '.join(map(str, counts))}.",
    ]
    if tdoku:
        multi += [
            "# Lines are tdoku's puzzle:count form; `harness run` checks that min(count, limit)",
            "# solutions are found.",
        ]
    multi += [
        f"{p.to_string()}{f':{k}' if tdoku else ''}" for p, k in zip(looser, counts, strict=True)
    ]
    big = {size: batch(size, 2, seed, SIZES_MIN_GIVENS[size]) for size in (16, 25)}
    sizes = [
        "# Unique-solution puzzles of every size: 3 4x4, 3 9x9, 2 16x16, 2 25x25.",
        f"# Made by harness.generate.small_datasets(seed={seed}); reproduce:"
        " python -m harness.generate datasets",
        f"# It holds the output of `harness generate --seed {seed}` with --size 4 --count 3,",
        f"# --size 9 --count 3, --size 16 --count 2 --min-givens {SIZES_MIN_GIVENS[16]} and",
        f"# --size 25 --count 2 --min-givens {SIZES_MIN_GIVENS[25]}, in that order. The 16x16"
        " and 25x25",
        "# ones stop carving at that many givens, so that mrv solves each in well under 1 s.",
        *_lines(four, nine[:3], big[16], big[25]),
    ]
    return {
        "unsolvable.txt": "\n".join(unsolvable) + "\n",
        "multi.txt": "\n".join(multi) + "\n",
        "sizes.txt": "\n".join(sizes) + "\n",
    }


def _lines(*groups: Sequence[Puzzle]) -> list[str]:
    return [p.to_string() for group in groups for p in group]


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m harness.generate [DIR] [--tdoku]``: (re)write the small datasets into DIR."""
    args = list(sys.argv[1:] if argv is None else argv)
    tdoku = "--tdoku" in args
    folders = [arg for arg in args if arg != "--tdoku"]
    directory = Path(folders[0] if folders else "datasets")
    for name, text in small_datasets(tdoku=tdoku).items():
        (directory / name).write_text(text, encoding="utf-8")
        print(f"wrote {directory / name}", file=sys.stderr)


if __name__ == "__main__":
    main()
