"""How hard a candidate is: a backend's nodes, whether singles alone solve it, its rating tier."""

from __future__ import annotations

from backends import make_backend
from backends.base import Backend
from backends.puzzle import Puzzle
from harness.puzzles.generate.common import SINGLES_BACKEND, GenerateError, solve_checked


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


def needs_guess(puzzle: Puzzle, singles: Backend | None = None) -> bool:
    """True when naked and hidden singles alone do not solve ``puzzle``.

    That is, ``mrv:inference=singles`` (or ``singles``) makes at least one guess.
    """
    singles = singles or make_backend(SINGLES_BACKEND)
    result = solve_checked(singles, puzzle, limit=1)
    if result.guesses is None:
        raise GenerateError(f"backend {singles.spec!r} does not count guesses")
    return result.guesses > 0


def difficulty_tiers() -> tuple[str, ...]:
    """The tiers ``difficulty`` may name: :data:`harness.puzzles.rating.TIERS`, easiest first."""
    try:
        from harness.puzzles.rating import TIERS
    except ImportError as exc:  # pragma: no cover - only while harness.puzzles.rating is missing
        raise GenerateError(f"difficulty targeting needs harness.puzzles.rating: {exc}") from None
    return TIERS


def rate_tier(puzzle: Puzzle) -> str:
    """The tier :func:`harness.puzzles.rating.rate` gives ``puzzle`` (easy ... needs-guess)."""
    from harness.puzzles.rating import rate

    return rate(puzzle, time_limit=None).tier
