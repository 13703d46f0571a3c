"""Imports the parent runs in a thread while its workers solve, and the wait before a fork."""

from __future__ import annotations

import contextlib
import importlib
import threading

_background_imports: list[threading.Thread] = []


def import_in_background(*modules: str) -> None:
    """Import ``modules`` in a thread of this (parent) process, while the workers solve.

    The parent mostly waits during a run, so what it needs afterwards (pandas, for the
    table) loads for free. A failed import is left for the caller's own import to report.
    Every fork of a worker first waits for these threads (:func:`join_background_imports`):
    forking while another thread holds an import lock could leave the child deadlocked on
    its first import.
    """

    def load() -> None:
        for name in modules:
            with contextlib.suppress(Exception):
                importlib.import_module(name)

    thread = threading.Thread(target=load, name="background-import", daemon=True)
    thread.start()
    _background_imports.append(thread)


def join_background_imports() -> None:
    """Wait for every background import to finish."""
    while _background_imports:
        _background_imports.pop().join()
