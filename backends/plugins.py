"""Backends from other distributions, declared as entry points and found lazily.

A distribution declares its backend in its ``pyproject.toml``::

    [project.entry-points."sudoku_harness.backends"]
    myname = "mypkg.module:MyBackend"

and ``--backend myname`` then runs ``MyBackend`` like a built-in. Nothing here runs while
only built-in backends are used: the entry points are read the first time a name is not in
:data:`backends.REGISTRY` (or when ``harness backends`` lists everything), and each plugin's
module is imported only when that plugin is asked for.

A plugin is *unavailable*, with the reason, when its name is a built-in's (built-ins win),
when another distribution declared the name first, when its name could not be typed after
``--backend``, when its module fails to import, when the object is not a concrete
:class:`~backends.base.Backend` subclass whose ``name`` is the entry point's name (the name is
how worker processes find the backend again), or when one of its ``native_counters`` is named
like a row column (:data:`~backends.base.ROW_COLUMNS`). A broken plugin never breaks another
backend. A plugin that overrides the deprecated ``available()`` rather than
``unavailable_reason()`` still works (:func:`backends.availability`), with a
DeprecationWarning.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Collection
from dataclasses import dataclass
from functools import cache
from typing import Any

from backends.base import ROW_COLUMNS, Backend

#: The entry-point group a distribution declares its backends in.
GROUP = "sudoku_harness.backends"

#: What a backend name may look like: it is typed in ``NAME:key=value,...`` specs.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*")


@dataclass(frozen=True)
class Plugin:
    """One entry point of :data:`GROUP`: where it comes from, and its class or why not."""

    name: str
    target: str  # the entry point's value, "module:Class"
    distribution: str  # "" when the entry point names none
    version: str
    cls: type[Backend] | None
    reason: str | None  # None when ``cls`` can run here (its own ``unavailable_reason()`` aside)

    @property
    def origin(self) -> str:
        """``dist 1.2 (module:Class)``: what ``harness backends`` and run metadata show."""
        dist = f"{self.distribution} {self.version}".strip() or "unknown distribution"
        return f"{dist} ({self.target})"


_LOADED: dict[str, Plugin] = {}  # by name: every plugin vetted in this process


@cache
def _declared() -> tuple[Any, ...]:
    """Every entry point of the group, in the order importlib.metadata finds them."""
    from importlib.metadata import entry_points

    return tuple(entry_points(group=GROUP))


def names() -> tuple[str, ...]:
    """Every plugin name declared here, sorted (reads the entry points; imports nothing)."""
    return tuple(sorted({ep.name for ep in _declared()}))


def plugin(name: str, builtins: Collection[str]) -> Plugin | None:
    """The plugin declared as ``name``, loaded and vetted once per process; None if none.

    Only that plugin's module is imported. When several distributions declare ``name``, the
    first one found is used (:func:`listing` shows the others as unavailable).
    """
    if name in _LOADED:
        return _LOADED[name]
    ep = next((ep for ep in _declared() if ep.name == name), None)
    if ep is None:
        return None
    info = _LOADED[name] = _vetted(ep, builtins)
    return info


def listing(builtins: Collection[str]) -> list[Plugin]:
    """Every declared plugin, loaded and vetted, sorted by name (for ``harness backends``)."""
    first: dict[str, Plugin] = {}
    shadowed: list[Plugin] = []
    for ep in _declared():
        if ep.name not in first:
            first[ep.name] = plugin(ep.name, builtins)  # type: ignore[assignment]
            continue
        user = first[ep.name]
        reason = f"the name {ep.name!r} is already declared by {user.origin}"
        shadowed.append(_record(ep, None, reason))
    return sorted([*first.values(), *shadowed], key=lambda p: p.name)


def _record(ep: Any, cls: type[Backend] | None, reason: str | None) -> Plugin:
    dist = getattr(ep, "dist", None)
    distribution = (dist.metadata["Name"] or "") if dist is not None else ""
    version = (dist.version or "") if dist is not None else ""
    return Plugin(ep.name, ep.value, distribution, version, cls, reason)


def _vetted(ep: Any, builtins: Collection[str]) -> Plugin:
    """Load ``ep`` unless its name is unusable; the record says why it cannot run, if so."""
    name = ep.name
    if name in builtins:
        return _record(ep, None, f"the name {name!r} is a built-in backend's; built-ins win")
    if not _NAME.fullmatch(name):
        return _record(ep, None, f"{name!r} is not a usable backend name (letters, digits, _.+-)")
    try:
        obj = ep.load()
    except Exception as exc:  # a third party's import may raise anything: that plugin's alone
        return _record(ep, None, f"cannot import it: {type(exc).__name__}: {exc}")
    if not (isinstance(obj, type) and issubclass(obj, Backend)):
        return _record(ep, None, f"{obj!r} is not a subclass of backends.base.Backend")
    if inspect.isabstract(obj):
        missing = ", ".join(sorted(obj.__abstractmethods__))
        return _record(ep, None, f"{obj.__name__} does not implement {missing}")
    if not isinstance(getattr(obj, "summary", None), str):
        return _record(ep, None, f"{obj.__name__} has no summary (a one-line str attribute)")
    declared = getattr(obj, "name", None)
    if declared != name:
        reason = f"{obj.__name__}.name is {declared!r}; it must be the entry point's, {name!r}"
        return _record(ep, None, reason)
    shadowing = sorted(set(obj.native_counters) & ROW_COLUMNS)
    if shadowing:
        reason = f"{obj.__name__}'s native statistic {shadowing[0]!r} is a row column's name"
        return _record(ep, None, reason)
    return _record(ep, obj, None)


def origin_of(cls: type[Backend]) -> Plugin | None:
    """The plugin record of a class this process loaded as a plugin (None for a built-in)."""
    return next((p for p in _LOADED.values() if p.cls is cls), None)


def reset() -> None:
    """Forget what was found, so a distribution installed since is seen (tests use it)."""
    _declared.cache_clear()
    _LOADED.clear()
