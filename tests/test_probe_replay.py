"""Adversarial inputs, each replayed through the ``harness`` command in a child process and
held to the same four rules:

1. no traceback, and an exit code :mod:`harness.exit_codes` documents;
2. no file changed in the test's folders but the case's own outputs (each ``--out`` and the
   files beside it, ``X.meta.json`` and ``X.log``); a refused command changes nothing;
3. the verdict the case calls for: its exit code, and the statuses of the rows it writes;
4. no process left: none the command started (each carries a mark in its environment)
   outlives it, nor any its setup started, nor any child of the test process.

Each case is one line of :data:`CASES`. What each group reproduces has tests of its own that
look closer (named in the group's comment); this module holds them all to the same rules.
Left out, as they need more than a folder of files: old git trees that flood their output,
hang or leave a process (tests/test_against.py), and a Dask cluster (tests/test_cluster.py).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import math
import os
import pickle
import shutil
import signal
import stat
import struct
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.cli.entry import STDOUT_CLOSED
from harness.exit_codes import CheckExit, RunExit, stopped_by
from harness.run.worker.output import LOG_CAP
from tests.conftest import PROJECT, pattern_puzzle
from tests.test_against import git
from tests.test_altered import edit_solution
from tests.test_closed_streams import STDIN_CLOSED
from tests.test_isolation import HARNESS, LOUD, MISBEHAVING, RunsACommand, c_string
from tests.test_lib import by_line, compile_library, three_puzzles
from tests.test_out_files import device, lone_cr, puzzle_file
from tests.test_unwritable import solver

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc")

#: Every exit code the command may give.
DOCUMENTED = {*RunExit, *CheckExit, stopped_by(signal.SIGTERM), stopped_by(signal.SIGHUP)}
#: The environment variable that marks the processes of one case.
MARK = "HARNESS_REPLAY_MARK"
#: What the crafted answer frame would make a pickle reader run: ``touch`` this file, in the
#: current folder (the case's).
PWNED = "pwned"

#: More wrappers around the example's function for :data:`MISBEHAVING`, on the puzzle that
#: starts with 2: a line written to fd 4, then the call solves (in a worker fd 4 is a /proc
#: file open for reading: the write fails); a text line written to every pipe the library
#: can write, then a hang; a count of INT64_MAX.
MORE = r"""
int64_t to_fd4(const char *p, int64_t l, char *s, int64_t *st) {
    if (p[0] == '2') { ssize_t written = write(4, "SOLVED 1\n", 9); (void)written; }
    return sudoku_solve(p, l, s, st);
}
WRITES(line, "SOLVED 1\n", 9)
int64_t huge_count(const char *p, int64_t l, char *s, int64_t *st) {
    int64_t found = sudoku_solve(p, l, s, st);
    return p[0] == '2' && found > 0 ? INT64_MAX : found;
}
"""

#: A cmd: solver for the lock case: answers the harness's warm-up puzzle (one blank a row),
#: then holds each puzzle of the run without answering, after touching the file ``held``.
HOLDER = f"""
import sys, time
print("READY", flush=True)
for line in sys.stdin:
    if line.count(".") == 4:
        print("SOLVED {pattern_puzzle(2, 0).to_string()}", flush=True)
    else:
        open("held", "w").close()
        time.sleep(3600)
"""

#: The liar: every puzzle UNSAT, with no count.
LIAR = """
import sys
print("READY", flush=True)
for line in sys.stdin:
    print("UNSAT -", flush=True)
"""

#: ``harness`` with ``against.repository`` pointed at argv[1] (a repository of the test's).
AGAINST = """
import sys
from pathlib import Path
from harness.run import against
repo = Path(sys.argv.pop(1))
against.repository = lambda: repo
from harness.cli.entry import main
main()
"""


@dataclass
class Setup:
    """What a case's setup works with: its folder (the command's working folder), the base
    run's folder, the values its command's arguments are filled with, the environment of
    any process it starts, and a stack that undoes what it started, once the command ended."""

    d: Path
    base: Path
    fill: dict[str, str]
    env: dict[str, str]
    stack: contextlib.ExitStack


@dataclass
class Done:
    code: int
    stdout: str
    stderr: str


@dataclass(frozen=True)
class Case:
    """One reproduction: ``args`` of the command ({name}: a value of :attr:`Setup.fill`),
    its exit code, the --out files it may write (with their companions), the statuses of
    their rows in line order (None: not looked at), what stderr says in its one line ("":
    not looked at), a descriptor closed before it starts, what is done while it runs, and
    what else is checked after."""

    name: str
    setup: Callable[[Setup], None] | None
    args: tuple[str, ...]
    exit: int
    writes: tuple[str, ...] = ()
    rows: tuple[str, ...] | None = None
    said: str = ""
    closed: int | None = None
    during: Callable[[subprocess.Popen[str], Path], None] | None = None
    then: Callable[[Setup, Done], None] | None = None
    defect: str = ""  #: a defect the case shows today: it is expected to fail, saying this


# --- helpers ------------------------------------------------------------------------------


def invoke(*args: object) -> Any:
    return CliRunner().invoke(main, [str(a) for a in args])


def made(code: int, *args: object) -> None:
    """``harness ARGS`` in this process, for a setup: it must exit ``code``."""
    result = invoke(*args)
    assert code == result.exit_code, result.output


def environment(mark: str, folder: Path) -> dict[str, str]:
    """The environment of a case's processes: the project importable, temporary files in
    ``folder``'s tmp (looked at with the rest), the case's mark."""
    return {
        **os.environ,
        "PYTHONPATH": str(PROJECT),
        "TMPDIR": str(folder / "tmp"),
        "COLUMNS": "100",
        MARK: mark,
    }


def harness(
    args: list[str],
    cwd: Path,
    env: dict[str, str],
    closed: int | None = None,
    during: Callable[[subprocess.Popen[str], Path], None] | None = None,
) -> Done:
    """The console script with ``args`` in a child process (stdin empty, ``closed`` closed
    before it starts); ``during`` is called while it runs. A hang fails the test."""
    proc = subprocess.Popen(
        [*HARNESS, *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=None if closed is None else (lambda: os.close(closed)),
    )
    try:
        if during is not None:
            during(proc, cwd)
        stdout, stderr = proc.communicate(timeout=180)
    except subprocess.TimeoutExpired:
        pytest.fail(f"harness {' '.join(args)} hung for 180 s")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return Done(proc.returncode, stdout, stderr)


def snapshot(folders: list[Path]) -> dict[str, tuple]:
    """Every entry under ``folders``, by path: its type and, as far as each applies, size,
    modification time and SHA-256, symlink target, device number (read without following a
    symlink or opening a device or FIFO). A folder is its entries: its own time changes
    when a file in it comes and goes."""
    seen: dict[str, tuple] = {}
    for folder in folders:
        for root, dirs, files in os.walk(folder):
            for name in dirs + files:
                path = os.path.join(root, name)
                info = os.lstat(path)
                kind = stat.S_IFMT(info.st_mode)
                if stat.S_ISREG(info.st_mode):
                    with open(path, "rb") as f:
                        digest = hashlib.file_digest(f, "sha256").hexdigest()
                    seen[path] = (kind, info.st_size, info.st_mtime_ns, digest)
                elif stat.S_ISLNK(info.st_mode):
                    seen[path] = (kind, os.readlink(path))
                elif stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode):
                    seen[path] = (kind, info.st_rdev, info.st_mtime_ns)
                else:
                    seen[path] = (kind,)
    return seen


def marked(mark: str) -> list[psutil.Process]:
    """The running processes (zombies aside) whose environment carries ``mark``."""
    found = []
    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error):  # gone, or not ours to read
            if proc.status() != psutil.STATUS_ZOMBIE and proc.environ().get(MARK) == mark:
                found.append(proc)
    return found


def still_running(processes: list[psutil.Process]) -> list[str]:
    """Which of ``processes`` still run 10 s later at most (each as pid and command line):
    a process killed as its harness ends may take a moment to go."""
    _, alive = psutil.wait_procs(set(processes), timeout=10)
    left = set()
    for proc in alive:
        with contextlib.suppress(psutil.Error):
            if proc.status() != psutil.STATUS_ZOMBIE:
                left.add(f"{proc.pid}: {' '.join(proc.cmdline())[:200]}")
    return sorted(left)


def children() -> set[psutil.Process]:
    return set(psutil.Process().children(recursive=True))


def wait_for(condition: Callable[[], bool], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not happen in {seconds:g} s")
        time.sleep(0.02)


# --- setups ---------------------------------------------------------------------------------


def copy_run(
    s: Setup, name: str = "r.csv", edit: Callable[[dict[str, Any]], None] | None = None
) -> Path:
    """The base run (mrv over three 4x4 puzzles, p.txt), as the run ``name`` in the case's
    folder, its time kept (so its metadata vouches for it), its metadata changed by
    ``edit``."""
    shutil.copy2(s.base / "p.txt", s.d / "p.txt")
    out = Path(shutil.copy2(s.base / "base.csv", s.d / name))
    meta = json.loads((s.base / "base.csv.meta.json").read_text())
    meta["csv"] = name
    if edit is not None:
        edit(meta)
    (s.d / f"{name}.meta.json").write_text(json.dumps(meta))
    return out


def puzzles(s: Setup) -> None:
    puzzle_file(s.d / "p.txt")


def nines(s: Setup) -> None:
    """Three 9x9 puzzles; the wrappers misbehave on the second (tests/test_lib.py)."""
    three_puzzles(s.d)


def a_device(s: Setup) -> None:
    puzzles(s)
    device(s.d / "n")


def a_symlink_to_a_run(s: Setup) -> None:
    copy_run(s, "x.csv")
    (s.d / "n.csv").symlink_to("x.csv")


def a_run_to_s_csv(s: Setup) -> None:
    copy_run(s, "s.csv")


def text_only(s: Setup) -> None:
    puzzles(s)
    (s.d / "n.txt").write_text("important data")


def lone_carriage_returns(s: Setup) -> None:
    lone_cr(s.d / "n.csv", puzzle_file(s.d / "p.txt"))


def an_older_meta_of_s_txt(s: Setup) -> None:
    """s.meta.json, as an older harness named the metadata of a run to s.txt."""
    copy_run(s, "s.txt")
    os.rename(s.d / "s.txt.meta.json", s.d / "s.meta.json")


def a_run_holding_r_csv(s: Setup) -> None:
    """A run to r.csv that holds its first puzzle (its CSV locked), and h.csv, a hard link
    to r.csv, with its metadata beside it; the run is stopped once the command ended."""
    puzzles(s)
    (s.d / "holder.py").write_text(HOLDER)
    s.fill["holder"] = f"cmd:{sys.executable} {s.d / 'holder.py'}"
    command = [*HARNESS, "run", "-q", "-b", s.fill["holder"], "--timeout", "60"]
    proc = subprocess.Popen(
        [*command, "--out", "r.csv", "p.txt"],
        cwd=s.d,
        env=s.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def stop() -> None:
        proc.send_signal(signal.SIGTERM)
        try:
            assert stopped_by(signal.SIGTERM) == proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()

    s.stack.callback(stop)
    wait_for(lambda: (s.d / "held").exists() or proc.poll() is not None, "the holder's solve")
    assert proc.poll() is None, "the holding run ended"
    os.link(s.d / "r.csv", s.d / "h.csv")
    shutil.copy(s.d / "r.csv.meta.json", s.d / "h.csv.meta.json")


def count_128_cut(s: Setup) -> None:
    """A run whose solver says solutions=128 to every puzzle, cut after its first row."""
    s.fill["spec"] = solver(s.d, "solutions=128")
    made(RunExit.ERROR, "run", "-q", "-b", s.fill["spec"], "--out", s.d / "r.csv", puzzles_at(s))
    lines = (s.d / "r.csv").read_bytes().splitlines(keepends=True)
    (s.d / "r.csv").write_bytes(b"".join(lines[:2]))


def count_128(s: Setup) -> None:
    puzzles(s)
    s.fill["spec"] = solver(s.d, "solutions=128")


def puzzles_at(s: Setup) -> Path:
    return puzzle_file(s.d / "p.txt")


def a_liar(s: Setup) -> None:
    """good.csv, by a cmd: solver that answers right; then the same solver (the same spec)
    turned liar: UNSAT to every puzzle, with no count."""
    s.fill["spec"] = spec = solver(s.d, "")
    made(RunExit.OK, "run", "-q", "-b", spec, "--out", s.d / "good.csv", puzzles_at(s))
    (s.d / "solver.py").write_text(LIAR)


def a_liars_run(s: Setup) -> None:
    """:func:`a_liar`, and liar.csv, its run."""
    a_liar(s)
    made(RunExit.WRONG, "run", "-q", "-b", s.fill["spec"], "--out", s.d / "liar.csv", s.d / "p.txt")


def an_edited_answer(s: Setup) -> None:
    """The base run as r.csv, one digit of its second row's solution changed by hand."""
    edit_solution(copy_run(s), 1)


def a_fifo(s: Setup) -> None:
    os.mkfifo(s.d / "p.fifo")


def a_run_of_against(s: Setup) -> None:
    """a.csv: a run with --against HEAD over one puzzle, in a repository of the project's
    backends made here (its tree checked out in the case's cache), cut after its first row
    (mrv@HEAD's or mrv's)."""
    repo = s.d / "repo"
    shutil.copytree(PROJECT / "backends", repo / "backends", ignore=shutil.ignore_patterns("__py*"))
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "backends")
    puzzle_file(s.d / "p.txt", 1)
    env = {**s.env, "XDG_CACHE_HOME": str(s.d / "cache")}
    command = [sys.executable, "-c", AGAINST, str(repo), "run", "-q", "-b", "mrv"]
    done = subprocess.run(
        [*command, "--against", "HEAD", "--out", "a.csv", "p.txt"],
        cwd=s.d,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert 0 == done.returncode, done.stderr
    lines = (s.d / "a.csv").read_bytes().splitlines(keepends=True)
    (s.d / "a.csv").write_bytes(b"".join(lines[:2]))


# --- while it runs --------------------------------------------------------------------------


def sigterm_on_fifo(proc: subprocess.Popen[str], folder: Path) -> None:
    """SIGTERM once the harness waits in open() of the FIFO for a writer, its copy's
    temporary folder made: as /proc/PID/wchan says (or, where it says nothing, its
    system call: open or openat on x86-64)."""

    def blocked() -> bool:
        assert proc.poll() is None, "the harness ended before it opened the FIFO"
        if not any((folder / "tmp").glob("harness-*")):
            return False
        with contextlib.suppress(OSError, IndexError):
            wchan = Path(f"/proc/{proc.pid}/wchan").read_text().strip()
            if wchan in ("wait_for_partner", "fifo_open"):
                return True
            syscall = Path(f"/proc/{proc.pid}/syscall").read_text().split()[0]
            return wchan in ("", "0") and syscall in ("2", "257")
        return False

    wait_for(blocked, "the harness waiting on the FIFO")
    proc.send_signal(signal.SIGTERM)


# --- checks after ---------------------------------------------------------------------------


def nothing_ran(s: Setup, done: Done) -> None:
    assert not (s.d / PWNED).exists()


def log_cut(s: Setup, done: Done) -> None:
    log = (s.d / "r.csv.log").read_bytes()
    cut = f"\nharness: the log was cut at {LOG_CAP >> 20} MiB: later output was dropped\n"
    assert (LOG_CAP + len(cut), True) == (len(log), log.endswith(cut.encode()))


def error_says(text: str) -> Callable[[Setup, Done], None]:
    """Each ERROR row's message holds ``text``."""

    def check(s: Setup, done: Done) -> None:
        messages = [r["message"] for r in by_line(s.d / "r.csv") if r["status"] == "ERROR"]
        assert [True] * len(messages) == [text in m for m in messages], messages

    return check


def no_line_in_csv(s: Setup, done: Done) -> None:
    assert b"SOLVED 1" not in (s.d / "r.csv").read_bytes()


def one_wrong(s: Setup, done: Done) -> None:
    assert [(2, 1)] == [(r["correct"], r["wrong"]) for r in json.loads(done.stdout)]


def holds_without_xinf(s: Setup, done: Done) -> None:
    assert ("holds" in done.stdout, "xinf" in done.stdout) == (True, False)


# --- the cases ------------------------------------------------------------------------------


def run(*args: str, out: str = "r.csv", data: str = "p.txt") -> tuple[str, ...]:
    """``harness run -q ARGS --out OUT DATA`` (no DATA when empty)."""
    return ("run", "-q", *args, "--out", out, *([data] if data else []))


def lib(symbol: str, library: str = "lib", timeout: str = "3") -> tuple[str, ...]:
    """A run of the function ``symbol`` of a library of :func:`libraries` (its name there)
    over the three 9x9 puzzles (a wrapper that hangs is killed at ``timeout``)."""
    spec = f"lib:{{{library}}}:{symbol}"
    return run("-b", spec, "--timeout", timeout, data="puzzles.txt")


def resume(out: str, *args: str) -> tuple[str, ...]:
    return ("run", "-q", "--resume", *args, "--out", out)


def reading(change: str, edit: Callable[[dict[str, Any]], None], refused: str) -> list[Case]:
    """table, check, report and --resume of the base run, its metadata changed by ``edit``:
    each refuses it in one line saying ``refused``, exit 2; or, ``refused`` empty, reads it
    (check: holds, the file against itself)."""
    copied = functools.partial(copy_run, edit=edit)
    commands = [
        ("table", ("table", "r.csv"), (), None),
        ("check", ("check", "r.csv", "r.csv"), (), holds_without_xinf),
        ("report", ("report", "r.csv", "-o", "rep.html"), ("rep.html",), None),
        ("resume", resume("r.csv"), ("r.csv",), None),
    ]
    if refused:
        return [Case(f"meta-{change}-{c}", copied, a, 2, said=refused) for c, a, _, _ in commands]
    return [Case(f"meta-{change}-{c}", copied, a, 0, w, then=t) for c, a, w, t in commands]


def start_s(value: float) -> Callable[[dict[str, Any]], None]:
    return lambda meta: meta["calibration"].update(start_s=value)


R = ("r.csv",)
SOLVED = ("SOLVED",) * 3
ONE_ERROR = ("SOLVED", "ERROR", "SOLVED")
#: --resume -b mrv --out (the name follows).
RESUME = resume("")[:-1]
#: The lock case's command: --resume of the holder's run through the hard link.
THROUGH_THE_LINK = (*resume("h.csv", "-b", "{holder}", "--timeout", "60"), "p.txt")
JUNK = "worker sent a malformed answer: bytes that begin no frame: b'\\x00\\x00\\x10\\x00abcd"
AGAINST_REFUSED = "is a run with --against, which cannot be resumed"
INT64_MAX = str(2**63 - 1)
#: Six bytes that begin no frame, and a frame's first bytes, each then a hang, at a
#: --timeout under the 5 s a frame may stall half-read: ERROR all the same, never TIMEOUT.
FRAME_6, HALF_FRAME = (lib(symbol, timeout="1") for symbol in ("junk6", "half_frame"))
#: The liar's run, gated against the good run.
GATED = run("-b", "{spec}", "--baseline", "good.csv", out="liar.csv")
JSON_TABLE = ("table", "r.csv", "--format", "json")
FIFO_RUN = run(data="p.fifo")

CASES = [
    # --resume --out X leaves what is not a run of this harness untouched, in one line,
    # exit 2 (tests/test_out_files.py).
    Case("resume-device", a_device, (*RESUME, "n", "p.txt"), 2, said="n is a device"),
    Case("resume-symlink", a_symlink_to_a_run, (*RESUME, "n.csv", "p.txt"), 2, said="symlink"),
    Case("resume-no-newline", text_only, (*RESUME, "n.txt", "p.txt"), 2, said="no line break"),
    Case("resume-lone-cr", lone_carriage_returns, (*RESUME, "n.csv", "p.txt"), 2, said="return"),
    # Companions are named from the whole name, never shared; a name that would share one
    # is refused (tests/test_out_files.py).
    Case("txt-beside-csv", a_run_to_s_csv, run("-b", "ac3", out="s.txt"), 0, ("s.txt",)),
    Case("out-named-log", puzzles, run(out="o.log"), 2, said="is kept for the files beside"),
    Case("out-older-meta", an_older_meta_of_s_txt, run(out="s"), 2, said="is the metadata of"),
    # The lock is the file's: --resume through a hard link to a CSV being written is
    # refused (tests/test_trust.py, tests/test_out_files.py).
    Case("hard-link-lock", a_run_holding_r_csv, THROUGH_THE_LINK, 2, said="is being written"),
    # Bytes a lib: library writes to the worker's pipes, a line to fd 4, a fork in the call:
    # that row alone is ERROR, nothing runs in the harness (tests/test_isolation.py).
    Case("lib-junk-12", nines, lib("junk12"), 4, R, ONE_ERROR, then=error_says(JUNK)),
    Case("lib-frame-6", nines, FRAME_6, 4, R, ONE_ERROR, then=error_says("begin no frame")),
    Case("lib-half-frame", nines, HALF_FRAME, 4, R, ONE_ERROR, then=error_says("half-way")),
    Case("lib-crafted-frame", nines, lib("crafted"), 4, R, ONE_ERROR, then=nothing_ran),
    Case("lib-line-to-pipes", nines, lib("line"), 4, R, ONE_ERROR),
    Case("lib-line-to-fd-4", nines, lib("to_fd4"), 0, R, SOLVED, then=no_line_in_csv),
    Case("lib-forks", nines, lib("forks"), 4, R, ONE_ERROR, then=error_says("fork")),
    # What a library prints: the log capped, saying so; its max_box=2 changes nothing
    # (tests/test_isolation.py, which also bounds the harness's memory under 1.2 GB printed).
    Case("lib-loud", nines, lib("sudoku_solve", "loud"), 0, R, SOLVED, then=log_cut),
    # A count past what a column holds: an ERROR row naming it; --resume reads the file back
    # (tests/test_unwritable.py, tests/test_answers_fuzz.py).
    Case("count-128", count_128, run("-b", "{spec}"), 4, R, ("ERROR",) * 3, then=error_says("128")),
    Case("count-int64-max", nines, lib("huge_count"), 4, R, ONE_ERROR, then=error_says(INT64_MAX)),
    Case("count-128-resume", count_128_cut, resume("r.csv", "-b", "{spec}"), 4, R, ("ERROR",) * 3),
    # UNSAT claimed, without a count, for solvable puzzles is never right, nor holds
    # (tests/test_unsat_claims.py).
    Case("liar-check", a_liars_run, ("check", "good.csv", "liar.csv"), CheckExit.WRONG),
    Case("liar-baseline", a_liar, GATED, 3, ("liar.csv",), ("WRONG",) * 3),
    # Metadata that is JSON but out of its bounds, and a field it does not know: refused in
    # one line, or read (tests/test_altered.py).
    *reading("start-tiny", start_s(1e-320), "calibration.start_s is 1e-320"),
    *reading("start-huge", start_s(1e308), "calibration.start_s is 1e+308"),
    *reading("no-backends", lambda meta: meta.update(backends=[]), "backends is empty"),
    *reading("samples-inf", lambda meta: meta.update(conditions={"samples": math.inf}), ""),
    # A solution edited by hand is checked again (tests/test_altered.py).
    Case("edited-table", an_edited_answer, JSON_TABLE, 0, then=one_wrong),
    Case("edited-check", an_edited_answer, ("check", "r.csv", "r.csv"), CheckExit.WRONG),
    # Standard streams closed from the start (tests/test_closed_streams.py).
    Case("closed-stderr-run", puzzles, run(), 0, R, SOLVED, closed=2),
    Case("closed-stderr-check", copy_run, ("check", "r.csv", "r.csv"), 0, closed=2),
    Case("closed-stdout-help", None, ("--help",), 0, said=STDOUT_CLOSED, closed=1),
    Case("closed-stdout-version", None, ("--version",), 0, said=STDOUT_CLOSED, closed=1),
    Case("closed-stdin-dash", None, run(data="-"), 2, said=STDIN_CLOSED.strip(), closed=0),
    # A run of --against cannot be resumed (tests/test_against.py); SIGTERM while the run
    # waits on a FIFO leaves no temporary folder (tests/test_signals.py).
    Case("against-resume", a_run_of_against, resume("a.csv"), 2, said=AGAINST_REFUSED),
    Case("fifo-sigterm", a_fifo, FIFO_RUN, 143, R, said="interrupted", during=sigterm_on_fifo),
]


# --- fixtures and the one test --------------------------------------------------------------


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with p.txt (three 4x4 puzzles) and base.csv, mrv's run of it."""
    folder = tmp_path_factory.mktemp("base")
    puzzle_file(folder / "p.txt")
    env = environment(f"base-{uuid.uuid4()}", folder)
    (folder / "tmp").mkdir()
    done = harness(["run", "-q", "-b", "mrv", "--out", "base.csv", "p.txt"], folder, env)
    assert 0 == done.code, done.stderr
    return folder


@pytest.fixture(scope="module")
def libraries(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The misbehaving wrappers (the crafted frame would touch PWNED in the current folder)
    and a library whose constructor prints max_box=2, then 40 MiB (past the log's cap)."""
    folder = tmp_path_factory.mktemp("libraries")
    payload = pickle.dumps([RunsACommand(Path(PWNED))])
    source = MISBEHAVING.replace("CRAFTED", c_string(struct.pack("!i", len(payload)) + payload))
    source = source.replace("HANGING", '"hanging"').replace("SLEEP", '"1"') + MORE
    return {
        "lib": str(compile_library(folder, source, "misbehaving")),
        "loud": str(compile_library(folder, LOUD.replace("PRINTED", "40"), "loud")),
        "folder": str(folder),
    }


def params(cases: list[Case]) -> list[Any]:
    """Each case as a test's parameter; one showing a known defect fails as expected."""
    strict = pytest.mark.xfail
    return [
        pytest.param(c, id=c.name, marks=[strict(strict=True, reason=c.defect)] if c.defect else [])
        for c in cases
    ]


@pytest.mark.parametrize("case", params(CASES))
def test_a_reproduction_keeps_the_four_rules(
    case: Case, tmp_path: Path, base: Path, request: pytest.FixtureRequest
) -> None:
    """No traceback, no file changed but its own outputs, the right verdict, no process
    left: for every case."""
    fill: dict[str, str] = {}
    folders = [tmp_path, base]
    if any("{lib}" in a or "{loud}" in a for a in case.args):
        fill.update(request.getfixturevalue("libraries"))
        folders.append(Path(fill["folder"]))
    (tmp_path / "tmp").mkdir()
    mark = f"{case.name}-{uuid.uuid4()}"
    before_children = children()
    with contextlib.ExitStack() as stack:
        s = Setup(tmp_path, base, fill, environment(f"{mark}-setup", tmp_path), stack)
        if case.setup is not None:
            case.setup(s)
        before = snapshot(folders)
        args = [a.format(**fill) for a in case.args]
        done = harness(args, tmp_path, environment(mark, tmp_path), case.closed, case.during)
        after = snapshot(folders)
        left = still_running(marked(mark))
    left += still_running(marked(f"{mark}-setup") + list(children() - before_children))
    own = {str(tmp_path / n) + suffix for n in case.writes for suffix in ("", ".meta.json", ".log")}
    changed = sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))
    rows = None
    if case.rows is not None:
        rows = tuple(r["status"] for r in by_line(tmp_path / case.writes[0]))
    said = done.stderr.strip().splitlines()
    found = {
        "traceback": "Traceback" in done.stdout + done.stderr,
        "documented": done.code in DOCUMENTED,
        "exit": done.code,
        "changed": [p for p in changed if p not in own],
        "left": left,
        "rows": rows,
        "said": (len(said), case.said in done.stderr) if case.said else None,
    }
    expected = {
        "traceback": False,
        "documented": True,
        "exit": case.exit,
        "changed": [],
        "left": [],
        "rows": case.rows,
        "said": (1, True) if case.said else None,
    }
    assert expected == found, f"stdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
    if case.then is not None:
        case.then(s, done)
