"""Tests for the pycosat backend (backends/pycosat_backend.py).

The checks it shares with the cpsat backend are in test_library_solvers.py.
"""

from __future__ import annotations

import pytest

from backends.base import Status
from backends.engines.cnf import ENCODINGS
from backends.errors import BackendOptionError, UnknownStatusError
from backends.puzzle import Puzzle
from backends.pycosat_backend import PycosatBackend, translate_status
from tests.puzzles import TOP95_FIRST, WRONG_GIVEN, run

if PycosatBackend.unavailable_reason() is not None:
    pytest.skip(
        f"pycosat backend unavailable: {PycosatBackend.unavailable_reason()}",
        allow_module_level=True,
    )


def test_available() -> None:
    """With pycosat installed the backend is available."""
    assert PycosatBackend.unavailable_reason() is None


@pytest.mark.parametrize("reduce", [False, True])
@pytest.mark.parametrize("encoding", ENCODINGS)
def test_unsat_found_by_search(encoding: str, reduce: bool) -> None:
    """A puzzle whose contradiction the reduction cannot see is UNSAT from PicoSAT itself."""
    backend = PycosatBackend(encoding=encoding, reduce=reduce)
    encoded = backend.encode(Puzzle.parse(WRONG_GIVEN))
    assert "" == encoded.contradiction
    assert Status.UNSAT == backend.solve(encoded).status


def test_limit_three_finds_three_distinct() -> None:
    """The blocking clauses move on: limit 3 on a puzzle with exactly two solutions gives 2."""
    puzzle = Puzzle.parse("....34.2..43432.")  # four cells can swap 1 and 2, no more
    result = run(PycosatBackend(), puzzle, limit=3)
    assert (Status.SOLVED, 2) == (result.status, result.solutions_found)


def test_native_counts_and_no_search_counters() -> None:
    """native has the CNF's variables and clauses; nodes/guesses/backtracks stay None."""
    backend = PycosatBackend(encoding="efficient", reduce=False)
    encoded = backend.encode(Puzzle.parse(TOP95_FIRST))
    result = backend.solve(encoded)
    assert {"variables": 729, "clauses": 10287 + 17} == dict(result.native)
    assert (None, None, None) == (result.nodes, result.guesses, result.backtracks)


def test_prop_limit_gives_unknown() -> None:
    """A one-propagation budget stops PicoSAT on the minimal encoding: UNKNOWN."""
    result = run(PycosatBackend(prop_limit="1", encoding="minimal"), Puzzle.parse(TOP95_FIRST))
    assert (Status.UNKNOWN, None) == (result.status, result.solution)


def test_translate_answers() -> None:
    """pycosat's answers map to SOLVED (a model), UNSAT and UNKNOWN."""
    assert Status.SOLVED == translate_status([1, -2])
    assert Status.UNSAT == translate_status("UNSAT")
    assert Status.UNKNOWN == translate_status("UNKNOWN")


def test_translate_refuses_unknown_answer() -> None:
    """An unexpected answer raises UnknownStatusError carrying the value."""
    with pytest.raises(UnknownStatusError, match="'SATISFIABLE'"):
        translate_status("SATISFIABLE")


def test_options_and_spec() -> None:
    """Options parse from text and non-default ones appear in the spec."""
    assert "pycosat" == PycosatBackend().spec
    spec = PycosatBackend(encoding="minimal", reduce="false").spec
    assert "pycosat:encoding=minimal,reduce=false" == spec


@pytest.mark.parametrize("option", [{"encoding": "tiny"}, {"prop_limit": "-1"}, {"x": "1"}])
def test_bad_options_refused(option: dict[str, str]) -> None:
    """An unknown encoding, a negative prop_limit or an unknown option is refused."""
    with pytest.raises(BackendOptionError):
        PycosatBackend(**option)
