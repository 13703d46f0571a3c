"""Tests for the optional cryptosat and z3 backends; the contract suite covers the rest."""

from __future__ import annotations

import time

import pytest

from backends.base import Status
from backends.cryptosat import CryptosatBackend, model_literals
from backends.cryptosat import translate_status as translate_cms
from backends.errors import UnknownStatusError
from backends.puzzle import Puzzle
from backends.z3_backend import Z3Backend, Z3Model
from backends.z3_backend import translate_status as translate_z3
from tests.puzzles import TOP95_FIRST, run
from tests.test_pysat import pigeonhole


def needs(cls: type) -> None:
    if cls.unavailable_reason() is not None:
        pytest.skip(f"{cls.name} unavailable: {cls.unavailable_reason()}")


def test_cryptosat_translate() -> None:
    """True/False/None become SOLVED/UNSAT/TIMEOUT (UNKNOWN without a limit); else raise."""
    assert (Status.SOLVED, Status.UNSAT, Status.TIMEOUT, Status.UNKNOWN) == (
        translate_cms(True, True),
        translate_cms(False, True),
        translate_cms(None, True),
        translate_cms(None, False),
    )
    with pytest.raises(UnknownStatusError):
        translate_cms(1, True)


def test_cryptosat_model_literals() -> None:
    """pycryptosat's (None, bool, ...) model becomes signed literals 1..nvars."""
    assert [-1, 2, -3] == model_literals((None, False, True, False), 3)


def test_cryptosat_stops_at_the_time_limit() -> None:
    """CryptoMiniSat's own time limit stops a hard CNF (minutes without it): TIMEOUT."""
    needs(CryptosatBackend)
    start = time.perf_counter()
    result = CryptosatBackend().solve(pigeonhole(11), time_limit=0.2)
    elapsed = time.perf_counter() - start  # minutes without a limit
    assert Status.TIMEOUT == result.status
    assert elapsed < 10


def test_z3_translate() -> None:
    """sat/unsat map directly; unknown is TIMEOUT only when Z3 says it was stopped."""
    assert (Status.SOLVED, Status.UNSAT, Status.TIMEOUT, Status.UNKNOWN) == (
        translate_z3("sat"),
        translate_z3("unsat"),
        translate_z3("unknown", "timeout"),
        translate_z3("unknown", "incomplete quantifiers"),
    )
    with pytest.raises(UnknownStatusError):
        translate_z3("maybe")


def test_z3_is_marked_slow_and_reports_sat_statistics() -> None:
    """z3 is listed as slow, and its native statistics carry Z3's SAT-core names."""
    needs(Z3Backend)
    result = run(Z3Backend(), Puzzle.parse(TOP95_FIRST), limit=2)
    assert Z3Backend.slow is True
    assert Status.SOLVED == result.status
    assert set(result.native) <= set(Z3Backend.native_counters)
    assert "sat_decisions" in result.native


def test_z3_solving_twice_leaves_the_model_unchanged() -> None:
    """A two-solution puzzle solved twice: two both times, the blocking constraint popped."""
    needs(Z3Backend)
    backend = Z3Backend()
    encoded = backend.encode(Puzzle.parse("....34.2..43432."))  # cells swap 1 and 2, no more
    first = backend.solve(encoded, limit=3)
    second = backend.solve(encoded, limit=3)
    assert (2, 2) == (first.solutions_found, second.solutions_found)


def test_z3_stops_at_the_time_limit() -> None:
    """Z3's timeout stops a hard model (11 pigeons, 10 holes, Distinct): TIMEOUT, in time."""
    needs(Z3Backend)
    import z3

    solver = z3.SolverFor("QF_FD")
    pigeons = [z3.Int(f"p{i}") for i in range(11)]
    solver.add(*(p >= 1 for p in pigeons), *(p <= 10 for p in pigeons), z3.Distinct(pigeons))
    model = Z3Model(Puzzle.parse("." * 16), solver, {})
    start = time.perf_counter()
    result = Z3Backend().solve(model, time_limit=0.1)
    assert Status.TIMEOUT == result.status
    assert "timeout" in result.message
    assert time.perf_counter() - start < 10  # minutes without a limit
