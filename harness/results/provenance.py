"""Provenance: the metadata JSON written beside every results CSV.

It records what a reader needs to trust or repeat a run: the command line, the project's
version and git SHA, Python and the version of each package the run's rows depend on (the
solver libraries of its backends; Dask's, on a cluster), the CPU model, core count
and OS, the limits, the seed, jobs, repeats, the datasets (with their SHA-256), the
backends with their availability (and, for a plugin, its distribution, version and entry
point), skipped input lines, the start and end times, and a calibration: a short fixed
workload timed at the run's start and end (:mod:`harness.results.calibration`), by which the gate
divides solve times so that runs on a faster or slower machine stay comparable. A resumed
run also keeps the metadata of each run it completes, in one flat list (:func:`earlier_runs`).
The file is named from the CSV's whole name (:mod:`harness.results.companions`).
"""

from __future__ import annotations

import os
import platform
import stat
import subprocess
import sys
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from harness import __version__
from harness.results.companions import meta_path_for as meta_path_for  # its writer's name too
from harness.results.companions import meta_to_read

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def package_versions(names: Iterable[str]) -> dict[str, str | None]:
    """Each named distribution's installed version, None when it is not installed."""
    names = sorted(set(names))
    if not names:  # a run of built-in backends only: importlib.metadata not needed
        return {}
    from importlib import metadata

    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


#: One git command gives both the HEAD commit and whether tracked files differ from it.
GIT_STATUS = ("git", "status", "--porcelain=v2", "--branch", "--untracked-files=no")


def git_state() -> dict[str, Any]:
    """``{"sha", "dirty"}`` of the project's checkout: ``git status``'s ``# branch.oid`` header
    and whether any tracked file differs from it; both None when git cannot tell."""
    unknown: dict[str, Any] = {"sha": None, "dirty": None}
    try:
        done = subprocess.run(
            GIT_STATUS,
            cwd=PROJECT_ROOT,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return unknown
    lines = done.stdout.splitlines()
    oid = next((line.split()[2] for line in lines if line.startswith("# branch.oid ")), None)
    if done.returncode != 0 or oid is None or oid == "(initial)":
        return unknown
    return {"sha": oid, "dirty": any(not line.startswith("#") for line in lines)}


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
    import hashlib  # here, not at start-up: it loads OpenSSL

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


def environment(packages: Iterable[str] = (), git: bool = True) -> dict[str, Any]:
    """Everything about the software and machine; the run-specific parts are added by the run.

    ``packages``: the distributions whose versions to record (see :func:`package_versions`);
    ``git``: whether to ask git for the checkout's state (a cluster's worker does not).
    """
    return {
        "command": sys.argv,
        "cwd": os.getcwd(),
        "project_version": __version__,
        "git": git_state() if git else {"sha": None, "dirty": None},
        "python": {
            "version": platform.python_version(),
            "implementation": platform.python_implementation(),
            "executable": sys.executable,
        },
        "packages": package_versions(packages),
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


def replace_atomically(
    path: Path, write: Callable[[IO[str]], None], before: Callable[[int], None] | None = None
) -> None:
    """Write ``path`` through a temporary file beside it, then rename it into place.

    The temporary file gets a fresh unique name, created with ``O_EXCL`` (so a symlink
    planted at that name is never followed), and the file keeps the usual permissions.
    ``before`` is given the new file's descriptor once it is written, before the rename
    (:meth:`harness.results.lock.Lock.take` locks it there).
    """
    import tempfile  # here, not at start-up (it imports shutil and lzma)

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as f:
            write(f)
            if before is not None:
                f.flush()
                before(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write atomically, so a killed run never leaves half a metadata file."""
    import json

    text = json.dumps(data, indent=2, sort_keys=False, default=str) + "\n"
    replace_atomically(path, lambda f: f.write(text))


def machine_differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """How two runs' machines differ, as "what old -> new" (CPU model, cores, Python)."""
    fields = {
        "CPU": lambda m: m.get("machine", {}).get("cpu_model"),
        "cores": lambda m: m.get("machine", {}).get("cpu_count"),
        "Python": lambda m: m.get("python", {}).get("version"),
    }
    return [  # a field one run does not record (an older metadata file) is not a difference
        f"{name} {get(old)} -> {get(new)}"
        for name, get in fields.items()
        if None not in (get(old), get(new)) and get(old) != get(new)
    ]


def csv_digest(path: Path) -> dict[str, Any]:
    """What vouches for a results CSV as its run left it: its size, modification time and
    SHA-256, recorded in the metadata when the run ends (see :func:`unchanged`)."""
    info = os.stat(path)
    return {"size": info.st_size, "mtime_ns": info.st_mtime_ns, "sha256": file_sha256(str(path))}


def unchanged(path: Path, recorded: Any) -> bool | None:
    """Whether ``path`` is still the file its run recorded (``recorded``: a
    :func:`csv_digest`); None when nothing was recorded (a run that did not end). A file of
    the same size and time is taken as unchanged; another time (a copy, a checkout) is
    settled by its SHA-256."""
    if not isinstance(recorded, dict) or not isinstance(recorded.get("sha256"), str):
        return None
    info = os.stat(path)
    if info.st_size != recorded.get("size"):
        return False
    if info.st_mtime_ns == recorded.get("mtime_ns"):
        return True
    return file_sha256(str(path)) == recorded["sha256"]


def read_meta(csv_path: Path) -> dict[str, Any] | None:
    """The metadata of ``csv_path`` (see :func:`~harness.results.companions.meta_to_read`),
    or None when it is absent or unreadable."""
    try:
        import json

        data = json.loads(meta_to_read(csv_path).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


#: Where a resumed run's metadata keeps the metadata of the runs it completes, oldest first.
EARLIER = "earlier_runs"
#: Where an older harness kept the one before, each nested in the next.
NESTED_EARLIER = "previous_session"


def earlier_runs(meta: dict[str, Any]) -> list[Any]:
    """What a run resuming the run of ``meta`` records under :data:`EARLIER`: every earlier
    run's metadata and ``meta``'s, oldest first, each without its own list. An older file's
    runs nested under :data:`NESTED_EARLIER` are taken out, a level at a time."""
    newest_first: list[Any] = []
    node: Any = meta
    while isinstance(node, dict):
        newest_first.append({k: v for k, v in node.items() if k not in (EARLIER, NESTED_EARLIER)})
        if isinstance(node.get(EARLIER), list):
            newest_first.extend(reversed(node[EARLIER]))
            break
        node = node.get(NESTED_EARLIER)
    else:
        if node is not None:  # an older harness wrote "unreadable" for one it could not read
            newest_first.append(node)
    return newest_first[::-1]
