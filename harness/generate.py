"""The puzzle generator: random complete grids, carved into unique-solution puzzles.

How one puzzle is made (``make_candidate``), all from one ``random.Random``:

1. :func:`random_grid` fills an empty grid by randomized search (most constrained cell
   first, ties and value order drawn from the generator), restarting on a rare dead end.
2. :func:`carve` visits the cells in a random order and empties each one whose removal
   keeps the solution unique, uniqueness being a registry backend's ``limit=2`` solve.
   One pass suffices for a minimal puzzle: a clue that was needed stays needed as more
   clues go.
3. The ranking backend (default ``mrv``) solves it once with ``limit=1``; its ``nodes``
   rank hardness. With ``require_guess``, ``mrv:inference=singles`` also solves it and a
   puzzle it solves with ``guesses == 0`` (naked and hidden singles alone) is dropped.

:func:`generate` makes a pool of such candidates, candidate ``i`` from its own seed (drawn
in order from ``random.Random(seed)``), so the result depends only on the options, never on
``jobs`` or timing. :func:`render` writes the file: ``#`` header lines, including the
command that reproduces it, then one canonical puzzle per line.
"""

from __future__ import annotations

import itertools
import random
import shlex
import statistics
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
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
#: giving up on ``require_guess`` (4x4 puzzles, for one, hardly ever need a guess).
MAX_TRIES_PER_PUZZLE = 200

Progress = Callable[[str], None]

__all__ = [
    "CHECK_BACKEND",
    "DEFAULT_BACKEND",
    "SINGLES_BACKEND",
    "Candidate",
    "GenerateError",
    "GenerateOptions",
    "Generated",
    "add_wrong_given",
    "candidate_seeds",
    "carve",
    "count_solutions",
    "describe",
    "generate",
    "make_candidate",
    "needs_guess",
    "random_grid",
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


def carve(solution: Puzzle, rng: random.Random, backend: Backend, min_givens: int = 0) -> Puzzle:
    """Empty the cells of ``solution`` in a random order while the solution stays unique.

    A cell stays emptied when ``backend`` finds exactly one solution with ``limit=2``.
    The carving stops early once only ``min_givens`` givens are left (0: never).
    """
    order = list(range(solution.geometry.ncells))
    rng.shuffle(order)
    cells = list(solution.cells)
    givens = len(cells)
    for cell in order:
        if givens <= min_givens:
            break
        digit, cells[cell] = cells[cell], 0
        if count_solutions(backend, Puzzle(solution.box, tuple(cells))) == 1:
            givens -= 1
        else:
            cells[cell] = digit
    return Puzzle(solution.box, tuple(cells))


def needs_guess(puzzle: Puzzle, singles: Backend | None = None) -> bool:
    """True when naked and hidden singles alone do not solve ``puzzle``.

    That is, ``mrv:inference=singles`` (or ``singles``) makes at least one guess.
    """
    singles = singles or make_backend(SINGLES_BACKEND)
    result = solve_checked(singles, puzzle, limit=1)
    if result.guesses is None:
        raise GenerateError(f"backend {singles.spec!r} does not count guesses")
    return result.guesses > 0


# --------------------------------------------------------------------------- candidates


@dataclass(frozen=True)
class Candidate:
    """One generated puzzle: its index in the pool, the puzzle, and how hard it was.

    ``nodes`` is the ranking backend's ``nodes`` with ``limit=1``; ``needs_guess`` is None
    when it was not asked for.
    """

    index: int
    puzzle: Puzzle
    nodes: int
    needs_guess: bool | None = None


@dataclass(frozen=True)
class _Job:
    index: int
    seed: int
    box: int
    backend: str
    check_backend: str
    require_guess: bool
    min_givens: int


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
) -> Candidate:
    """The puzzle made from ``random.Random(seed)``, ranked by ``backend``'s nodes.

    ``check_backend`` proves uniqueness while carving; any correct backend gives the same
    puzzle, so it only changes the speed.
    """
    return _run_job(_Job(index, seed, box, backend, check_backend, require_guess, min_givens))


def _run_job(job: _Job) -> Candidate:
    rng = random.Random(job.seed)
    solution = random_grid(job.box, rng)
    puzzle = carve(solution, rng, _backend(job.check_backend), job.min_givens)
    result = solve_checked(_backend(job.backend), puzzle, limit=1)
    if result.nodes is None:
        raise GenerateError(f"backend {job.backend!r} does not count nodes; it cannot rank")
    if result.solution != solution.cells:
        raise GenerateError(f"backend {job.backend!r} solved {puzzle} to another grid")
    guess = needs_guess(puzzle, _backend(SINGLES_BACKEND)) if job.require_guess else None
    return Candidate(job.index, puzzle, result.nodes, guess)


# --------------------------------------------------------------------------- the pool


@dataclass(frozen=True)
class GenerateOptions:
    """What ``harness generate`` was asked for. ``pool=None`` means "no ranking"."""

    size: int = 9
    count: int = 1
    seed: int = 0
    pool: int | None = None
    backend: str = DEFAULT_BACKEND
    require_guess: bool = False
    check_backend: str = CHECK_BACKEND
    min_givens: int = 0

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
        for spec in (self.backend, self.check_backend, SINGLES_BACKEND):
            backend = make_backend(spec)  # unknown names and bad options fail here
            reason = type(backend).available()
            if reason is not None:
                raise GenerateError(f"backend {spec!r} is unavailable: {reason}")
        if not type(make_backend(self.backend)).deterministic:
            raise GenerateError(
                f"backend {self.backend!r} is not deterministic, so its nodes cannot rank "
                "puzzles reproducibly"
            )

    def command(self) -> str:
        """The ``harness generate`` command line that makes exactly this output."""
        args = ["harness", "generate", "--size", str(self.size), "--count", str(self.count)]
        args += ["--seed", str(self.seed)]
        if self.pool is not None:
            args += ["--pool", str(self.pool)]
        args += ["--backend", self.backend]
        if self.require_guess:
            args.append("--require-guess")
        if self.min_givens:
            args += ["--min-givens", str(self.min_givens)]
        if self.check_backend != CHECK_BACKEND:
            args += ["--check-backend", self.check_backend]
        return shlex.join(args)


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
        )

    if jobs <= 1:
        for i in indices:
            yield _run_job(job(i))
        return
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


def generate(
    options: GenerateOptions, jobs: int = 1, progress: Progress | None = None
) -> Generated:
    """Make the puzzles ``options`` ask for. Deterministic in ``options``; ``jobs`` only
    changes the speed.

    * Without a pool: candidates 0, 1, 2, ... in order, keeping each that qualifies
      (``require_guess``) until ``count`` are kept; output in that order.
    * With a pool: exactly ``pool`` candidates; of those that qualify, the ``count`` with the
      most nodes (ties: lower index first), hardest first.
    """
    options.validate()
    say = progress or (lambda _message: None)
    if options.pool is None:
        tries = options.count * MAX_TRIES_PER_PUZZLE if options.require_guess else None
        kept: list[Candidate] = []
        made = 0
        stream = _candidates(options, jobs, tries)
        for candidate in stream:
            made += 1
            if candidate.needs_guess is not False:
                kept.append(candidate)
                say(f"kept {len(kept)}/{options.count} of {made} made")
            if len(kept) == options.count:
                stream.close()
                return Generated(options, tuple(kept), made)
        raise GenerateError(
            f"only {len(kept)} of {made} {options.size}x{options.size} candidates need a "
            f"guess beyond singles; wanted {options.count}"
        )
    pool: list[Candidate] = []
    every = max(10, options.pool // 50)
    for candidate in _candidates(options, jobs, options.pool):
        pool.append(candidate)
        if len(pool) % every == 0 or len(pool) == options.pool:
            say(f"made {len(pool)}/{options.pool}")
    qualifying = [c for c in pool if c.needs_guess is not False]
    if len(qualifying) < options.count:
        raise GenerateError(
            f"only {len(qualifying)} of the {options.pool} candidates need a guess beyond "
            f"singles; wanted {options.count} (try a larger --pool)"
        )
    ranked = sorted(qualifying, key=lambda c: (-c.nodes, c.index))
    return Generated(options, tuple(ranked[: options.count]), len(pool))


# --------------------------------------------------------------------------- output


def describe(generated: Generated) -> list[str]:
    """The header lines (without ``# ``) that say what the file holds and how it was made."""
    opt = generated.options
    kept = generated.kept
    nodes = [c.nodes for c in kept]
    givens = [c.puzzle.givens for c in kept]
    grid = f"{opt.size}x{opt.size}"
    if opt.pool is None and not opt.require_guess:
        rule = f"all {opt.count}"
    elif opt.pool is None:
        rule = f"the first {opt.count} that need a guess"
    else:
        rule = f"the {opt.count} with the most {opt.backend} nodes (limit=1)"
        if opt.require_guess:
            rule += ",\n  among those that need a guess"
    stop = f", stopping at {opt.min_givens} givens" if opt.min_givens else ""
    lines = [
        f"{len(kept)} {grid} puzzles, each with a unique solution.",
        *f"Selection: of {generated.made} candidates made from seed {opt.seed}, {rule}.".split(
            "\n"
        ),
        "Candidate: a random complete grid, then clues removed in random order while the",
        f"  solution stays unique ({opt.check_backend}, limit=2){stop}.",
    ]
    if opt.require_guess:
        lines += [
            "Need a guess: naked and hidden singles alone do not solve it",
            f"  ({SINGLES_BACKEND} makes at least one guess).",
        ]
    lines += [
        f"{opt.backend} nodes (limit=1): median {_fmt(statistics.median(nodes))}, "
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


def batch(size: int, count: int, seed: int, min_givens: int = 0) -> list[Puzzle]:
    """The puzzles of ``harness generate --size SIZE --count COUNT --seed SEED``."""
    options = GenerateOptions(size=size, count=count, seed=seed, min_givens=min_givens)
    return [c.puzzle for c in generate(options).kept]


#: Where ``sizes.txt``'s big puzzles stop carving, so that ``mrv`` solves them quickly.
SIZES_MIN_GIVENS: dict[int, int] = {16: 130, 25: 360}


def small_datasets(seed: int = 1) -> dict[str, str]:
    """The texts of ``datasets/unsolvable.txt``, ``multi.txt`` and ``sizes.txt``.

    Deterministic in ``seed``; ``python -m harness.generate DIR`` writes them into DIR.
    """
    backend = make_backend(DEFAULT_BACKEND)
    rng = random.Random(seed)
    nine, four = batch(9, 4, seed), batch(4, 3, seed)
    made = [
        f"# Made by harness.generate.small_datasets(seed={seed}), which"
        " `python -m harness.generate datasets`",
        f"# runs, from the puzzles of `harness generate --size 9 --count 4 --seed {seed}` and",
        f"# `harness generate --size 4 --count 3 --seed {seed}`.",
    ]
    wrong = [add_wrong_given(p, solution_of(backend, p), rng) for p in (*nine, four[0])]
    unsolvable = [
        "# Puzzles with no solution (UNSAT), 9x9 and 4x4, none with a duplicate given.",
        *made,
        "# Each is a unique puzzle plus one wrong given that clashes with no other given",
        "# (puzzles 1-4 9x9, 5 4x4). (harness.readers refuses duplicate givens as bad lines.)",
        *_lines(wrong),
    ]
    multi = [
        "# Puzzles with two or more solutions (limit=2 finds 2), 9x9 and 4x4.",
        *made,
        "# Each is a unique minimal puzzle less one given (puzzles 1-3 9x9, 4-5 4x4).",
        *_lines([remove_needed_given(p, rng, backend) for p in (*nine[:3], *four[:2])]),
    ]
    big = {size: batch(size, 2, seed, SIZES_MIN_GIVENS[size]) for size in (16, 25)}
    sizes = [
        "# Unique-solution puzzles of every size: 3 4x4, 3 9x9, 2 16x16, 2 25x25.",
        f"# Made by harness.generate.small_datasets(seed={seed}), which"
        " `python -m harness.generate datasets`",
        f"# runs: the output of `harness generate --seed {seed}` with --size 4 --count 3,",
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
    """``python -m harness.generate [DIR]``: (re)write the small datasets into DIR."""
    args = list(sys.argv[1:] if argv is None else argv)
    directory = Path(args[0] if args else "datasets")
    for name, text in small_datasets().items():
        (directory / name).write_text(text, encoding="utf-8")
        print(f"wrote {directory / name}", file=sys.stderr)


if __name__ == "__main__":
    main()
