"""A solver that misbehaves costs only its own rows: what a ``lib:`` library writes to the
worker's descriptors, forks, signals it ignores, and what it prints."""

from __future__ import annotations

import fcntl
import os
import pickle
import struct
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from harness.results import companions
from harness.run.worker import output
from tests.conftest import PROJECT
from tests.test_lib import by_line, compile_library, three_puzzles
from tests.test_reaper import marker, sleeps

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc")

#: Wrappers around the example's function, each misbehaving on the puzzle that starts with
#: 2 (see :func:`tests.test_lib.three_puzzles`). ``to_pipes`` writes to every descriptor that
#: is the write end of a pipe (the worker's answers among them), ``to_files`` to every
#: regular file open for writing, then each waits to be killed or solves.
MISBEHAVING = r"""
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "EXAMPLE"
static void to_pipes(const char *bytes, size_t n) {
    struct stat s;
    for (int fd = 3; fd < 1024; fd++) {
        int flags = fcntl(fd, F_GETFL);
        if (flags >= 0 && !fstat(fd, &s) && S_ISFIFO(s.st_mode) && (flags & O_ACCMODE) == O_WRONLY)
            if (write(fd, bytes, n) < 0) continue;
    }
}
static void wait_for_the_end(void) { for (;;) sleep(1000); }
#define WRITES(name, bytes, n) \
int64_t name(const char *p, int64_t l, char *s, int64_t *st) { \
    if (p[0] == '2') { to_pipes(bytes, n); wait_for_the_end(); } \
    return sudoku_solve(p, l, s, st); \
}
WRITES(junk12, "\0\0\x10\0abcdefgh", 12)
WRITES(junk6, "\0\0\0\x02" "ab", 6)
WRITES(half_frame, "SHw1\x64\0\0\0[", 9)
WRITES(crafted, CRAFTED, sizeof(CRAFTED) - 1)
int64_t to_files(const char *p, int64_t l, char *s, int64_t *st) {
    struct stat f;
    for (int fd = 3; p[0] == '2' && fd < 1024; fd++) {
        int flags = fcntl(fd, F_GETFL);
        if (flags >= 0 && !fstat(fd, &f) && S_ISREG(f.st_mode) && (flags & O_ACCMODE) != O_RDONLY)
            if (write(fd, "INJECTED\n", 9) < 0) continue;
    }
    return sudoku_solve(p, l, s, st);
}
int64_t forks(const char *p, int64_t l, char *s, int64_t *st) {
    if (p[0] == '2') fork();  /* both the worker and its copy go on */
    return sudoku_solve(p, l, s, st);
}
int64_t stubborn(const char *p, int64_t l, char *s, int64_t *st) {
    if (p[0] == '2') {
        int ignored[] = {SIGUSR1, SIGUSR2, SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGPIPE};
        for (unsigned k = 0; k < sizeof ignored / sizeof *ignored; k++) signal(ignored[k], SIG_IGN);
        if (system("setsid sleep " SLEEP " </dev/null >/dev/null 2>&1 &") != 0) return -1;
        fclose(fopen(HANGING, "w"));
        wait_for_the_end();
    }
    return sudoku_solve(p, l, s, st);
}
"""


class RunsACommand:
    """Unpickled, runs ``touch PATH``: what a crafted frame would make a pickle reader do."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {self.path}",))


def c_string(data: bytes) -> str:
    return '"' + "".join(f"\\x{b:02x}" for b in data) + '"'


@pytest.fixture
def misbehaving(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The wrappers, built, and what they leave behind: the file the crafted frame would
    create, the file the stubborn one creates when it hangs, its sleep's marker."""
    payload = pickle.dumps([RunsACommand(tmp_path / "pwned")])
    facts = {
        "pwned": str(tmp_path / "pwned"),
        "hanging": str(tmp_path / "hanging"),
        "sleep": marker(),
    }
    source = MISBEHAVING.replace("CRAFTED", c_string(struct.pack("!i", len(payload)) + payload))
    source = source.replace("HANGING", f'"{facts["hanging"]}"').replace(
        "SLEEP", f'"{facts["sleep"]}"'
    )
    return compile_library(tmp_path, source, "misbehaving"), facts


HARNESS = [sys.executable, "-c", "from harness.cli.entry import main; main()"]


def harness(tmp_path: Path, spec: str, *args: str, timeout: float = 120) -> tuple[int, str]:
    """``harness run -q -b SPEC ARGS`` over three puzzles in a child process: its exit code
    and stderr (a hang past ``timeout`` fails the test)."""
    command = [*HARNESS, "run", "-q", "-b", spec, *args, "--out", str(tmp_path / "run.csv")]
    proc = subprocess.Popen(
        [*command, str(three_puzzles(tmp_path))],
        cwd=PROJECT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"the harness hung for {timeout:g} s")
    return proc.returncode, stderr


@pytest.mark.parametrize(
    ("symbol", "reason"),
    [
        ("junk12", "bytes that begin no frame: b'\\x00\\x00\\x10\\x00abcdefgh'"),
        ("junk6", "bytes that begin no frame: b'\\x00\\x00\\x00\\x02ab'"),  # at once
        ("crafted", "bytes that begin no frame: b'\\x00\\x00\\x00"),
        ("half_frame", "a frame that stopped half-way"),
    ],
)
def test_bytes_a_library_writes_to_the_answer_pipe_cost_its_row_alone(
    tmp_path: Path, misbehaving: tuple[Path, dict[str, str]], symbol: str, reason: str
) -> None:
    """Junk, a short frame, a pickle that would run a command, a frame that never ends, all
    written to the worker's answer pipe: that puzzle is ERROR naming it, the others solve,
    nothing runs in the harness, nothing hangs."""
    library, facts = misbehaving
    code, stderr = harness(tmp_path, f"lib:{library}:{symbol}", "--timeout", "30")
    rows = by_line(tmp_path / "run.csv")
    statuses = [(row["status"], row["message"][: len(reason) + 32]) for row in rows]
    malformed = ("ERROR", f"worker sent a malformed answer: {reason}")
    assert (4, "", False) == (code, stderr, os.path.exists(facts["pwned"]))
    assert [("SOLVED", ""), malformed, ("SOLVED", "")] == statuses


def test_a_worker_holds_none_of_the_harness_s_files(
    tmp_path: Path, misbehaving: tuple[Path, dict[str, str]]
) -> None:
    """A library that writes a line to every file it can: none reaches the CSV (the worker
    does not hold it), and every answer stands."""
    library, _ = misbehaving
    code, stderr = harness(tmp_path, f"lib:{library}:to_files")
    rows = by_line(tmp_path / "run.csv")
    text = (tmp_path / "run.csv").read_text()
    assert (0, "", ["SOLVED"] * 3, False) == (
        code,
        stderr,
        [row["status"] for row in rows],
        "INJECTED" in text,
    )


def test_a_library_that_forks_is_one_error_row(
    tmp_path: Path, misbehaving: tuple[Path, dict[str, str]]
) -> None:
    """fork() inside the call: the worker and its copy both return; the copy leaves at once,
    that puzzle is ERROR, the others are answered once each, right."""
    library, _ = misbehaving
    code, stderr = harness(tmp_path, f"lib:{library}:forks")
    rows = by_line(tmp_path / "run.csv")
    forked = "the solver started a process in the worker (did it fork?); that process was killed"
    assert (4, "") == (code, stderr)
    assert [("SOLVED", ""), ("ERROR", forked), ("SOLVED", "")] == [
        (row["status"], row["message"]) for row in rows
    ]


def test_no_worker_outlives_a_killed_harness_whatever_it_ignores(
    tmp_path: Path, misbehaving: tuple[Path, dict[str, str]]
) -> None:
    """A library that ignores every signal it can, starts a process in a new session and
    hangs: SIGKILL the harness, and every process below it ends; the CSV's lock is free."""
    library, facts = misbehaving
    command = [*HARNESS, "run", "-q", "-b", f"lib:{library}:stubborn"]
    command += ["--out", str(tmp_path / "run.csv"), str(three_puzzles(tmp_path))]
    run = subprocess.Popen(
        command, cwd=PROJECT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 60
        while not (os.path.exists(facts["hanging"]) and sleeps(facts["sleep"])):
            assert run.poll() is None and time.monotonic() < deadline, "the library never hung"
            time.sleep(0.02)
        below = psutil.Process(run.pid).children(recursive=True)
        run.kill()
        run.wait()
        _, left = psutil.wait_procs([*below, *sleeps(facts["sleep"])], timeout=60)
    finally:
        for proc in sleeps(facts["sleep"]):
            proc.kill()
    with open(f"{tmp_path / 'run.csv'}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises while a process holds it
    assert ([], True) == ([p.pid for p in left], len(below) >= 3)  # worker, watcher, sleep


#: A constructor that prints a spoofed info line, then PRINTED megabytes, to stdout.
LOUD = r"""
#include <stdio.h>
#include <string.h>
#include "EXAMPLE"
__attribute__((constructor)) static void loud(void) {
    static char line[1 << 16];
    memset(line, 'x', sizeof line - 1);
    line[sizeof line - 2] = '\n';
    printf("name=spoof max_box=2\n");
    for (int k = 0; k < PRINTED * 16; k++) fputs(line, stdout);
    fflush(stdout);
}
"""

#: Runs the harness, then writes its peak resident memory (KiB) to argv[1] as it exits.
PEAK = """
import os, resource, sys
peak, sys.argv = sys.argv[1], sys.argv[:1] + sys.argv[2:]
from harness.cli.entry import main
try:
    main()
finally:
    with open(peak, "w") as f:
        f.write(str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))
"""


def test_what_a_library_prints_is_bounded_and_cannot_speak_for_it(tmp_path: Path) -> None:
    """A constructor that prints ``max_box=2`` and 1.2 GB: the 9x9 puzzles still solve, the
    log stops at its cap and says so, and the harness never holds what was printed (its
    peak stays far below it, whatever else a long test session leaves it holding)."""
    library = compile_library(tmp_path, LOUD.replace("PRINTED", "1200"), "loud")
    out, peak = tmp_path / "run.csv", tmp_path / "peak"
    command = [sys.executable, "-c", PEAK, str(peak), "run", "-q", "-b", f"lib:{library}"]
    done = subprocess.run(
        [*command, "--out", str(out), str(three_puzzles(tmp_path))],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    log = companions.log_path_for(out).read_bytes()
    cut = f"\nharness: the log was cut at {output.LOG_CAP >> 20} MiB: later output was dropped\n"
    assert (0, "", ["SOLVED"] * 3) == (
        done.returncode,
        done.stderr,
        [row["status"] for row in by_line(out)],
    )
    assert (output.LOG_CAP + len(cut), True) == (len(log), log.endswith(cut.encode()))
    assert int(peak.read_text()) < 800 * 1024  # KiB: a harness with its engine, not 1.2 GB
