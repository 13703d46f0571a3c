"""The harness: dataset readers, runner, checker, result rows, tables, regression gate and CLI."""

from __future__ import annotations

#: The version of a checkout that is not installed (no metadata to read it from).
UNKNOWN_VERSION = "0+unknown"


def __getattr__(name: str) -> str:
    """``__version__``, read from the installed metadata only when asked."""
    if name != "__version__":
        raise AttributeError(f"module 'harness' has no attribute {name!r}")
    from importlib import metadata

    try:
        return metadata.version("sudoku-harness")
    except metadata.PackageNotFoundError:  # running from a checkout that is not installed
        return UNKNOWN_VERSION
