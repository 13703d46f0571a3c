"""``cmd:`` -- any executable that speaks a line protocol (the README's "Bring your own
solver" section describes it).

``-b 'cmd:./my_solver --fast'``: everything after ``cmd:`` is the command line, split as a
shell would split it (:func:`shlex.split`) and run without a shell. One solver process
serves many puzzles:

1. It starts, and prints ``READY`` (optionally ``name=... version=... max_box=...``).
2. For each puzzle the backend writes ``<puzzle> <limit>``: the canonical one-line form
   (``.`` for a blank, ``1-9`` then ``A``, ``B``... for larger grids) and the solution limit.
3. The solver answers one line, ``<STATUS> <grid or -> [key=value ...]``. STATUS is
   SOLVED, UNSAT, UNKNOWN or TIMEOUT; keys ``solutions``, ``nodes``, ``guesses`` and
   ``backtracks`` fill the counters, ``time_us`` (the solver's own clock, microseconds)
   becomes the row's ``own_solve_s`` (a value that is not a finite number, 0 or more, is
   dropped, and the row's message says so), and any other key a native statistic. Lines
   starting with ``#`` are ignored.

A statistic never shadows a column of the row: one named like a column (``host``,
``status``, ``backend``...: :data:`backends.base.ROW_COLUMNS`) is written as ``native_host``,
and so on. A key is a letter or ``_`` then letters, digits, ``_``, ``.`` or ``-``; a key given
twice (``host`` and ``native_host`` count as one) breaks the protocol.

The round trip (write the line, read the answer) is the ``solve`` phase. A solver that
does not answer within its time limit is killed (its whole process group) and the result
is TIMEOUT; one that exits (seen at once, even while a process it started holds its
stdout), or answers a line that breaks the protocol, raises :class:`SolverError` quoting the
exit status or the line. Either way the process is gone,
:attr:`CmdBackend.stale` says so, and the next solve starts a fresh one (the harness does
that in its untimed warm-up). The solver's stderr is the caller's; its process dies with
the caller's (Linux ``PR_SET_PDEATHSIG``).

A command whose program cannot start (not found, not executable, not a program, a ``#!``
interpreter that is missing) is refused when the backend is built
(:class:`BackendOptionError`), before any solve.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, ClassVar

from backends.base import ROW_COLUMNS, Backend, Option, SolveResult, Status
from backends.errors import BackendError, BackendOptionError, UnknownStatusError
from backends.puzzle import Puzzle, canonical_alphabet

#: ``-b cmd`` alone runs the example Python solver (present in a source checkout).
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "cmd" / "solver.py"
STATUSES = {s.value: s for s in (Status.SOLVED, Status.UNSAT, Status.UNKNOWN, Status.TIMEOUT)}
COUNTER_KEYS = ("solutions", "nodes", "guesses", "backtracks")
#: Digit -> its symbol in the canonical one-line form (``.`` for 0), as a bytes table.
LINE_SYMBOLS = ("." + canonical_alphabet(25)).encode().ljust(256, b"?")
#: Longest answer line accepted, bytes (a 25x25 grid and its statistics fit easily).
MAX_LINE = 1 << 16
#: While it waits for a line, the backend checks this often (ms) whether the solver exited:
#: its stdout gives no end of file while a process it started holds it open.
EXIT_CHECK_MS = 50
#: What a statistic's key looks like.
KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_PR_SET_PDEATHSIG = 1


class SolverError(BackendError):
    """The solver process exited, or broke the protocol; the message quotes what it did."""


def _default_command() -> str:
    return shlex.join([sys.executable, str(EXAMPLE)]) if EXAMPLE.exists() else ""


def _die_with_parent() -> None:  # runs in the solver's process, between fork and exec
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def translate_status(word: str) -> Status:
    """The status an answer line starts with; a word the protocol lacks is refused."""
    try:
        return STATUSES[word]
    except KeyError:
        raise UnknownStatusError(f"cmd solver answered an unknown status {word!r}") from None


def cannot_start(program: str) -> str | None:
    """Why ``program`` (a command's first word) cannot start, or None: not found, a
    directory, not executable, not a program (no ``#!`` line, not a binary), or a script
    whose ``#!`` interpreter is missing. Runs nothing."""
    path = shutil.which(program)
    if path is None:
        if os.sep not in program:
            return f"no {program!r} on PATH"
        if not os.path.exists(program):
            return f"{program!r} does not exist"
        if os.path.isdir(program):
            return f"{program!r} is a directory"
        return f"{program!r} is not executable"
    try:
        with open(path, "rb") as f:
            first = f.readline(256)
    except OSError as exc:
        return f"cannot read {program!r}: {exc.strerror}"
    if not first.startswith((b"#!", b"\x7fELF")) and not _other_formats():
        return f"{program!r} is neither a #! script nor a program (Exec format error)"
    words = first[2:].decode(errors="replace").split() if first.startswith(b"#!") else []
    if words and shutil.which(words[0]) is None:
        return f"{program!r} names the interpreter {words[0]!r}, which cannot run"
    if len(words) == 2 and os.path.basename(words[0]) == "env" and shutil.which(words[1]) is None:
        return f"{program!r} runs {words[1]!r} through env, and there is no {words[1]!r} on PATH"
    return None


def _other_formats() -> bool:
    """Whether this system may run programs that are neither ELF binaries nor ``#!`` scripts
    (not Linux, or Linux with a ``binfmt_misc`` format registered)."""
    if not sys.platform.startswith("linux"):
        return True
    try:
        return bool(set(os.listdir("/proc/sys/fs/binfmt_misc")) - {"register", "status"})
    except OSError:
        return False


def statistic_name(key: str) -> str:
    """The column a solver's statistic ``key`` goes in: ``native_<key>`` for a key that names
    one of the row's own columns; a key that is not a name raises ValueError."""
    if not KEY.fullmatch(key):
        raise ValueError(
            f"{key!r} is not a statistic's name (a letter or _, then letters, digits, _.-)"
        )
    return f"native_{key}" if key in ROW_COLUMNS else key


def own_seconds(time_us: object) -> tuple[float | None, str]:
    """The solver's own clock from its ``time_us`` value, in seconds, and the message that
    says why a value was dropped (not a finite number of microseconds, 0 or more)."""
    if time_us is None:
        return None, ""
    if type(time_us) in (int, float) and 0 <= time_us < math.inf:  # type: ignore[operator]
        return time_us / 1e6, ""  # type: ignore[operator]
    return None, f"time_us={time_us} dropped: not a number of microseconds, 0 or more"


def _number(text: str) -> int | float | str:
    for kind in (int, float):
        with contextlib.suppress(ValueError):
            return kind(text)
    return text


class CmdBackend(Backend):
    """Any executable that speaks the line protocol of the module docstring."""

    name: ClassVar[str] = "cmd"
    summary: ClassVar[str] = (
        "any executable over a line protocol: -b 'cmd:./solver args' (README, 'Bring your "
        "own solver'; round-trip floor: python benchmarks/bench_cmd.py)"
    )
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "command",
            _default_command(),
            "the solver's command line after 'cmd:' (default: examples/cmd/solver.py)",
        ),
    )
    deterministic: ClassVar[bool] = False
    in_process: ClassVar[bool] = False  # the solver's CPU is its own process's, not ours
    native_counters: ClassVar[tuple[str, ...]] = ()

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        try:
            self.argv = shlex.split(self.config["command"])
        except ValueError as exc:
            command = self.config["command"]
            raise BackendOptionError(f"cmd: cannot split {command!r}: {exc}") from None
        if not self.argv:
            raise BackendOptionError("cmd needs a command line: -b 'cmd:./my_solver --fast'")
        reason = cannot_start(self.argv[0])
        if reason is not None:
            raise BackendOptionError(f"cmd: cannot start the solver: {reason}")
        self.native_counters = CmdBackend.native_counters  # grows with the solver's keys
        self.info: dict[str, str] = {}  # what READY said: name, version, max_box...
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = bytearray()

    @property
    def spec(self) -> str:
        """``cmd:COMMAND LINE``, or ``cmd`` for the example solver."""
        command = self.config["command"]
        return "cmd" if command == self.options[0].default else f"cmd:{command}"

    @property
    def stale(self) -> bool:
        """True when no solver process runs: the next solve starts one (untimed warm-up)."""
        return self._proc is None

    def processes(self) -> tuple[int, ...]:
        """The running solver's process id, for the caller's memory accounting."""
        return () if self._proc is None else (self._proc.pid,)

    def encode(self, puzzle: Puzzle) -> tuple[Puzzle, bytes]:
        """The puzzle and its line without the limit (timed as ``encode``): the canonical
        one-line form, by one byte translation (cheaper than ``to_string``)."""
        return puzzle, puzzle.digits.translate(LINE_SYMBOLS) + b" "

    def solve(
        self, encoded: tuple[Puzzle, bytes], limit: int = 1, time_limit: float | None = None
    ) -> SolveResult:
        """Start the solver if none runs, send the puzzle, read the answer within
        ``time_limit`` (the round trip is what is timed)."""
        puzzle, line = encoded
        if self._proc is None:
            self._start()
        largest = int(self.info.get("max_box", 5))
        if puzzle.box > largest:
            n = largest * largest
            return SolveResult(Status.UNKNOWN, message=f"the solver takes grids up to {n}x{n}")
        deadline = None if time_limit is None else time.perf_counter() + time_limit
        try:
            os.write(self._stdin, line + b"%d\n" % limit)
        except OSError:
            self._fail("the solver exited before reading the puzzle")
        answer = self._line(deadline)
        if answer is None:
            self.close()
            return SolveResult(Status.TIMEOUT, message=f"solver killed at {time_limit:.3g} s")
        return self._parse(answer, puzzle.n)

    def _start(self) -> None:
        try:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                process_group=0,  # its own group: killed whole, without the caller
                preexec_fn=_die_with_parent,
                bufsize=0,
            )
        except OSError as exc:
            raise SolverError(f"cannot start {self.argv[0]!r}: {exc.strerror}") from None
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._stdin, self._stdout = self._proc.stdin.fileno(), self._proc.stdout.fileno()
        self._poll = select.poll()
        self._poll.register(self._stdout, select.POLLIN)
        self._buffer.clear()
        ready = self._line(None)
        words = ready.split() if ready else []
        if not words or words[0] != "READY":
            self._fail(f"the solver's first line is not READY: {ready!r}")
        self.info = dict(w.partition("=")[::2] for w in words[1:])

    def _line(self, deadline: float | None) -> str | None:
        """The next line that is not a ``#`` comment; None when ``deadline`` passed first."""
        buffer = self._buffer
        while True:
            end = buffer.find(b"\n")
            if end >= 0:
                line = bytes(buffer[:end])
                del buffer[: end + 1]
                if not line.startswith(b"#"):
                    return line.decode(errors="replace").rstrip("\r")
                continue
            if len(buffer) > MAX_LINE:
                self._fail(f"the solver's line is over {MAX_LINE} bytes: {bytes(buffer[:80])!r}")
            left = EXIT_CHECK_MS if deadline is None else (deadline - time.perf_counter()) * 1e3
            if not self._poll.poll(max(0, min(EXIT_CHECK_MS, int(left)))):
                if deadline is not None and time.perf_counter() >= deadline:
                    return None
                if self._exited() and not self._poll.poll(0):  # and wrote nothing before
                    self._fail("the solver exited", partial=bytes(buffer), exited=True)
                continue
            chunk = os.read(self._stdout, MAX_LINE)
            if not chunk:
                self._fail("the solver exited", partial=bytes(buffer), exited=True)
            buffer += chunk

    def _parse(self, line: str, n: int) -> SolveResult:
        words = line.split()
        try:
            status = translate_status(words[0]) if len(words) >= 2 else None
        except UnknownStatusError:
            status = None
        if status is None:
            self._fail(f"not '<STATUS> <grid or -> [key=value ...]': {line!r}")
        grid = None
        if words[1] != "-":
            symbols = "." + canonical_alphabet(n)
            cells = [symbols.find(ch) for ch in words[1]]
            if len(cells) != n * n or -1 in cells:
                self._fail(f"not a {n}x{n} grid: {line!r}")
            grid = tuple(cells)
        stats: dict[str, Any] = {}
        for word in words[2:]:
            key, sep, value = word.partition("=")
            if not sep or not key:
                self._fail(f"{word!r} is not key=value: {line!r}")
            if key not in COUNTER_KEYS:
                try:
                    key = statistic_name(key)
                except ValueError as exc:
                    self._fail(f"{exc}: {line!r}")
            if key in stats:
                self._fail(f"statistic {key!r} given twice: {line!r}")
            stats[key] = _number(value)
        counters = {k: stats.pop(k) for k in COUNTER_KEYS if k in stats}
        own, dropped = own_seconds(stats.pop("time_us", None))
        new = tuple(k for k in stats if k not in self.native_counters)
        self.native_counters += new  # type: ignore[misc]
        found = counters.pop("solutions", 1 if grid is not None else 0)
        try:
            return SolveResult(
                status, grid, found, native=stats, message=dropped, own_solve_s=own, **counters
            )
        except (BackendError, TypeError) as exc:
            self._fail(f"{exc}: {line!r}")
        raise AssertionError("unreachable")

    def _exited(self) -> bool:
        """Whether the solver process has exited (a process it started may live on)."""
        return self._proc is None or self._proc.poll() is not None

    def _fail(self, what: str, partial: bytes = b"", exited: bool = False) -> None:
        """Stop the solver and raise :class:`SolverError` saying ``what`` happened (and,
        when it ``exited`` by itself, how)."""
        code = self.close(0.5 if exited else 0.0)
        if exited and code is not None and code < 0:
            with contextlib.suppress(ValueError):
                what += f" (killed by {signal.Signals(-code).name})"
        elif exited and code:
            what += f" (exit code {code})"
        if partial:
            what += f" after printing {partial[:200]!r}"
        raise SolverError(what)

    def close(self, grace: float = 0.0) -> int | None:
        """Kill the solver's process group (after ``grace`` seconds for it to exit by
        itself), if it runs; return its exit status."""
        proc, self._proc = self._proc, None
        if proc is None:
            return None
        if grace:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(grace)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        code = proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            with contextlib.suppress(OSError):
                pipe.close()  # type: ignore[union-attr]
        return code

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

    def __getstate__(self) -> dict[str, Any]:  # options only: the process stays here
        return {"config": self.config, "argv": self.argv}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.native_counters = CmdBackend.native_counters
        self.info, self._proc, self._buffer = {}, None, bytearray()
