"""Reading a run's ``.meta.json`` back, every field a reader uses checked for its type.

:mod:`harness.results.provenance` writes the file; ``harness check``, ``report``, ``plot``
and ``--resume`` read it. A file that is not JSON, is nested past any run's metadata, or
holds a field of the wrong type (``"machine": null``, ``"limits": "x"``, ``"backends": 5``)
is refused with one line naming the file and the field, instead of failing deep inside a
command. Fields this module does not name (a cluster run's hosts, ...) are not checked.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.results.companions import MAX_META_BYTES, meta_to_read
from harness.results.schema import ResultsError

TEXT, NUMBER, WHOLE, FLAG = "text", "a number", "a whole number", "true or false"
OBJECT, LIST = "an object", "a list"
_NULL = "null"

#: Top-level fields and their kinds; "null" where a run may write null.
FIELDS: dict[str, tuple[str, ...]] = {
    "command": (LIST,),
    "cwd": (TEXT,),
    "project_version": (TEXT,),
    "git": (OBJECT,),
    "python": (OBJECT,),
    "packages": (OBJECT,),
    "machine": (OBJECT,),
    "csv": (TEXT,),
    "started": (TEXT, _NULL),
    "finished": (TEXT, _NULL),
    "complete": (FLAG,),
    "calibration": (OBJECT, _NULL),
    "limits": (OBJECT,),
    "seed": (WHOLE, _NULL),
    "jobs": (WHOLE,),
    "repeat": (WHOLE,),
    "datasets": (LIST,),
    "backends": (LIST,),
    "skipped_lines": (LIST,),
    "earlier_runs": (LIST,),
    "csv_digest": (OBJECT,),
}
#: The bounds a number field keeps (inclusive), where a value beyond them means nothing a
#: run writes: a calibration is the time of a workload of about a millisecond, a timeout
#: and a memory limit are positive, a run has a worker and a repeat at least.
BOUNDS: dict[str, tuple[float, float]] = {
    "jobs": (1, 1 << 16),
    "repeat": (1, 10**6),
    "calibration.start_s": (1e-6, 60.0),
    "calibration.end_s": (1e-6, 60.0),
    "limits.timeout_s": (1e-6, 10**7),
    "limits.memory_limit_mib": (1.0, 1 << 30),
    "limits.solutions_limit": (1, 2),
    "machine.cpu_count": (1, 1 << 20),
    "machine.usable_cpus": (1, 1 << 20),
}
#: Lists a run's metadata never leaves empty.
NOT_EMPTY = ("backends",)
#: The fields of the objects above (and of each item of the lists ``datasets``, ``backends``).
INNER: dict[str, dict[str, tuple[str, ...]]] = {
    "git": {"sha": (TEXT, _NULL), "dirty": (FLAG, _NULL)},
    "python": {"version": (TEXT, _NULL), "implementation": (TEXT, _NULL)},
    "machine": {
        "cpu_model": (TEXT, _NULL),
        "cpu_count": (WHOLE, _NULL),
        "usable_cpus": (WHOLE, _NULL),
        "os": (TEXT, _NULL),
    },
    "limits": {
        "timeout_s": (NUMBER,),
        "memory_limit_mib": (NUMBER, _NULL),
        "solutions_limit": (WHOLE,),
    },
    "calibration": {"workload": (TEXT,), "start_s": (NUMBER, _NULL), "end_s": (NUMBER, _NULL)},
    "datasets": {"path": (TEXT,), "sha256": (TEXT, _NULL), "puzzles": (WHOLE,)},
    "csv_digest": {"size": (WHOLE,), "mtime_ns": (WHOLE,), "sha256": (TEXT, _NULL)},
    "backends": {
        "spec": (TEXT,),
        "available": (FLAG,),
        "reason": (TEXT, _NULL),
        "deterministic": (FLAG,),
    },
}


def _kind(value: Any) -> str:
    if value is None:
        return _NULL
    if isinstance(value, bool):
        return FLAG
    if isinstance(value, int):
        return WHOLE
    if isinstance(value, float):
        return NUMBER
    if isinstance(value, str):
        return TEXT
    return LIST if isinstance(value, list) else OBJECT


def _fits(value: Any, kinds: tuple[str, ...]) -> bool:
    kind = _kind(value)
    if kind == WHOLE and NUMBER in kinds:
        kind = NUMBER
    if kind == NUMBER and not (math.isfinite(value) and value >= 0):
        return False
    return kind in kinds


def problem(meta: Any) -> str | None:
    """What is wrong with parsed metadata (the first field found), or None."""
    if not isinstance(meta, dict):
        return f"not a JSON object but {_kind(meta)}"
    for name, kinds in FIELDS.items():
        if name in meta and not _fits(meta[name], kinds):
            return _wrong(name, meta[name], kinds)
        beyond = _beyond(name, meta.get(name))
        if beyond:
            return beyond
        if name in NOT_EMPTY and meta.get(name) == []:
            return f"{name} is empty: a run has at least one"
    for name, fields in INNER.items():
        value = meta.get(name)
        items = value if isinstance(value, list) else [value] if isinstance(value, dict) else []
        for index, item in enumerate(items):
            where = f"{name}[{index}]" if isinstance(value, list) else name
            if not isinstance(item, dict):
                return _wrong(where, item, (OBJECT,))
            found = _inner_problem(where, item, fields)
            if found:
                return found
    return None


def _inner_problem(where: str, item: Mapping[str, Any], fields: dict) -> str | None:
    for field, kinds in fields.items():
        if field in item and not _fits(item[field], kinds):
            return _wrong(f"{where}.{field}", item[field], kinds)
        beyond = _beyond(f"{where}.{field}", item.get(field))
        if beyond:
            return beyond
    return None


def _beyond(where: str, value: Any) -> str | None:
    """Why a number field's value lies beyond its :data:`BOUNDS`, or None."""
    bounds = BOUNDS.get(where)
    if bounds is None or _kind(value) not in (WHOLE, NUMBER) or bounds[0] <= value <= bounds[1]:
        return None
    return f"{where} is {value!r}, not within {bounds[0]:g} to {bounds[1]:g}"


def _wrong(where: str, value: Any, kinds: tuple[str, ...]) -> str:
    shown = json.dumps(value)[:40] if _kind(value) not in (LIST, OBJECT) else _kind(value)
    expected = " or ".join(k for k in kinds)
    if NUMBER in kinds:
        expected = expected.replace(NUMBER, "a finite number of zero or more")
    return f"{where} is {shown}, not {expected}"


def read_meta(csv_path: Path | str) -> dict[str, Any] | None:
    """The metadata of ``csv_path`` (see :func:`~harness.results.companions.meta_to_read`),
    None when there is none, every field a reader uses checked; :class:`ResultsError`
    naming the file and the field when it is unusable."""
    path = meta_to_read(Path(csv_path))
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_META_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ResultsError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    if len(data) > MAX_META_BYTES:
        raise ResultsError(f"{path}: larger than {MAX_META_BYTES >> 20} MB, not a run's metadata")
    try:
        meta = json.loads(data.decode("utf-8"))
    except RecursionError:
        raise ResultsError(f"{path}: nested too deep to be a run's metadata") from None
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError alike
        raise ResultsError(f"{path}: not JSON ({exc}); fix or remove it") from None
    found = problem(meta)
    if found:
        raise ResultsError(f"{path}: {found}; fix or remove it")
    return meta
