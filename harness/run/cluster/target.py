"""Where a cluster run solves (:class:`ClusterTarget`), the error a cluster that cannot be
used raises, and the one import of Dask."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backends.errors import SudokuError

INSTALL_HINT = "pip install 'sudoku-harness[dask]'"
#: What a Dask worker started by hand needs, for the message that refuses it.
DAEMON_SETTING = "DASK_DISTRIBUTED__WORKER__DAEMON=False"


class ClusterError(SudokuError):
    """The cluster cannot be used: not installed, not answering, or misconfigured."""


@dataclass(frozen=True)
class ClusterTarget:
    """Where to run: ``address`` (``tcp://host:port`` or ``local:N``) or a scheduler file."""

    address: str | None = None
    scheduler_file: Path | None = None

    def __str__(self) -> str:
        return self.address or f"scheduler file {self.scheduler_file}"

    @property
    def local_workers(self) -> int | None:
        """N for ``local:N``, else None."""
        if self.address is None or not self.address.startswith("local:"):
            return None
        count = self.address.removeprefix("local:")
        if not count.isdigit() or int(count) < 1:
            raise ClusterError(f"--cluster {self.address!r}: local:N needs N >= 1 workers")
        return int(count)


def import_distributed() -> Any:
    """The ``distributed`` module, or a ClusterError with the install line."""
    try:
        import distributed
    except ImportError:
        raise ClusterError(f"--cluster needs Dask distributed: {INSTALL_HINT}") from None
    return distributed
