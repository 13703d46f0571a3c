"""Provenance: the metadata JSON written beside every results CSV.

It records what a reader needs to trust or repeat a run: the command line, the project's
version and git SHA, Python and every solver package's version, the CPU model, core count
and OS, the limits, the seed, jobs, repeats, the datasets (with their SHA-256), the
backends with their availability (and, for a plugin, its distribution, version and entry
point), skipped input lines, and the start and end times.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import stat
import subprocess
import sys
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

#: Distributions whose versions every metadata file records (absent ones as null).
PACKAGES: tuple[str, ...] = (
    "sudoku-harness",
    "pycosat",
    "ortools",
    "python-constraint2",
    "pandas",
    "numpy",
    "scipy",
    "click",
    "psutil",
)

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def meta_path_for(csv_path: Path) -> Path:
    """``results/x.csv`` -> ``results/x.meta.json``."""
    return csv_path.with_name(csv_path.stem + ".meta.json")


def package_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def git_sha() -> dict[str, Any]:
    """The checkout's HEAD and whether the work tree differs from it (None outside git)."""

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", *args], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=10
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    sha = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no") if sha else None
    return {"sha": sha, "dirty": bool(status) if status is not None else None}


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict[str, Any]:
    return {
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "usable_cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "os": platform.platform(),
        "machine": platform.machine(),
        "hostname": platform.node(),
    }


def file_sha256(path: str) -> str | None:
    """The SHA-256 of a regular file; None for stdin, a FIFO, a pipe or a device, which a
    second opening would block on or find empty (the readers have already read them)."""
    if path == "-":
        return None
    digest = hashlib.sha256()
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    return digest.hexdigest()


def environment() -> dict[str, Any]:
    """Everything about the software and machine; the run-specific parts are added by the run."""
    from harness import __version__

    return {
        "command": sys.argv,
        "cwd": os.getcwd(),
        "project_version": __version__,
        "git": git_sha(),
        "python": {
            "version": platform.python_version(),
            "implementation": platform.python_implementation(),
            "executable": sys.executable,
        },
        "packages": package_versions(),
        "machine": machine(),
    }


def plugin_origin(cls: type) -> dict[str, str] | None:
    """Where a backend class loaded as a plugin comes from (None for a built-in)."""
    plugins = sys.modules.get("backends.plugins")
    if plugins is None:  # never imported: this process loaded no plugin
        return None
    info = plugins.origin_of(cls)
    if info is None:
        return None
    return {"distribution": info.distribution, "version": info.version, "entry_point": info.target}


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write atomically, so a killed run never leaves half a metadata file."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=False, default=str) + "\n")
    os.replace(tmp, path)
