"""Misbehaving backends for testing the harness's limits. Registered only by test fixtures."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import time
from typing import Any

from backends.base import Backend, SolveResult, Status
from backends.puzzle import Puzzle

#: The environment variable naming a file ``sleep-forever`` creates once its solve begins.
SOLVING_MARK = "FAKE_SOLVING_MARK"


def _warmup(puzzle: Puzzle) -> bool:
    """True for the harness's untimed warm-up puzzle (one blank per row, pattern grid)."""
    return puzzle.givens == puzzle.n * puzzle.n - puzzle.n


def _pattern_answer(puzzle: Puzzle) -> SolveResult:
    n, box = puzzle.n, puzzle.box
    grid = tuple(((r % box) * box + r // box + c) % n + 1 for r in range(n) for c in range(n))
    return SolveResult(Status.SOLVED, grid, 1)


class _Fake(Backend):
    summary = "test double"

    def solve(self, encoded: Any, limit: int = 1, time_limit: float | None = None) -> SolveResult:
        if _warmup(encoded):
            return _pattern_answer(encoded)
        return self.misbehave(encoded)

    def misbehave(self, puzzle: Puzzle) -> SolveResult:
        raise NotImplementedError


class SleepForever(_Fake):
    name = "sleep-forever"

    def misbehave(self, puzzle: Puzzle) -> SolveResult:
        mark = os.environ.get(SOLVING_MARK)
        if mark:  # a test waits for this file to know the solve has begun
            with open(mark, "w"):
                pass
        while True:
            time.sleep(3600)


class Segfault(_Fake):
    name = "segfault"

    def misbehave(self, puzzle: Puzzle) -> SolveResult:
        ctypes.string_at(0)  # reads address 0: SIGSEGV
        raise AssertionError("unreachable")


class ExitNow(_Fake):
    name = "exit-now"

    def misbehave(self, puzzle: Puzzle) -> SolveResult:
        os._exit(7)


class Raises(_Fake):
    name = "raises"

    def misbehave(self, puzzle: Puzzle) -> SolveResult:
        raise RuntimeError(f"cannot solve {puzzle.to_string()[:9]}")


class WrongGrid(_Fake):
    name = "wrong-grid"

    def misbehave(self, puzzle: Puzzle) -> SolveResult:
        return _pattern_answer(puzzle)  # a valid grid, but it ignores the givens


class ClaimsUnsat(_Fake):
    name = "claims-unsat"

    def misbehave(self, puzzle: Puzzle) -> SolveResult:
        return SolveResult(Status.UNSAT)


class Hog(_Fake):
    name = "hog"

    def misbehave(self, puzzle: Puzzle) -> SolveResult:
        hoard = []
        while True:
            hoard.append(bytearray(64 * 2**20))
            time.sleep(0.01)


class Counting(_Fake):
    """Solves with the pattern answer on pattern puzzles; nodes = the first option's value."""

    name = "counting"
    from backends.base import Option

    options = (Option("nodes", 5, "nodes to report", parse=int),)

    def misbehave(self, puzzle: Puzzle) -> SolveResult:
        answer = _pattern_answer(puzzle)
        return SolveResult(Status.SOLVED, answer.solution, 1, nodes=self.config["nodes"])


class WatchesClock(_Fake):
    """Searches until its ``time_limit`` runs out, then stops with its node count."""

    name = "watches-clock"

    def solve(self, encoded: Any, limit: int = 1, time_limit: float | None = None) -> SolveResult:
        if _warmup(encoded):
            return _pattern_answer(encoded)
        deadline = time.perf_counter() + (time_limit if time_limit is not None else 3600)
        nodes = 0
        while time.perf_counter() < deadline:
            nodes += 1
        return SolveResult(Status.TIMEOUT, nodes=nodes, message="time limit reached")


class AnswersLate(_Fake):
    """Gives the right answer 0.05 s after its ``time_limit``, before the worker is killed."""

    name = "answers-late"

    def solve(self, encoded: Any, limit: int = 1, time_limit: float | None = None) -> SolveResult:
        if not _warmup(encoded):
            time.sleep((time_limit or 0.0) + 0.05)
        return _pattern_answer(encoded)


class SlowWarmup(_Fake):
    """Takes 1 s over its untimed warm-up (a slow import, say), then solves at once."""

    name = "slow-warmup"

    def solve(self, encoded: Any, limit: int = 1, time_limit: float | None = None) -> SolveResult:
        if _warmup(encoded):
            time.sleep(1.0)
        return _pattern_answer(encoded)


class Chatty(_Fake):
    """Prints 64 KiB to stdout and to stderr (Python's and the file descriptors), then solves."""

    name = "chatty"

    def solve(self, encoded: Any, limit: int = 1, time_limit: float | None = None) -> SolveResult:
        chatter = "chatter " * 8192
        print(chatter)
        print(chatter, file=sys.stderr)
        os.write(1, b"fd-1 chatter\n")
        os.write(2, b"fd-2 chatter\n")
        return _pattern_answer(encoded)


class WarmupHang(_Fake):
    """Hangs in its untimed warm-up; would solve at once otherwise."""

    name = "warmup-hang"

    def solve(self, encoded: Any, limit: int = 1, time_limit: float | None = None) -> SolveResult:
        while _warmup(encoded):
            time.sleep(3600)
        return _pattern_answer(encoded)


class WarmupRaises(_Fake):
    """Raises in its untimed warm-up; would solve at once otherwise."""

    name = "warmup-raises"

    def solve(self, encoded: Any, limit: int = 1, time_limit: float | None = None) -> SolveResult:
        if _warmup(encoded):
            raise RuntimeError("no licence for this solver")
        return _pattern_answer(encoded)


class Daemonizes(_Fake):
    """Starts a ``sleep`` that leaves in a new session (its parent exits), appends its pid
    to the ``pidfile`` option's file, then hangs (``hang=true``) or solves."""

    name = "daemonizes"
    from backends.base import Option

    options = (
        Option("pidfile", "", "file to append the daemon's pid to"),
        Option("hang", "false", "hang after starting it", choices=("true", "false")),
    )

    def misbehave(self, puzzle: Puzzle) -> SolveResult:
        shell = "setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!"
        pid = subprocess.run(["sh", "-c", shell], capture_output=True, text=True).stdout
        with open(self.config["pidfile"], "a") as f:
            f.write(pid)
        while self.config["hang"] == "true":
            time.sleep(3600)
        return _pattern_answer(puzzle)


FAKES: dict[str, type[Backend]] = {
    cls.name: cls
    for cls in (
        SleepForever,
        Segfault,
        ExitNow,
        Raises,
        WrongGrid,
        ClaimsUnsat,
        Hog,
        Counting,
        WatchesClock,
        AnswersLate,
        SlowWarmup,
        Chatty,
        WarmupHang,
        WarmupRaises,
        Daemonizes,
    )
}
