"""What crosses the pipes between the parent and a worker: tasks, outcomes and notices.

Only plain data crosses: a batch of task tuples (:meth:`Task.wire`) goes in; lists of
answers come back, each one :class:`Outcome` per task as its plain tuple
(:meth:`Outcome.wire`), in task order. A worker sends what it has done every couple of
milliseconds rather than after each task: one message per task costs the worker a write
and a pickle each, which a sub-millisecond solve would feel. Answers a killed worker
had not sent yet are not lost: the parent runs those tasks again (see
:mod:`harness.run.worker.pool`). Before the first task of a (backend, grid size) the worker
also sends a :class:`Warming` notice and, once its untimed warm-up is over, a :class:`Ready`
notice, each at once. The caller's ``tag`` never leaves the parent; models and solver
objects are built inside the worker.
"""

from __future__ import annotations

import operator
import select
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, NamedTuple

from backends.base import Status
from backends.puzzle import Puzzle

#: A task as the worker gets it: (backend spec, box side, cells as bytes, limit, timeout).
WireTask = tuple[str, int, bytes, int, float | None]


class Task(NamedTuple):  # not a dataclass: the parent makes one per solve, a third the cost
    """One solve to run, immutable. Only :meth:`wire` crosses the pipe."""

    backend: str  # spec, e.g. "ac3:select=B"
    puzzle: Puzzle
    limit: int = 1
    timeout: float | None = None
    tag: Any = None  # the caller's handle, returned untouched with the outcome; never sent

    def wire(self) -> WireTask:
        """What the worker gets: cheap to pickle (digits fit a byte: n <= 25)."""
        return (self.backend, self.puzzle.box, self.puzzle.digits, self.limit, self.timeout)


class Outcome(NamedTuple):
    """How one task ended: measured in the worker, or decided by the parent that killed it.

    Immutable. A named tuple rather than a dataclass because it crosses the pipe once per
    solve: a plain tuple pickles faster than a dict or a dataclass.
    ``None`` means not measured (an empty CSV cell), never zero.
    """

    status: Status
    message: str | None = None
    #: The backend's digits, checked by the parent: bytes when they fit (see :func:`compact`),
    #: else a tuple of ints.
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
        """The plain tuple sent to the parent (the status as its string value)."""
        return (self.status._value_, *self[1:])

    @classmethod
    def received(cls, wire: tuple[Any, ...]) -> Outcome:
        """The outcome :meth:`wire` sent: its status an enum again."""
        return make_outcome((_STATUS[wire[0]], *wire[1:]))

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
_STATUS = {status.value: status for status in Status}


def readable(connection: Connection) -> bool:
    """Whether a message waits in ``connection``: one select(2), where
    ``Connection.poll`` builds a selector each time."""
    return bool(select.select((connection,), (), (), 0)[0])


@dataclass(frozen=True)
class Warming:
    """Notice: the worker starts building and warming up the next task's backend."""


@dataclass(frozen=True)
class Ready:
    """Notice: the warm-up is over at ``at`` (the worker's perf_counter); the task's clock
    starts then. ``failure`` says why the warm-up failed, or is None."""

    at: float
    failure: str | None = None


def compact(solution: object) -> bytes | tuple[int, ...]:
    """A grid's digits to send: as bytes when they fit (the common case, cheaper to
    pickle), else as a tuple of ints for the parent's checker to refuse.

    Raises TypeError for a value that is not an integer (a float, a string).
    """
    if type(solution) in (tuple, list):
        try:
            return bytes(solution)  # type: ignore[arg-type]
        except ValueError:  # a digit below 0 or above 255
            pass
    return tuple(map(operator.index, solution))  # type: ignore[call-overload]
