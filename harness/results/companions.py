"""The files beside a results CSV, named from its whole name: ``x.csv`` has ``x.csv.meta.json``
(the run's metadata, :mod:`.provenance`) and ``x.csv.log`` (its workers' output).

Runs with different CSVs never share one: a CSV is never named like a companion (``*.meta.json``,
``*.log``; see :func:`companion_suffix`), so each companion name belongs to one CSV name. An
older harness named the metadata from the stem (``x.meta.json``, which ``x.txt`` and ``x``
would share); that file is still read for ``x.csv`` when it has none of its own and its
``csv`` field names ``x.csv`` (:func:`meta_to_read`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

META = ".meta.json"
LOG = ".log"
#: The largest metadata file read: a run's is a few KB, a million skipped lines a few MB.
MAX_META_BYTES = 64 << 20


def meta_path_for(csv_path: Path) -> Path:
    """Where a run to ``csv_path`` writes its metadata: ``results/x.csv.meta.json``."""
    return csv_path.with_name(csv_path.name + META)


def log_path_for(csv_path: Path) -> Path:
    """Where the workers of a run to ``csv_path`` write their stdout and stderr:
    ``results/x.csv.log``."""
    return csv_path.with_name(csv_path.name + LOG)


def companion_suffix(path: Path) -> str | None:
    """The companion ending of ``path``'s name (``.meta.json``, ``.log``; in any case), which
    a CSV's name must not have; None when it has none."""
    name = path.name.lower()
    return next((suffix for suffix in (META, LOG) if name.endswith(suffix)), None)


def names_csv(meta: Any, csv_path: Path) -> bool:
    """Whether ``meta`` (parsed metadata) is of a run whose CSV had ``csv_path``'s name."""
    csv = meta.get("csv") if isinstance(meta, dict) else None
    return isinstance(csv, str) and Path(csv).name == csv_path.name


def older_owner(meta: Any, csv_path: Path) -> str | None:
    """The other CSV whose metadata ``meta``, found at :func:`meta_path_for` of ``csv_path``,
    is, as an older harness named it (``s.meta.json``: ``s``'s name, ``s.txt``'s file from
    its stem); else None."""
    csv = meta.get("csv") if isinstance(meta, dict) else None
    if isinstance(csv, str) and Path(csv).stem == csv_path.name != Path(csv).name:
        return csv
    return None


def older_meta_path_for(csv_path: Path) -> Path:
    """Where an older harness wrote the metadata of ``csv_path``: ``results/x.meta.json``."""
    return csv_path.with_name(csv_path.stem + META)


def meta_to_read(csv_path: Path) -> Path:
    """The metadata file of ``csv_path``: its own (:func:`meta_path_for`), or, when there is
    none, the one an older harness wrote (:func:`older_meta_path_for`) if its ``csv`` field
    names ``csv_path``. The own path when neither is there."""
    own, older = meta_path_for(csv_path), older_meta_path_for(csv_path)
    if os.path.lexists(own) or not older.is_file():
        return own
    try:
        with open(older, "rb") as f:
            meta = json.loads(f.read(MAX_META_BYTES))
    except (OSError, ValueError, RecursionError):
        return own
    return older if names_csv(meta, csv_path) else own
