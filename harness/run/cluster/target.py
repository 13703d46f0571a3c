"""Where a cluster run solves (:class:`ClusterTarget`), the error a cluster that cannot be
used raises, and the one import of Dask."""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from backends.errors import SudokuError
from harness.gc_pause import gc_paused

INSTALL_HINT = "pip install 'sudoku-harness[dask]'"
#: What Dask imports only when it is installed, for work a harness run never gives it:
#: numpy (it allocates large message buffers with it; 50 ms of the 0.2 s import) and jinja2
#: (HTML views for notebooks; 10 ms). A cluster run's start waits for that import.
NOT_NEEDED_BY_DASK = ("numpy", "jinja2")
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


def requested_in(argv: Sequence[str]) -> ClusterTarget | None:
    """The cluster that ``harness run`` is asked for in ``argv`` (the arguments after the
    program's name), read before the command-line parser is even imported, so that Dask
    can start then (see :func:`harness.run.cluster.client.start_early`). None when no cluster
    is asked for, or the request is unclear (given twice, both kinds, ``local:`` with no
    count): the parser has the last word, and a cluster it is not asked for is not used."""
    if not argv or argv[0] != "run":
        return None
    found: dict[str, str] = {}
    args = iter(argv[1:])
    for arg in args:
        if arg == "--":
            break
        name, equals, value = arg.partition("=")
        if name in ("--cluster", "--scheduler-file"):
            given = value if equals else next(args, None)
            if given is None or found.setdefault(name, given) != given or len(found) > 1:
                return None
    if not found:
        return None
    file = found.get("--scheduler-file")
    target = ClusterTarget(found.get("--cluster"), None if file is None else Path(file))
    try:
        target.local_workers  # noqa: B018 - raises for local:0, which the parser reports
    except ClusterError:
        return None
    return target


def import_distributed() -> Any:
    """The ``distributed`` module, imported without :data:`NOT_NEEDED_BY_DASK`, or a
    ClusterError with the install line."""
    try:
        with yaml_parsed_in_c(), gc_paused():
            return import_without("distributed", NOT_NEEDED_BY_DASK)
    except ImportError:
        raise ClusterError(f"--cluster needs Dask distributed: {INSTALL_HINT}") from None


@contextlib.contextmanager
def yaml_parsed_in_c() -> Iterator[None]:
    """While in this block, ``yaml.safe_load`` parses with libyaml (PyYAML's
    ``CSafeLoader``: the same resolver, the same data) where PyYAML was built with it.

    Importing Dask parses its default configuration, ``dask.yaml`` and ``distributed.yaml``
    (15 kB), with ``yaml.safe_load``, which is PyYAML's pure-Python parser: ~11 ms of the
    import, against ~2 ms in C. A cluster run's start waits for that import. Nothing
    changes where PyYAML is absent or has no libyaml."""
    try:
        import yaml
    except ImportError:
        yield
        return
    loader = getattr(yaml, "CSafeLoader", None)
    python_load = yaml.safe_load
    if loader is not None:
        yaml.safe_load = lambda stream: yaml.load(stream, Loader=loader)
    try:
        yield
    finally:
        yaml.safe_load = python_load


def import_without(name: str, optional: Iterable[str]) -> ModuleType:
    """Import ``name`` as if the ``optional`` modules it would use if installed were not:
    those not imported yet are hidden for the import (``import numpy`` raises ImportError),
    and importable again after it. Should ``name`` need one of them after all, what the
    failed import loaded is forgotten and ``name`` is imported again with everything in
    sight. A module imported already is returned as it is (hiding modules in a process
    whose threads may be importing is never safe)."""
    imported = sys.modules.get(name)
    if imported is not None:
        return imported
    hidden = [other for other in optional if other not in sys.modules]
    before = set(sys.modules)
    sys.modules.update(dict.fromkeys(hidden))
    try:
        return importlib.import_module(name)
    except ImportError:  # it needs one of them after all
        for loaded in set(sys.modules) - before - set(hidden):
            del sys.modules[loaded]
    finally:
        for other in hidden:
            if sys.modules.get(other, "") is None:
                del sys.modules[other]
    return importlib.import_module(name)
