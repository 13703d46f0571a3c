"""How one solve ended, as the run records it and the checks judge it: :class:`Outcome`.

It sits below both the runner (:mod:`harness.run`, which makes one per task, in a worker or
in the parent that killed it) and the checks (:mod:`harness.check`, which turn a refuted
answer into another outcome), so neither imports the other for it. How an outcome crosses a
worker's pipe is :mod:`harness.run.worker.wire`'s.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from backends.base import Status


class Outcome(NamedTuple):
    """How one task ended: measured in the worker, or decided by the parent that killed it.

    Immutable. A named tuple rather than a dataclass because one is made per solve, and a
    plain tuple is cheaper to build and to send on (see :meth:`wire`).
    ``None`` means not measured (an empty CSV cell), never zero.
    """

    status: Status
    message: str | None = None
    #: The backend's digits, checked by the parent: bytes when they fit (see
    #: :func:`harness.run.worker.wire.compact`), else a tuple of ints.
    solution: tuple[int, ...] | bytes | None = None
    solutions: int | None = None
    nodes: int | None = None
    guesses: int | None = None
    backtracks: int | None = None
    #: Native statistics as (name, value) pairs, in the backend's order.
    native: tuple[tuple[str, Any], ...] = ()
    encode_s: float | None = None
    encode_cpu_s: float | None = None
    solve_s: float | None = None
    solve_cpu_s: float | None = None
    #: The solver's own clock for the solve, when it reports one (``SolveResult.own_solve_s``).
    own_solve_s: float | None = None
    peak_rss_mib: float | None = None
    wall_s: float | None = None  # the whole task in the worker, build to answer
    host: str | None = None  # the machine that solved it, where not this one (a cluster run)

    def wire(self) -> tuple[Any, ...]:
        """The plain tuple a worker answers with (the status as its string value)."""
        return (self.status._value_, *self[1:])

    @classmethod
    def received(cls, wire: tuple[Any, ...]) -> Outcome:
        """The outcome :meth:`wire` made: its status an enum again."""
        return make_outcome((STATUSES[wire[0]], *wire[1:]))

    def fields(self) -> dict[str, Any]:
        """The row's measured fields: every field (but ``host`` when None),
        native ones flattened (one that has a measured field's name is dropped: it cannot
        overwrite it)."""
        row = self._asdict()
        del row["native"]
        if row["host"] is None:  # solved here: the row's own host stands
            del row["host"]
        for name, value in self.native:
            row.setdefault(name, value)
        return row


#: An :class:`Outcome` from a tuple of all its fields: tuple.__new__, without the defaults
#: ``Outcome(...)`` fills in (once per solve in a worker and in the parent)
make_outcome = Outcome._make
#: Each status by its value, as a row or a frame holds it.
STATUSES = {status.value: status for status in Status}
