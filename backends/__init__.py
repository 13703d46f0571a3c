"""Sudoku backends behind one contract (:mod:`backends.base`) and one registry.

``REGISTRY`` maps each built-in backend's name to its class. Modules import their third-party
solver lazily, inside the module's functions, so importing this package never fails for a
missing solver: that backend's ``available()`` returns the reason instead.

A name that is not built in is looked up among the plugins other distributions declare as
entry points (:mod:`backends.plugins`); built-in names win, and a run of built-in backends
never reads the entry points.
"""

from __future__ import annotations

from typing import Any

from backends.ac3 import Ac3Backend
from backends.base import Backend, Option, SolveResult, Status
from backends.bitmask import BitmaskBackend
from backends.command import CmdBackend
from backends.cpsat import CpSatBackend
from backends.cryptosat_backend import CryptosatBackend
from backends.dlx import DlxBackend
from backends.errors import BackendOptionError, BackendUnavailableError, UnknownBackendError
from backends.logic import LogicBackend
from backends.miniexact_backend import MiniexactBackend
from backends.mrv import MrvBackend
from backends.naive import NaiveBackend
from backends.norvig import NorvigBackend
from backends.puzzle import Puzzle
from backends.pycosat_backend import PycosatBackend
from backends.pysat_backend import PysatBackend
from backends.python_constraint import PythonConstraintBackend
from backends.z3_backend import Z3Backend

REGISTRY: dict[str, type[Backend]] = {
    "cpsat": CpSatBackend,
    "pycosat": PycosatBackend,
    "ac3": Ac3Backend,
    "mrv": MrvBackend,
    "dlx": DlxBackend,
    "naive": NaiveBackend,
    "norvig": NorvigBackend,
    "logic": LogicBackend,
    "python-constraint": PythonConstraintBackend,
    "pysat": PysatBackend,
    "miniexact": MiniexactBackend,
    "cryptosat": CryptosatBackend,
    "z3": Z3Backend,
    "cmd": CmdBackend,  # -b 'cmd:COMMAND LINE': see parse_spec
    "bitmask": BitmaskBackend,
}

__all__ = [
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
    cls = REGISTRY.get(name)
    if cls is not None:
        return cls
    from backends import plugins

    found = plugins.plugin(name, REGISTRY)
    if found is None:
        valid = ", ".join(sorted({*REGISTRY, *plugins.names()}))
        raise UnknownBackendError(f"unknown backend {name!r}; valid backends: {valid}")
    if found.cls is None:
        raise BackendUnavailableError(
            f"backend {name!r} from {found.origin} is unavailable: {found.reason}"
        )
    return found.cls


def availability(cls: type[Backend]) -> str | None:
    """``cls.available()``, where a plugin's check that raises counts as the reason."""
    try:
        return cls.available()
    except Exception as exc:  # a plugin's own check may fail any way: report, never crash
        return f"its available() raised {type(exc).__name__}: {exc}"


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name:key=value,key=value`` into the name and its raw option texts.

    ``cmd:COMMAND LINE`` is the one exception: all after ``cmd:`` is its ``command``.
    """
    name, _, rest = spec.strip().partition(":")
    if name == "cmd" and rest and not rest.startswith("command="):
        return name, {"command": rest.strip()}
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
