"""Provenance: the metadata JSON written beside every results CSV.

It records what a reader needs to trust or repeat a run: the command line, the project's
version and git SHA, Python and every solver package's version, the CPU model, core count
and OS, the limits, the seed, jobs, repeats, the datasets (with their SHA-256), the
backends with their availability (and, for a plugin, its distribution, version and entry
point), skipped input lines, the start and end times, and a calibration: a short fixed
workload timed at the run's start and end (``end_s`` is null for a run shorter than
:data:`CALIBRATE_END_AFTER_S`: the start's stands for the whole of it), by which the gate
divides solve times so that runs on a faster or busier machine stay comparable.
"""

from __future__ import annotations

import contextlib
import os
import platform
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Generic, TypeVar

from harness import UNKNOWN_VERSION
from harness.results import distributions

T = TypeVar("T")

#: Distributions whose versions every metadata file records (absent ones as null).
PACKAGES: tuple[str, ...] = (
    "sudoku-harness",
    "pycosat",
    "ortools",
    "python-constraint2",
    "python-sat",
    "miniexact",
    "pycryptosat",
    "z3-solver",
    "pandas",
    "numpy",
    "scipy",
    "click",
    "psutil",
    "matplotlib",
    "dask",
    "distributed",
)

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def meta_path_for(csv_path: Path) -> Path:
    """``results/x.csv`` -> ``results/x.meta.json``."""
    return csv_path.with_name(csv_path.stem + ".meta.json")


def package_versions() -> dict[str, str | None]:
    """Each of :data:`PACKAGES`' installed version (None when absent), as
    ``importlib.metadata.version`` gives it (see :mod:`harness.results.distributions`)."""
    return distributions.versions(PACKAGES)


#: One git command gives both the HEAD commit and whether tracked files differ from it.
GIT_STATUS = ("git", "status", "--porcelain=v2", "--branch", "--untracked-files=no")


def git_started() -> subprocess.Popen[str] | None:
    """``git status`` started in the project's folder, to be answered by :func:`_git_answer`
    (the caller does other work meanwhile); None when git cannot run."""
    try:
        return subprocess.Popen(
            GIT_STATUS,
            cwd=PROJECT_ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None


def _git_answer(process: subprocess.Popen[str] | None) -> dict[str, Any]:
    """``{"sha", "dirty"}`` from a started ``git status``: its ``# branch.oid`` header (None
    before the first commit) and whether any tracked file is listed as changed."""
    unknown: dict[str, Any] = {"sha": None, "dirty": None}
    if process is None:
        return unknown
    try:
        out, _ = process.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        return unknown
    lines = out.splitlines()
    oid = next((line.split()[2] for line in lines if line.startswith("# branch.oid ")), None)
    if process.returncode != 0 or oid is None or oid == "(initial)":
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


def environment(
    git: subprocess.Popen[str] | bool | None = True,
    spawning: contextlib.AbstractContextManager[Any] | None = None,
) -> dict[str, Any]:
    """Everything about the software and machine; the run-specific parts are added by the run.

    ``git`` is a ``git status`` already started by :func:`git_started`, or True to start
    it here. When another thread forks processes meanwhile, a fork inside a subprocess's
    start would give the forked process the subprocess's pipe, and reading the pipe would
    wait for that process to exit: the caller then starts git itself, and ``spawning`` is
    a lock its forks hold, held here while :mod:`platform` runs ``uname -p``.
    """
    if git is True:
        git = git_started()  # it runs while the versions are read
    packages = package_versions()
    with spawning or contextlib.nullcontext():  # last: the caller's first fork is done by now
        host = machine()
    return {
        "command": sys.argv,
        "cwd": os.getcwd(),
        # what harness.__version__ says, without importing importlib.metadata for it
        "project_version": packages["sudoku-harness"] or UNKNOWN_VERSION,
        "git": _git_answer(git or None),
        "python": {
            "version": platform.python_version(),
            "implementation": platform.python_implementation(),
            "executable": sys.executable,
        },
        "packages": packages,
        "machine": host,
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


def replace_atomically(path: Path, write: Callable[[IO[str]], None]) -> None:
    """Write ``path`` through a temporary file beside it, then rename it into place.

    The temporary file gets a fresh unique name, created with ``O_EXCL`` (so a symlink
    planted at that name is never followed), and the file keeps the usual permissions.
    """
    import tempfile  # here, not at start-up (it imports shutil and lzma)

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as f:
            write(f)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write atomically, so a killed run never leaves half a metadata file."""
    import json

    text = json.dumps(data, indent=2, sort_keys=False, default=str) + "\n"
    replace_atomically(path, lambda f: f.write(text))


def _queens(n: int, row: int = 0, cols: int = 0, left: int = 0, right: int = 0) -> int:
    """Solutions of the n-queens puzzle: recursion and bit operations, as in a solver."""
    if row == n:
        return 1
    count = 0
    free = ~(cols | left | right) & ((1 << n) - 1)
    while free:
        bit = free & -free
        free ^= bit
        count += _queens(n, row + 1, cols | bit, (left | bit) << 1, (right | bit) >> 1)
    return count


def _calibration_workload() -> int:
    """The fixed workload: 8-queens and some dictionary updates."""
    counts: dict[int, int] = {}
    for i in range(2000):
        counts[i % 81] = counts.get(i % 81, 0) + (i & 7)
    return _queens(8) + sum(counts.values())


#: A run this long (seconds) or longer is calibrated at its end too, not only at its start.
CALIBRATE_END_AFTER_S = 1.0
#: What :func:`calibrate` times, recorded in the metadata so that runs compare like with like.
CALIBRATION_WORKLOAD = "8-queens + 2000 dict updates, fastest of 31"


def calibrate(repeats: int = 31) -> float:
    """Seconds of the fixed calibration workload in this process: the fastest of
    ``repeats``. On a shared machine noise only ever adds time, so the
    fastest run is the steadiest measure of the machine's speed; a median moves with load."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        _calibration_workload()
        times.append(time.perf_counter() - start)
    return min(times)


class Background(Generic[T]):
    """``function()`` in a daemon thread of this process, from :meth:`start`, so that it
    overlaps what the process waits for (a git subprocess, the workers' solves) instead of
    adding to the run. :meth:`result` waits for it, or runs it here if it was never started,
    and returns its value or raises what it raised."""

    def __init__(self, function: Callable[[], T], name: str) -> None:
        self._function = function
        self._name = name
        self._thread: threading.Thread | None = None
        self._outcome: tuple[bool, Any] | None = None  # (returned, value or exception)

    @property
    def started(self) -> bool:
        """Whether it has been started, or run by :meth:`result`."""
        return self._thread is not None or self._outcome is not None

    def start(self) -> None:
        """Start it in a thread, unless started or run already."""
        if self._thread is None and self._outcome is None:
            self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
            self._thread.start()

    def _run(self) -> None:
        try:
            self._outcome = (True, self._function())
        except BaseException as exc:  # handed to the caller of result()
            self._outcome = (False, exc)

    def finish(self) -> None:
        """Wait for it if it was started; never runs it, never raises."""
        if self._thread is not None:
            self._thread.join()

    def result(self) -> T:
        if self._thread is not None:
            self._thread.join()
        elif self._outcome is None:
            self._run()
        assert self._outcome is not None
        returned, value = self._outcome
        if not returned:
            raise value
        return value  # type: ignore[no-any-return]


class BackgroundCalibration(Background[float]):
    """:func:`calibrate` in the background (see :class:`Background`).

    On a shared machine noise only adds time, and the fastest of the repeats is kept, so a
    repeat slowed by the other thread holding the interpreter does not change the figure.
    """

    def __init__(self) -> None:
        super().__init__(calibrate, "calibration")

    def seconds(self) -> float:
        """The calibration's seconds: waits for the thread, or calibrates here if it was
        never started."""
        return self.result()


def calibration_of(meta: dict[str, Any]) -> float | None:
    """The seconds a run's calibration took (the faster of its start and end, for the
    reason :func:`calibrate` gives), or None if absent."""
    entry = meta.get("calibration")
    if not isinstance(entry, dict) or entry.get("workload") != CALIBRATION_WORKLOAD:
        return None
    points = [entry.get(k) for k in ("start_s", "end_s")]
    values = [float(v) for v in points if isinstance(v, (int, float)) and v > 0]
    return min(values) if values else None


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


def read_meta(csv_path: Path) -> dict[str, Any] | None:
    """The metadata beside ``csv_path``, or None when it is absent or unreadable."""
    try:
        import json

        data = json.loads(meta_path_for(csv_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
