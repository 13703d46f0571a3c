"""The project's one small exception hierarchy. Every message names the bad value."""

from __future__ import annotations


class SudokuError(Exception):
    """Base of every error this project raises on purpose."""


class PuzzleError(SudokuError, ValueError):
    """A puzzle's text or digits are malformed (wrong length, bad character, bad digit)."""


class BackendError(SudokuError):
    """A backend was named, configured or used wrongly, or broke its contract."""


class UnknownBackendError(BackendError, LookupError):
    """No backend is registered under that name."""


class BackendOptionError(BackendError, ValueError):
    """An option is unknown to a backend, or its value is not allowed."""


class BackendUnavailableError(BackendError):
    """The backend cannot run here (typically a missing package)."""


class UnknownStatusError(BackendError, ValueError):
    """A solver reported a native status the backend does not know how to translate."""
