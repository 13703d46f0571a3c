"""The harness: dataset readers, runner, checker, result rows, tables, regression gate and CLI.

:mod:`harness.outcome` holds how one solve ended, below both the runner and the checks.
"""

from __future__ import annotations

#: The project's version (``pyproject.toml`` reads it from here).
__version__ = "0.1.0"
