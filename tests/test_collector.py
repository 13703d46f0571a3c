"""Pausing the garbage collector around work that frees next to nothing."""

from __future__ import annotations

import gc

import pytest
from harness.gc_pause import gc_paused


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_paused_in_the_block_only(enabled: bool) -> None:
    """gc_paused() turns the collector off in its block, and back as it was."""
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        with gc_paused():
            inside = gc.isenabled()
        assert (False, enabled) == (inside, gc.isenabled())
    finally:
        (gc.enable if was else gc.disable)()


def test_a_promoted_block_joins_the_callers_frozen_objects() -> None:
    """While a caller has frozen objects, those a promoted block made are frozen with them."""
    was = gc.isenabled()
    gc.enable()
    gc.freeze()
    try:
        before = gc.get_freeze_count()
        with gc_paused(promote=True):
            made = [[i] for i in range(1000)]
        grown = gc.get_freeze_count() - before
    finally:
        gc.unfreeze()
        (gc.enable if was else gc.disable)()
    assert (True, 1000) == (grown >= len(made), len(made))


def test_a_promoted_block_leaves_nothing_frozen() -> None:
    """Without a caller's frozen objects, a promoted block's go to the oldest generation."""
    was = gc.isenabled()
    gc.enable()
    try:
        with gc_paused(promote=True):
            made = [[i] for i in range(1000)]
        young, frozen = gc.get_count()[0], gc.get_freeze_count()
    finally:
        (gc.enable if was else gc.disable)()
    assert (True, 0, 1000) == (young < len(made), frozen, len(made))
