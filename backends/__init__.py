"""Sudoku backends behind one contract (:mod:`backends.base`) and one registry.

``REGISTRY`` maps each backend's name to its class. Modules import their third-party
solver lazily, inside the module's functions, so importing this package never fails for a
missing solver: that backend's ``available()`` returns the reason instead.
"""

from __future__ import annotations

from typing import Any

from backends.ac3 import Ac3Backend
from backends.base import Backend, Option, SolveResult, Status
from backends.bitmask import BitmaskBackend
from backends.command import CmdBackend
from backends.cpsat import CpSatBackend
from backends.dlx import DlxBackend
from backends.errors import BackendOptionError, UnknownBackendError
from backends.logic import LogicBackend
from backends.mrv import MrvBackend
from backends.naive import NaiveBackend
from backends.norvig import NorvigBackend
from backends.puzzle import Puzzle
from backends.pycosat_backend import PycosatBackend
from backends.python_constraint import PythonConstraintBackend

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
    "backend_class",
    "make_backend",
    "parse_spec",
]


def backend_class(name: str) -> type[Backend]:
    """The class registered as ``name``; the error lists the valid names."""
    try:
        return REGISTRY[name]
    except KeyError:
        valid = ", ".join(sorted(REGISTRY))
        raise UnknownBackendError(f"unknown backend {name!r}; valid backends: {valid}") from None


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
