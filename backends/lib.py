"""``lib:`` -- a shared library that exposes a small C ABI, called in the worker by ctypes.

``-b 'lib:./libsolver.so'`` calls its ``sudoku_solve``; ``-b 'lib:./libx.so:my_solve'`` calls
``my_solve``. docs/lib-backend.md describes the ABI; ``examples/lib/solver.c`` implements it::

    const char *sudoku_solver_info(void);    /* optional: "name=... version=... max_box=3" */
    int64_t sudoku_solve(const char *puzzle, int64_t limit, char *solution, int64_t *stats);

``puzzle`` is the canonical one-line form, NUL-terminated; ``solution`` a buffer of n*n+1
bytes for the first solution found; ``stats`` four slots preset to -1: nodes, guesses,
backtracks and ``own_ns``, the solver's own clock for the call (the row's ``own_solve_s``).
The return value is the number of solutions found (at most ``limit``), or a negative number
when the solver cannot take the puzzle: that row is UNKNOWN, with the number.

The library is loaded in the worker process, never in the harness's: a crash kills that
worker (ERROR for its puzzle, a fresh worker for the next), a hang is killed at the timeout,
and its memory counts against the worker's limit. Building the backend (in the harness,
before any solve) loads the library once in a short-lived subprocess, so a path that does not
exist, is not a shared library, or lacks the symbol is refused with one line, and a library
that crashes as it loads crashes only that subprocess. What the library prints as it loads is
dropped there, and only a few bytes of the subprocess's own report are read.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import select
import signal
import subprocess
import sys
import time
from typing import Any, ClassVar

from backends.base import Backend, Option, SolveResult, Status
from backends.errors import BackendOptionError
from backends.puzzle import canonical_alphabet

#: The function called when the spec names none.
DEFAULT_SYMBOL = "sudoku_solve"
INFO_SYMBOL = "sudoku_solver_info"
#: Digit -> its symbol in the canonical one-line form (``.`` for 0), as a bytes table.
LINE_SYMBOLS = ("." + canonical_alphabet(25)).encode().ljust(256, b"?")
_ALPHABET = canonical_alphabet(25)
#: Symbol -> its digit, for the solution the library wrote; 255 (refused by the checker) for
#: a byte that is no digit's symbol.
DIGITS = bytes(_ALPHABET.index(chr(b)) + 1 if chr(b) in _ALPHABET else 255 for b in range(256))
#: Seconds the check of a library (loading it in a subprocess) may take.
CHECK_TIMEOUT_S = 20.0
#: The four slots of ``stats``, in order, and what each is preset to: -1, "not filled".
STAT_NAMES = ("nodes", "guesses", "backtracks", "own_ns")
UNFILLED = (-1, -1, -1, -1)
#: The solution buffer's size: every grid's n*n characters and the NUL fit (n <= 25).
SOLUTION_BYTES = 25 * 25 + 1
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: The most bytes read from the checking subprocess: its report, never the library's output.
REPORT_MAX = 4096
#: What the checking subprocess runs: load the library, find the function, read the info.
#: The library's own output (a constructor that prints) goes to /dev/null; the script's
#: report goes to the harness on a descriptor of its own: the info, exit 0, or the reason
#: the library is refused, exit 3.
_CHECK = """
import ctypes, os, sys
path, symbol, info_name = sys.argv[1:]
report = os.dup(1)
null = os.open(os.devnull, os.O_WRONLY)
os.dup2(null, 1)
os.dup2(null, 2)
def done(text, code):
    os.write(report, text.encode("utf-8", "replace")[:4096])
    sys.exit(code)  # what the library does at exit costs only this check, under its limit
try:
    library = ctypes.CDLL(path)
except OSError as exc:
    reason = str(exc)[len(path) + 2 :] if str(exc).startswith(path + ": ") else str(exc)
    done("is not a shared library this process can load: %s" % reason, 3)
if not hasattr(library, symbol):
    done("has no function %r" % symbol, 3)
info = getattr(library, info_name, None)
text = b""
if info is not None:
    info.restype = ctypes.c_char_p
    text = info() or b""
done(text.decode("utf-8", "replace"), 0)
"""
#: (real path, size, mtime, symbol) -> the library's info text: each library is checked once
#: a process (a worker forked after the check inherits it).
_CHECKED: dict[tuple[str, int, int, str], str] = {}


def spec_options(rest: str) -> dict[str, str]:
    """The options of ``lib:PATH`` or ``lib:PATH:SYMBOL`` (``rest`` is what follows ``lib:``).

    A last ``:`` part that is a C identifier is the symbol; anything else is all path.
    """
    head, sep, tail = rest.strip().rpartition(":")
    if sep and head and _IDENTIFIER.fullmatch(tail):
        return {"path": head, "symbol": tail}
    return {"path": rest.strip()}


def check_library(path: str, symbol: str) -> str:
    """The info text of the library at ``path`` (empty without ``sudoku_solver_info``),
    after loading it in a subprocess; raises :class:`BackendOptionError` with one line when
    it does not exist, cannot be loaded, lacks ``symbol`` or crashes as it loads."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise BackendOptionError(f"lib:{path}: {exc.strerror or exc}") from None
    if not os.path.isfile(path):
        raise BackendOptionError(f"lib:{path}: not a file")
    key = (os.path.realpath(path), st.st_size, st.st_mtime_ns, symbol)
    known = _CHECKED.get(key)
    if known is not None:
        return known
    command = [sys.executable, "-I", "-S", "-c", _CHECK, os.path.abspath(path), symbol, INFO_SYMBOL]
    try:
        code, said = _checked_run(command)
    except subprocess.TimeoutExpired:
        raise BackendOptionError(
            f"lib:{path}: loading it took over {CHECK_TIMEOUT_S:g} s (a hang as it loads?)"
        ) from None
    if code != 0:
        reason = said.strip() if code == 3 else _death(code)
        raise BackendOptionError(f"lib:{path}: {reason[:200]}")
    _CHECKED[key] = info = said.strip()
    return info


def _checked_run(command: list[str]) -> tuple[int, str]:
    """Run the check ``command`` in a session of its own, standard error to /dev/null: its
    exit status and the first :data:`REPORT_MAX` bytes of its standard output, read as they
    come. Raises TimeoutExpired after :data:`CHECK_TIMEOUT_S` (the session killed)."""
    deadline = time.monotonic() + CHECK_TIMEOUT_S
    proc = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    said = bytearray()
    try:
        while len(said) < REPORT_MAX:
            left = deadline - time.monotonic()
            if left <= 0:
                raise subprocess.TimeoutExpired(command, CHECK_TIMEOUT_S)
            if not select.select([fd], [], [], min(left, 0.05))[0]:
                if proc.poll() is not None:  # what came is all (a process it left may hold
                    break  # the pipe open)
                continue
            chunk = os.read(fd, REPORT_MAX)
            if not chunk:
                break
            said += chunk
        code = proc.wait(max(0.0, deadline - time.monotonic()))
    finally:
        proc.stdout.close()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # the check's session: nothing of it stays
        proc.wait()
    return code, bytes(said[:REPORT_MAX]).decode(errors="replace")


def _death(code: int) -> str:
    try:
        return f"it crashed as it loaded ({signal.Signals(-code).name})"
    except ValueError:
        return f"loading it ended the process with status {code}"


def parse_info(text: str) -> dict[str, str]:
    """``key=value`` words of the info text, as a dict (other words are ignored)."""
    return dict(w.partition("=")[::2] for w in text.split() if "=" in w)


class LibBackend(Backend):
    """A shared library's ``sudoku_solve`` (module docstring), called through ctypes."""

    name: ClassVar[str] = "lib"
    summary: ClassVar[str] = (
        "a shared library over a small C ABI: -b 'lib:./libsolver.so[:SYMBOL]' "
        "(docs/lib-backend.md)"
    )
    options: ClassVar[tuple[Option, ...]] = (
        Option("path", "", "the shared library after 'lib:'"),
        Option("symbol", DEFAULT_SYMBOL, "the function to call"),
    )
    deterministic: ClassVar[bool] = False

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        path, symbol = self.config["path"], self.config["symbol"]
        if not path:
            raise BackendOptionError("lib needs a shared library: -b 'lib:./libsolver.so'")
        if not _IDENTIFIER.fullmatch(symbol):
            raise BackendOptionError(f"lib:{path}: {symbol!r} is not a C function name")
        self.info = parse_info(check_library(path, symbol))  # name, version, max_box
        box = self.info.get("max_box", "5")
        self.largest_box = int(box) if box.isdigit() else 5
        self._function: Any = None

    @property
    def spec(self) -> str:
        """``lib:PATH``, or ``lib:PATH:SYMBOL`` for another function."""
        symbol = self.config["symbol"]
        suffix = "" if symbol == DEFAULT_SYMBOL else f":{symbol}"
        return f"lib:{self.config['path']}{suffix}"

    def _load(self) -> Any:
        """Load the library (in this process: the worker's) and find the function; make the
        buffers it writes, as :meth:`_clear` leaves them between calls."""
        function = getattr(ctypes.CDLL(os.path.abspath(self.config["path"])), self.config["symbol"])
        # No argtypes: each argument is passed as the C type it already is (bytes and the
        # two buffers as pointers, the limit a c_int64 made here), so no conversion runs
        # inside the timed call.
        function.restype = ctypes.c_int64
        self._limits = {limit: ctypes.c_int64(limit) for limit in (1, 2)}
        self._solution = ctypes.create_string_buffer(SOLUTION_BYTES)
        self._stats = (ctypes.c_int64 * 4)(*UNFILLED)
        self._function = function
        return function

    def _clear(self) -> None:
        """Blank the solution (a call that writes none must not leave the last one there)
        and preset the statistics to -1, before the next call (and untimed)."""
        self._solution.raw = bytes(SOLUTION_BYTES)
        self._stats[:] = UNFILLED

    def encode(self, puzzle: Any) -> tuple[int, bytes]:
        """The grid's box side and its canonical one-line form (ctypes adds the NUL)."""
        return puzzle.box, puzzle.digits.translate(LINE_SYMBOLS)

    def solve(
        self, encoded: tuple[int, bytes], limit: int = 1, time_limit: float | None = None
    ) -> SolveResult:
        """One call of the library's function (:meth:`solve_call`), read (:meth:`solve_decode`); the
        harness kills a call past the limit."""
        return self.solve_decode(self.solve_call(encoded, limit), encoded)

    def solve_call(self, encoded: tuple[int, bytes], limit: int = 1) -> int | SolveResult:
        """The library's function on the puzzle: its return value (the solution and the
        statistics stay in this backend's buffers for :meth:`solve_decode`, which also
        presets them for the next call), or UNKNOWN at once
        for a grid larger than the library's ``max_box``. The worker times this alone as the
        solve: reading the buffers is the harness's work, not the solver's."""
        box, line = encoded
        if box > self.largest_box:
            n = self.largest_box**2
            return SolveResult(Status.UNKNOWN, message=f"the library takes grids up to {n}x{n}")
        function = self._function or self._load()
        limit_arg = self._limits.get(limit) or ctypes.c_int64(limit)
        return function(line, limit_arg, self._solution, self._stats)  # type: ignore[no-any-return]

    def solve_decode(self, found: int | SolveResult, encoded: tuple[int, bytes]) -> SolveResult:
        """The outcome of the :meth:`solve_call` that returned ``found``: its count, the solution
        it wrote and its statistics, checked for sense."""
        if isinstance(found, SolveResult):
            return found
        answer, stats = self._solution.raw[: len(encoded[1])], self._stats[:]
        self._clear()
        return self._result(found, answer, stats)

    def _result(self, found: int, answer: bytes, stats: list[int]) -> SolveResult:
        """The call's outcome: its count, solution and statistics, checked for sense."""
        message = ""
        if min(stats) < -1:  # -1 is "not filled"; below it, nonsense: dropped, and said
            dropped = [f"{k}={v}" for k, v in zip(STAT_NAMES, stats, strict=True) if v < -1]
            message = f"dropped negative statistics: {' '.join(dropped)}"
        nodes, guesses, backtracks, own_ns = stats
        counters = (
            nodes if nodes >= 0 else None,
            guesses if guesses >= 0 else None,
            backtracks if backtracks >= 0 else None,
        )
        own = own_ns / 1e9 if own_ns >= 0 else None
        if found > 0:
            status, solution = Status.SOLVED, tuple(answer.translate(DIGITS))
        elif found == 0:
            status, solution = Status.UNSAT, None
        else:
            reason = f"{self.config['symbol']} returned {found}: it cannot take this puzzle"
            message = f"{reason}; {message}" if message else reason
            status, solution, found = Status.UNKNOWN, None, 0
        return SolveResult(status, solution, found, *counters, message=message, own_solve_s=own)

    def __getstate__(self) -> dict[str, Any]:  # options only: the library loads where it runs
        return {"config": self.config, "info": self.info, "largest_box": self.largest_box}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._function = None
