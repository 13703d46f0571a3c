"""Sudoku backends behind one contract (:mod:`backends.base`) and one registry.

``REGISTRY`` maps each built-in backend's name to where its class lives, and a backend's module
is imported only when that backend is asked for (:func:`backend_class`). Modules import their
third-party solver lazily, inside the module's functions, so importing one never fails for a
missing solver: that backend's ``unavailable_reason()`` returns the reason instead.

A name that is not built in is looked up among the plugins other distributions declare as
entry points (:mod:`backends.plugins`); built-in names win, and a run of built-in backends
never reads the entry points.

Module names follow one rule: a backend's module is named for the backend (``-b NAME`` lives
in ``backends/NAME.py``, a ``-`` written ``_``), with ``_backend`` added where that name is
also the top-level module of the library it wraps or of the standard library, which a module
of that name would hide whenever ``backends/`` is on ``sys.path``: ``pycosat_backend``,
``pysat_backend``, ``miniexact_backend``, ``z3_backend``, and ``cmd_backend`` (the standard
library's ``cmd``); but ``cpsat`` (it wraps ``ortools``), ``cryptosat`` (``pycryptosat``) and
``python_constraint`` (``constraint``). Modules that are not backends (``base``, ``puzzle``,
``errors``, ``plugins``, ``bitmask_tables``, ``engines``) are named for what they hold.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

from backends.base import Backend, Option, SolveResult, Status
from backends.errors import BackendOptionError, BackendUnavailableError, UnknownBackendError
from backends.puzzle import Puzzle

#: Every built-in backend: its name -> ``"module:Class"``, the class that implements it. The
#: module is imported only when that backend is built, described or checked for availability
#: (:func:`backend_class`), so a run pays for the backends it runs and no others. A value may
#: also be the class itself (a program embedding the harness, or a test, registers one so).
REGISTRY: dict[str, str | type[Backend]] = {
    "cpsat": "backends.cpsat:CpSatBackend",
    "pycosat": "backends.pycosat_backend:PycosatBackend",
    "ac3": "backends.ac3:Ac3Backend",
    "mrv": "backends.mrv:MrvBackend",
    "dlx": "backends.dlx:DlxBackend",
    "naive": "backends.naive:NaiveBackend",
    "norvig": "backends.norvig:NorvigBackend",
    "logic": "backends.logic:LogicBackend",
    "python-constraint": "backends.python_constraint:PythonConstraintBackend",
    "pysat": "backends.pysat_backend:PysatBackend",
    "miniexact": "backends.miniexact_backend:MiniexactBackend",
    "cryptosat": "backends.cryptosat:CryptosatBackend",
    "z3": "backends.z3_backend:Z3Backend",
    "cmd": "backends.cmd_backend:CmdBackend",  # -b 'cmd:COMMAND LINE': see parse_spec
    "lib": "backends.lib:LibBackend",  # -b 'lib:PATH[:SYMBOL]': see parse_spec
    "bitmask": "backends.bitmask:BitmaskBackend",
}

#: Built-ins that need an argument no default can give (a file to load): ``-b all`` leaves
#: them out, as it leaves out plugins; name them one by one.
NAMED_ONLY = frozenset({"lib"})

__all__ = [
    "NAMED_ONLY",
    "REGISTRY",
    "Backend",
    "Option",
    "Puzzle",
    "SolveResult",
    "Status",
    "availability",
    "backend_class",
    "make_backend",
    "parse_spec",
]


def backend_class(name: str) -> type[Backend]:
    """The class registered as ``name``, built-in first, else a plugin's.

    An unknown name's error lists the valid names; a plugin that cannot be loaded raises
    :class:`BackendUnavailableError` with the reason.
    """
    entry = REGISTRY.get(name)
    if entry is not None:
        return _load(entry)
    from backends import plugins

    found = plugins.plugin(name, REGISTRY)
    if found is None:
        names = sorted({*REGISTRY, *plugins.names()})
        import difflib  # only for this message

        close = difflib.get_close_matches(name, names, n=1)
        guess = f" (did you mean {close[0]!r}?)" if close else ""
        raise UnknownBackendError(
            f"unknown backend {name!r}{guess}; valid backends: {', '.join(names)}"
        )
    if found.cls is None:
        raise BackendUnavailableError(
            f"backend {name!r} from {found.origin} is unavailable: {found.reason}"
        )
    return found.cls


def _load(entry: str | type[Backend]) -> type[Backend]:
    """The class a registry entry names, importing its module (once per process)."""
    if not isinstance(entry, str):
        return entry
    module, _, attr = entry.partition(":")
    cls: type[Backend] = getattr(importlib.import_module(module), attr)
    return cls


def availability(cls: type[Backend]) -> str | None:
    """Why ``cls`` cannot run here, or None: its ``unavailable_reason()``, where a plugin's
    check that raises counts as the reason. A plugin that overrides the deprecated
    ``available()`` instead is asked through that, with a DeprecationWarning."""
    old = _overrides(cls, "available") and not _overrides(cls, "unavailable_reason")
    if old:
        warnings.warn(
            f"{cls.__name__} overrides available(), whose new name is unavailable_reason()",
            DeprecationWarning,
            stacklevel=2,
        )
    check = "available" if old else "unavailable_reason"
    try:
        return getattr(cls, check)()
    except Exception as exc:  # a plugin's own check may fail any way: report, never crash
        return f"its {check}() raised {type(exc).__name__}: {exc}"


def _overrides(cls: type[Backend], method: str) -> bool:
    """Whether ``cls`` defines its own ``method`` rather than :class:`Backend`'s."""
    return getattr(cls, method).__func__ is not getattr(Backend, method).__func__


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name:key=value,key=value`` into the name and its raw option texts.

    Two exceptions: all after ``cmd:`` is its ``command``, and ``lib:PATH[:SYMBOL]`` names a
    shared library and the function in it (:func:`backends.lib.spec_options`).
    """
    name, _, rest = spec.strip().partition(":")
    if name == "cmd" and rest and not rest.startswith("command="):
        return name, {"command": rest.strip()}
    if name == "lib" and rest and not rest.startswith(("path=", "symbol=")):
        from backends.lib import spec_options

        return name, spec_options(rest)
    options: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise BackendOptionError(f"option {item!r} in {spec!r} is not key=value")
        if key.strip() in options:
            raise BackendOptionError(f"option {key.strip()!r} given twice in {spec!r}")
        options[key.strip()] = value.strip()
    return name.strip(), options


def make_backend(spec: str, **overrides: Any) -> Backend:
    """Build a backend from a spec such as ``mrv`` or ``ac3:select=B,order=least``."""
    name, options = parse_spec(spec)
    return backend_class(name)(**{**options, **overrides})
