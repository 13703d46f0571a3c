"""``harness run --resume``: the settings of the run a resumed run completes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.results import companions, metadata, provenance
from harness.run.config import RunError, check_out_file

#: Backends whose spec names code to start (a program, a library): a resume runs them only
#: when the command line names them, never from the metadata alone.
STARTS_CODE = ("cmd", "lib")

#: What a resumed run shares with the run it completes: setting -> (its flag, where the
#: metadata keeps it).
RESUMED: dict[str, tuple[str, Callable[[dict[str, Any]], Any]]] = {
    "backends": ("-b", lambda m: [b["spec"] for b in m["backends"]]),
    "files": ("FILES", lambda m: [d["path"] for d in m["datasets"]]),
    "timeout": ("--timeout", lambda m: m["limits"]["timeout_s"]),
    "memory_limit": ("--memory-limit", lambda m: m["limits"]["memory_limit_mib"]),
    "limit_solutions": ("--limit-solutions", lambda m: m["limits"]["solutions_limit"]),
    "repeat": ("--repeat", lambda m: m["repeat"]),
    "seed": ("--seed", lambda m: m["seed"]),
}


def resume_settings(out: Path, given: dict[str, Any]) -> dict[str, Any]:
    """The settings of the run recorded beside ``out``, which a ``--resume`` completes.

    ``given`` holds the settings named on the command line; each must equal the recorded
    one (backends and files as sets). Raises :class:`RunError` naming what differs, a
    dataset file changed since, or a run of ``--against``; and
    :class:`harness.results.ResultsError` for an ``out`` that is not a run to complete (see
    :func:`harness.run.config.check_out_file`).
    Returns ``{}`` when ``out`` does not exist yet: the run starts.
    """
    check_out_file(out, resume=True)
    meta = metadata.read_meta(out)
    if meta is None:
        return {}
    if "against" in meta:
        raise RunError(
            f"--resume: {out} is a run with --against, which cannot be resumed; "
            "start it again with a new --out"
        )
    try:
        recorded = {name: get(meta) for name, (_, get) in RESUMED.items()}
    except (KeyError, TypeError):
        raise RunError(f"{companions.meta_to_read(out)}: no run settings in it") from None
    if "backends" not in given:
        _refuse_code(recorded["backends"])
    differ = [
        f"{RESUMED[name][0]} {_shown(value)} (the run used {_shown(recorded[name])})"
        for name, value in given.items()
        if name in recorded and not _same(value, recorded[name])
    ]
    if differ:
        raise RunError(
            f"--resume: {'; '.join(differ)}; drop them to take the run's settings "
            f"from {companions.meta_to_read(out)}, or choose another --out"
        )
    for entry in meta["datasets"]:
        path = entry.get("path")
        if path == "-" and "files" not in given:
            raise RunError("--resume: the run read standard input; give - again to resume it")
        digest = None if path == "-" else provenance.file_sha256(path)
        if path != "-" and digest is None:
            where = meta.get("cwd", "?")
            raise RunError(f"--resume: cannot read {path} (the run was started in {where})")
        if path != "-" and entry.get("sha256") != digest:
            raise RunError(f"--resume: {path} is not the file the run read (SHA-256 differs)")
    return recorded


def _refuse_code(specs: list[str]) -> None:
    """Refuse to start a program or library that only the metadata names."""
    import shlex

    named = [s for s in specs if s.split(":", 1)[0] in STARTS_CODE]
    if named:
        flags = " ".join(f"-b {shlex.quote(s)}" for s in specs)
        raise RunError(
            f"--resume: the run's metadata names code to start ({named[0]}); "
            f"it runs only when named on the command line: {flags}"
        )


def _same(given: Any, recorded: Any) -> bool:
    if isinstance(given, list | tuple):
        return set(map(str, given)) == set(map(str, recorded))
    return given == recorded or str(given) == str(recorded)


def _shown(value: Any) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
