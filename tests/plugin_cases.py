"""Objects that broken plugins' entry points name (see tests/test_plugins.py)."""

from __future__ import annotations

from typing import Any, ClassVar

from backends.base import Backend, SolveResult, Status


class NotABackend:
    """A class that does not subclass Backend."""


class AbstractBackend(Backend):
    """A Backend subclass that forgot ``solve``."""

    name: ClassVar[str] = "abstract"
    summary: ClassVar[str] = "no solve"


class MisnamedBackend(Backend):
    """A Backend whose ``name`` differs from its entry point's."""

    name: ClassVar[str] = "other"
    summary: ClassVar[str] = "wrong name"

    def solve(self, encoded: Any, limit: int = 1, time_limit: float | None = None) -> SolveResult:
        return SolveResult(Status.UNKNOWN)


class ClashBackend(MisnamedBackend):
    """A plugin that claims a built-in's name."""

    name: ClassVar[str] = "mrv"


class ShadowingBackend(MisnamedBackend):
    """A plugin whose native statistic is named like a row column."""

    name: ClassVar[str] = "shadowing"
    native_counters: ClassVar[tuple[str, ...]] = ("flips", "host")


class OldStyleBackend(MisnamedBackend):
    """A plugin that overrides the deprecated ``available()`` to give its reason."""

    name: ClassVar[str] = "oldstyle"

    @classmethod
    def available(cls) -> str | None:
        return "install oldlib"
