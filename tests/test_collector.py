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
