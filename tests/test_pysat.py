"""Tests for the pysat backend (backends/pysat_backend.py); the contract suite covers the rest."""

from __future__ import annotations

import threading
import time
from itertools import combinations

import pytest

from backends.base import Status
from backends.engines import cnf
from backends.errors import BackendOptionError, UnknownStatusError
from backends.puzzle import Puzzle
from backends.pysat_backend import ENGINES, INTERRUPTIBLE, STATS, PysatBackend, translate_status
from harness.check.checker import check_solution
from tests.puzzles import TOP95_FIRST, WRONG_GIVEN, run

if PysatBackend.unavailable_reason() is not None:
    pytest.skip(
        f"pysat backend unavailable: {PysatBackend.unavailable_reason()}", allow_module_level=True
    )


def pigeonhole(holes: int) -> cnf.Cnf:
    """holes + 1 pigeons in ``holes`` holes: UNSAT, and exponentially hard for CDCL."""
    var = {(p, h): p * holes + h + 1 for p in range(holes + 1) for h in range(holes)}
    clauses = [[var[p, h] for h in range(holes)] for p in range(holes + 1)]
    for h in range(holes):
        clauses += [[-var[a, h], -var[b, h]] for a, b in combinations(range(holes + 1), 2)]
    return cnf.Cnf(3, "minimal", False, len(var), clauses, (), (), (0,) * 81)


@pytest.mark.parametrize("engine", ENGINES)
def test_every_engine_solves_and_counts_two(engine: str) -> None:
    """Each offered engine finds a checked first grid and a second one on an empty 4x4."""
    puzzle = Puzzle.parse("." * 16)
    result = run(PysatBackend(solver=engine), puzzle, limit=2)
    assert (Status.SOLVED, 2, None) == (
        result.status,
        result.solutions_found,
        check_solution(puzzle.cells, result.solution),
    )


@pytest.mark.parametrize("engine", ["minisat22", "glucose4", "cadical195"])
def test_native_statistics_under_pysat_names(engine: str) -> None:
    """native holds accum_stats() by PySAT's names plus the CNF size; no search counters."""
    result = run(PysatBackend(solver=engine), Puzzle.parse(TOP95_FIRST), limit=2)
    assert ({*STATS, "variables", "clauses"}, (None, None, None)) == (
        set(result.native),
        (result.nodes, result.guesses, result.backtracks),
    )
    assert result.native["propagations"] > 0


def test_unsat_found_by_search() -> None:
    """A contradiction the reduction cannot see is UNSAT from the engine itself."""
    backend = PysatBackend(solver="glucose4")
    encoded = backend.encode(Puzzle.parse(WRONG_GIVEN))
    assert ("", Status.UNSAT) == (encoded.contradiction, backend.solve(encoded).status)


def test_interrupt_stops_at_the_time_limit() -> None:
    """An interruptible engine stops a hard CNF at the time limit and says TIMEOUT."""
    assert "minisat22" in INTERRUPTIBLE
    start = time.perf_counter()
    result = PysatBackend(solver="minisat22").solve(pigeonhole(11), time_limit=0.2)
    elapsed = time.perf_counter() - start  # minutes without a limit
    assert Status.TIMEOUT == result.status
    assert 0 == result.solutions_found
    assert elapsed < 10
    assert result.native["conflicts"] > 0


def test_cadical_is_not_interruptible() -> None:
    """PySAT cannot interrupt CaDiCaL: no engine of that family is in INTERRUPTIBLE."""
    assert set() == {e for e in INTERRUPTIBLE if e.startswith("cadical")}


def test_unknown_engine_lists_choices() -> None:
    """An engine that is not offered is refused, naming the valid ones."""
    with pytest.raises(BackendOptionError, match="cadical195"):
        PysatBackend(solver="lingeling")


def test_translate() -> None:
    """True/False/None become SOLVED/UNSAT/TIMEOUT (UNKNOWN if not interrupted); else raise."""
    assert (Status.SOLVED, Status.UNSAT, Status.TIMEOUT, Status.UNKNOWN) == (
        translate_status(True, False),
        translate_status(False, False),
        translate_status(None, True),
        translate_status(None, False),
    )
    with pytest.raises(UnknownStatusError):
        translate_status("SAT", False)


def test_spec_shows_non_default_options() -> None:
    """The spec names the engine only when it is not the default."""
    assert ("pysat", "pysat:solver=cadical195") == (
        PysatBackend().spec,
        PysatBackend(solver="cadical195").spec,
    )


def test_easy_puzzle_needs_no_timer(monkeypatch: pytest.MonkeyPatch) -> None:
    """A puzzle decided within the first conflict slice never starts a timer thread."""

    def no_timer(*args: object, **kwargs: object) -> None:
        raise AssertionError("a timer was started")

    monkeypatch.setattr(threading, "Timer", no_timer)
    backend = PysatBackend()
    result = backend.solve(backend.encode(Puzzle.parse(TOP95_FIRST)), limit=2, time_limit=5.0)
    assert (Status.SOLVED, 1) == (result.status, result.solutions_found)
