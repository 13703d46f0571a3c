"""The harness: dataset readers, runner, checker, result rows, tables, regression gate and CLI."""

from importlib import metadata

try:
    __version__ = metadata.version("sudoku-harness")
except metadata.PackageNotFoundError:  # running from a checkout that is not installed
    __version__ = "0+unknown"
