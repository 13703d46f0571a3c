"""What crosses the pipes between the parent and a worker: tasks, outcomes and notices.

Tasks go to the worker pickled (a :class:`~multiprocessing.connection.Connection`): only the
parent writes them. Answers come back as frames the parent parses without running anything:
a header (:data:`MAGIC` and the payload's length, at most :data:`MAX_FRAME`) and a JSON list
of items, each checked field by field (:class:`Reader`). The worker's solver runs in the
worker's process and could write to that pipe: whatever it writes is refused as malformed
(:class:`Malformed`), never unpickled, and costs that worker's task alone.

An item is one :class:`~harness.outcome.Outcome` per task as its plain list (its
``wire()``, the solution as hex), in task order, or a notice. A worker sends what it has
done every couple of milliseconds rather than after each task: one message per task costs
the worker a write each, which a sub-millisecond solve would feel. Answers a killed worker
had not sent yet are not lost: the parent runs those tasks again (see
:mod:`harness.run.worker.pool`). Before the first task of a (backend, grid size) the worker
also sends a :class:`Warming` notice and, once its untimed warm-up is over, a
:class:`Ready` notice, each at once. The caller's ``tag``
never leaves the parent; models and solver objects are built inside the worker.
"""

from __future__ import annotations

import contextlib
import json
import numbers
import operator
import os
import select
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, NamedTuple

from backends.puzzle import Puzzle
from harness.outcome import STATUSES, Outcome

#: A task as the worker gets it: (backend spec, box side, cells as bytes, limit, timeout).
WireTask = tuple[str, int, bytes, int, float | None]
#: A frame's header: these 4 bytes, then the payload's length (little-endian, 4 bytes).
MAGIC = b"SHw1"
HEADER = struct.Struct("<4sI")
#: The longest payload a frame may have. A worker's batch stays far below it: at most 256
#: answers (:data:`~harness.run.worker.pool.MAX_DEPTH`), each a grid of up to 625 digits, a
#: message and a ``cmd:`` solver's statistics line (at most 64 KiB).
MAX_FRAME = 32 << 20
#: Seconds a frame may stay half-read: an honest worker writes each in one go.
FRAME_STALL_S = 5.0


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


#: An answer's seven measures (``encode_s`` to ``wall_s``) as one field of a frame: packed,
#: in hex, NaN for None (a float's decimal text costs a worker and the parent far more).
MEASURES = struct.Struct("<7d")
_NAN = float("nan")
#: The fields of an answer in a frame: the measures are one.
FIELDS = len(Outcome._fields) - MEASURES.size // 8 + 1


def readable(end: Connection | Reader) -> bool:
    """Whether something waits to be read at ``end``: one select(2), where
    ``Connection.poll`` builds a selector each time."""
    return bool(select.select((end,), (), (), 0)[0])


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
    """A grid's digits to send: as bytes when they fit (the common case), else as a tuple of
    ints for the parent's checker to refuse.

    Raises TypeError for a value that is not an integer (a float, a string).
    """
    if type(solution) in (tuple, list):
        try:
            return bytes(solution)  # type: ignore[arg-type]
        except ValueError:  # a digit below 0 or above 255
            pass
    return tuple(map(operator.index, solution))  # type: ignore[call-overload]


# --- in the worker ---


def _plain(value: object) -> object:
    """What JSON cannot say as it is: a solution's bytes as hex, a notice as its form, a
    number of another type (numpy's) as a number, anything else as its text."""
    if type(value) is bytes:
        return value.hex()
    if type(value) is Warming:
        return "warming"
    if type(value) is Ready:
        return {"ready": value.at, "failure": value.failure}
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return str(value)


_encode = json.JSONEncoder(separators=(",", ":"), default=_plain).encode


def _measures(values: tuple[Any, ...]) -> str:
    """The seven measures of an answer, packed (see :data:`MEASURES`)."""
    try:
        return MEASURES.pack(*values).hex()
    except (struct.error, TypeError):  # one not measured (None), or a clock that is no number
        numbers_only = [v if isinstance(v, (int, float)) else _NAN for v in values]
        return MEASURES.pack(*numbers_only).hex()


def frame(items: list[Any]) -> bytes:
    """``items`` (answers as :meth:`Outcome.wire` tuples, and notices) as one frame."""
    framed = [
        [
            *item[:2],
            item[2].hex() if type(item[2]) is bytes else item[2],
            *item[3:8],
            _measures(item[8:15]),
            item[15],
        ]
        if type(item) is tuple
        else item
        for item in items
    ]
    payload = _encode(framed).encode()
    return HEADER.pack(MAGIC, len(payload)) + payload


def send(fd: int, items: list[Any]) -> None:
    """Write ``items`` to ``fd`` as one frame (raises OSError when the parent has gone)."""
    data = memoryview(frame(items))
    while data:
        data = data[os.write(fd, data) :]


# --- in the parent ---


class Malformed(Exception):
    """What a worker sent is not a frame of answers; the message says how."""


_NONE = type(None)
_OPT_STR = (str, _NONE)
_OPT_INT = frozenset((int, _NONE))
_SCALAR = (str, int, float, bool, _NONE)


#: The field types of answers found right (a set of tuples): most answers of a run share a
#: few, so each is checked field by field once.
_GOOD: set[tuple[type, ...]] = set()
_ANSWER_TYPES = (
    (str,),
    _OPT_STR,
    (str, list, _NONE),
    *[tuple(_OPT_INT)] * 4,
    (list,),
    (str,),
    _OPT_STR,
)


def _checked(item: Any) -> Any:
    """An item of a frame as the pool takes it: an answer as its wire tuple (the solution
    as bytes or a tuple of ints), or a notice; raises :class:`Malformed`."""
    if type(item) is list:
        return _answer(item)
    if item == "warming":
        return Warming()
    if type(item) is dict and item.keys() == {"ready", "failure"}:
        at, failure = item["ready"], item["failure"]
        if type(at) in (float, int) and type(failure) in _OPT_STR:
            return Ready(float(at), failure)
    raise Malformed(f"an item that is no answer nor notice: {str(item)[:40]!r}")


def _answer(item: list[Any]) -> tuple[Any, ...]:
    """An answer of a frame (see :func:`frame`) as its wire tuple; raises :class:`Malformed`."""
    shape = tuple(map(type, item))
    if shape not in _GOOD:
        if len(item) != FIELDS:
            raise Malformed(f"an answer of {len(item)} fields, not {FIELDS}")
        if not all(map(operator.contains, _ANSWER_TYPES, shape)):
            raise Malformed("an answer with a field of the wrong type")
        if len(_GOOD) < 4096:
            _GOOD.add(shape)
    status, message, solution, solutions, nodes, guesses, backtracks, native, measures, host = item
    if status not in STATUSES:
        raise Malformed(f"unknown status {str(status)[:40]!r}")
    try:
        values = MEASURES.unpack(bytes.fromhex(measures))
    except (ValueError, struct.error):
        raise Malformed("measures that are not hex of 7 numbers") from None
    total = sum(values)
    if total != total:  # a NaN among them: not measured
        values = tuple([None if v != v else v for v in values])
    if type(solution) is str:
        try:
            solution = bytes.fromhex(solution)
        except ValueError:
            raise Malformed("a solution that is not hex") from None
    elif type(solution) is list:
        if any(type(d) is not int for d in solution):
            raise Malformed("a solution with a digit that is not an integer")
        solution = tuple(solution)
    if native:
        if any(
            type(p) is not list or len(p) != 2 or type(p[0]) is not str or type(p[1]) not in _SCALAR
            for p in native
        ):
            raise Malformed("a native statistic that is not a (name, value) pair")
        native = tuple(map(tuple, native))
    else:
        native = ()
    return (status, message, solution, solutions, nodes, guesses, backtracks, native, *values, host)


def _items(payload: bytearray, checked: Callable[[Any], Any]) -> list[Any]:
    """The items of a frame's payload, each ``checked``; raises :class:`Malformed`."""
    try:
        items = json.loads(payload)
    except (ValueError, RecursionError) as exc:
        raise Malformed(f"a frame that is not JSON ({str(exc)[:60]})") from None
    if type(items) is not list:
        raise Malformed("a frame that is not a list")
    return list(map(checked, items))


class Reader:
    """The parent's end of a worker's answers: read without blocking, a frame at a time,
    each item checked by ``checked`` (by default as an answer or a notice: see :meth:`read`).
    Its :meth:`fileno` is for ``select``."""

    def __init__(self, fd: int, checked: Callable[[Any], Any] | None = None) -> None:
        self.fd = fd
        self._checked = _checked if checked is None else checked
        os.set_blocking(fd, False)
        self._buffer = bytearray()
        self._failure: EOFError | Malformed | None = None  # to raise once the items are taken
        #: When the frame now half-read began to arrive (perf_counter), or None.
        self.partial_since: float | None = None

    def fileno(self) -> int:
        return self.fd

    @property
    def closed(self) -> bool:
        return self.fd < 0

    def close(self) -> None:
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = -1

    def read(self) -> list[Any]:
        """The items of every whole frame that has come (maybe none). Raises EOFError once
        the worker has gone (its end closed), :class:`Malformed` for what is no frame; each
        only after the items that came before it have been returned."""
        if self._failure is not None:
            raise self._failure
        buffer = self._buffer
        ended = False
        while len(buffer) <= HEADER.size + MAX_FRAME:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                break
            except OSError:
                chunk = b""
            if not chunk:
                ended = True
                break
            buffer += chunk
        items: list[Any] = []
        start = 0
        try:
            while len(buffer) - start >= HEADER.size:
                end = start + HEADER.size + self._length(buffer, start)
                if len(buffer) < end:
                    break
                items += _items(buffer[start + HEADER.size : end], self._checked)
                start = end
            if not MAGIC.startswith(buffer[start : start + len(MAGIC)]):  # no frame's start
                raise Malformed(f"bytes that begin no frame: {bytes(buffer[start : start + 12])!r}")
            if ended:
                raise EOFError
        except (EOFError, Malformed) as exc:
            if not items:
                raise
            self._failure = exc
        del buffer[:start]
        self.partial_since = None if not buffer else self.partial_since or time.perf_counter()
        return items

    @staticmethod
    def _length(buffer: bytearray, start: int) -> int:
        """The length of the payload of the frame at ``start``; raises :class:`Malformed`."""
        magic, length = HEADER.unpack_from(buffer, start)
        if magic != MAGIC:
            raise Malformed(f"bytes that begin no frame: {bytes(buffer[start : start + 12])!r}")
        if length > MAX_FRAME:
            raise Malformed(f"a frame of {length} bytes, over {MAX_FRAME}")
        return int(length)

    @property
    def failed(self) -> bool:
        """Whether :meth:`read` will raise (the worker's end, or what is no frame) at once."""
        return self._failure is not None

    def stalled(self, now: float) -> bool:
        """Whether a frame has stayed half-read for :data:`FRAME_STALL_S` by ``now``."""
        return self.partial_since is not None and now - self.partial_since >= FRAME_STALL_S
