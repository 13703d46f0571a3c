"""The harness: dataset readers, runner, checker, result rows, tables, regression gate and CLI."""

from __future__ import annotations

#: The project's version (``pyproject.toml`` reads it from here).
__version__ = "0.1.0"
