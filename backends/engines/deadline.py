"""The clock check of a search that counts nodes: looked at often enough, but not every node."""

from __future__ import annotations

import sys
import time

#: The most nodes that pass between two looks at the clock. The stride starts at 1 and
#: doubles while looks come less than :data:`QUICK` seconds apart, so slow nodes (a 25x25
#: ``singles`` node can take a millisecond) still stop near the deadline.
STRIDE = 1024
#: Looks closer together than this (seconds) double the stride.
QUICK = 0.005


def after(seconds: float | None) -> float | None:
    """The :func:`time.perf_counter` value ``seconds`` from now (``None`` for no limit)."""
    return None if seconds is None else time.perf_counter() + seconds


class Deadline:
    """A :func:`time.perf_counter` deadline that a search looks at between nodes.

    The search compares its node count with :attr:`next` and, once it is reached, calls
    :meth:`passed`. Without a deadline :attr:`next` is never reached.
    """

    __slots__ = ("at", "last", "next", "stride")

    def __init__(self, at: float | None) -> None:
        self.at = at
        self.stride = 1
        self.last = time.perf_counter()
        #: The node count at which to look next.
        self.next = 1 if at is not None else sys.maxsize

    def passed(self, nodes: int) -> bool:
        """Look at the clock at ``nodes`` nodes: True once the deadline has passed, else plan
        the next look."""
        now = time.perf_counter()
        if now > self.at:  # type: ignore[operator]
            return True
        if now - self.last < QUICK and self.stride < STRIDE:
            self.stride += self.stride
        self.last = now
        self.next = nodes + self.stride
        return False
