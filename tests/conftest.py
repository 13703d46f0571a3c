"""Shared fixtures: the public datasets folder, fake backends, small puzzles."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import backends
from backends.puzzle import Puzzle
from tests.fake_backends import FAKES
from tests.puzzles import public_file

PROJECT = Path(__file__).resolve().parents[1]


@pytest.fixture
def shared_datasets() -> Path:
    """The folder of the public puzzle collections, or a skip naming the file it lacks."""
    return public_file("norvig-top95.txt").parent


@pytest.fixture
def fake_backends(monkeypatch: pytest.MonkeyPatch) -> dict:
    """Register the misbehaving test backends for the duration of one test."""
    for name, cls in FAKES.items():
        monkeypatch.setitem(backends.REGISTRY, name, cls)
    return FAKES


def pattern_puzzle(box: int, blanks_per_row: int = 1) -> Puzzle:
    """A valid pattern grid with a few blanks in each row: easy, and its answer is known."""
    n = box * box
    cells = [((r % box) * box + r // box + c) % n + 1 for r in range(n) for c in range(n)]
    for r in range(n):
        for k in range(blanks_per_row):
            cells[r * n + (r * 7 + k * 3) % n] = 0
    return Puzzle(box, tuple(cells))


@contextlib.contextmanager
def busy_loops(count: int) -> Iterator[None]:
    """``count`` busy loops, each in a session of its own (as a user starts them with
    ``setsid``), for as long as the block runs; killed with whatever they started."""
    command = [sys.executable, "-c", "while True: pass"]
    loops = [subprocess.Popen(command, start_new_session=True) for _ in range(count)]
    try:
        yield
    finally:
        for loop in loops:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(loop.pid, signal.SIGKILL)
            loop.wait()
