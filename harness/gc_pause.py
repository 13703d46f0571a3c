"""Pausing Python's cyclic garbage collector around work that allocates much and frees
little: an import, a batch of parsed puzzles, a table's rows. The collector runs every few
hundred allocations and finds next to nothing there. A module of its own, importing nothing
of the harness, so that the ``harness`` command can use it before its imports."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused(promote: bool = False) -> Iterator[None]:
    """Pause the cyclic garbage collector for the block, then restore it as it was.

    ``promote``: when the block ends without an error and the collector is to resume, first
    move every object it tracks into its oldest generation (``gc.freeze()`` then
    ``gc.unfreeze()``, as documented), or, while a caller has frozen objects (``harness
    run`` freezes its own), among them (``gc.freeze()``: the caller's ``gc.unfreeze()``
    releases them all). Otherwise the first allocation after the block would start a
    young-generation pass over everything made in it (the cells of every grid of a batch),
    which holds no cycle: its objects are freed by their reference counts when done with.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
        if promote and enabled:
            frozen = gc.get_freeze_count()
            gc.freeze()
            if not frozen:
                gc.unfreeze()
    finally:
        if enabled:
            gc.enable()
