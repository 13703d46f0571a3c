"""Every command with a standard stream closed from the start (``<&-``, ``>&-``, ``2>&-``).

The rule: what would go to a closed stdout or stderr is dropped, and the command does its
work (its files written) and exits with its own code; a closed stdout is said in one line
on stderr. Reading ``-`` from a closed stdin is one line and exit 2. Never a traceback.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli.entry import STDOUT_CLOSED
from harness.exit_codes import RunExit

PROJECT = Path(__file__).resolve().parents[1]
UNIQUE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
STREAMS = {"stdin": 0, "stdout": 1, "stderr": 2}
STDIN_CLOSED = "harness: error: cannot read standard input: it is closed\n"

#: Each command: its arguments ({d}: the test's folder, {s}: the closed stream), what its
#: stdout shows when open, and the file it writes (None: none). Only generate --out says
#: something on stderr (:data:`SAID`).
COMMANDS = {
    "help": (["--help"], "Usage:", None),
    "version": (["--version"], "version", None),
    "run": (["run", "-q", "--out", "{d}/run-{s}.csv", "{d}/p.txt"], "rows:", "run-{s}.csv"),
    "check": (["check", "{d}/base.csv", "{d}/base.csv"], "holds", None),
    "backends": (["backends"], "mrv", None),
    "generate": (["generate", "-q", "--size", "4"], "reproduce:", None),
    "generate-out": (
        ["generate", "-q", "--size", "4", "--out", "{d}/gen-{s}.txt"],
        "",
        "gen-{s}.txt",
    ),
    "explain": (["explain", UNIQUE], "rating:", None),
    "rate": (["rate", "-q", "--out", "{d}/rate-{s}.csv", "{d}/p.txt"], "total", "rate-{s}.csv"),
    "datasets": (["datasets", "--dir", "{d}/sets"], "p.txt: 1 puzzles", None),
    "table": (["table", "{d}/base.csv"], "backend", None),
    "report": (["report", "{d}/base.csv", "-o", "{d}/rep-{s}.html"], "report:", "rep-{s}.html"),
    "plot": (["plot", "cactus", "{d}/base.csv", "-o", "{d}/c-{s}.svg"], "cactus:", "c-{s}.svg"),
}
SAID = {"generate-out": "wrote 1 puzzle(s) to {d}/gen-{s}.txt\n"}


def harness(args: list[str], closed: int, cwd: Path) -> subprocess.CompletedProcess:
    """The console script with ``args``, file descriptor ``closed`` closed before it starts;
    the other two streams captured (stdin empty)."""
    return subprocess.run(
        [sys.executable, "-c", "from harness.cli.entry import main; main()", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(PROJECT), "COLUMNS": "100"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        preexec_fn=lambda: os.close(closed),
        check=False,
        timeout=600,
    )


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A puzzle file, a folder holding it, and a results CSV of it."""
    folder = tmp_path_factory.mktemp("streams")
    (folder / "p.txt").write_text(f"{UNIQUE}\n")
    (folder / "sets").mkdir()
    (folder / "sets" / "p.txt").write_text(f"{UNIQUE}\n")
    made = harness(["run", "-q", "--out", "base.csv", "p.txt"], 0, folder)
    assert 0 == made.returncode, made.stderr
    return folder


@pytest.mark.parametrize("stream", list(STREAMS))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_closed_stream_changes_neither_the_work_nor_the_exit_code(
    command: str, stream: str, folder: Path
) -> None:
    """With stdin, stdout or stderr closed every command exits 0 and writes its file; the
    open streams show what they always show (stdout closed: one line on stderr)."""
    args, shown, written = COMMANDS[command]
    fill = {"d": str(folder), "s": stream}
    done = harness([a.format(**fill) for a in args], STREAMS[stream], folder)
    said = "" if stream == "stderr" else SAID.get(command, "").format(**fill)
    expected_err = said + (f"{STDOUT_CLOSED}\n" if stream == "stdout" else "")
    assert (0, expected_err) == (done.returncode, done.stderr)
    assert (shown in done.stdout) if stream != "stdout" else ("" == done.stdout)
    if written is not None:
        assert (folder / written.format(**fill)).stat().st_size > 0


@pytest.mark.parametrize("args", [["run", "-q", "-"], ["rate", "-q", "-"], ["explain", "-"]])
def test_reading_a_closed_stdin_is_one_line_and_exit_2(args: list[str], folder: Path) -> None:
    """``-`` with stdin closed (``<&-``): one line saying so, exit 2, nothing on stdout."""
    done = harness(args, 0, folder)
    assert (RunExit.USAGE, "", STDIN_CLOSED) == (done.returncode, done.stdout, done.stderr)


@pytest.mark.parametrize("stream", list(STREAMS))
def test_a_closed_descriptor_is_reopened_on_dev_null(stream: str, folder: Path) -> None:
    """A closed fd 0, 1 or 2 is opened on /dev/null at once: no file opened later takes its
    number (a CSV on fd 2 would get what a worker writes to stderr)."""
    fd = STREAMS[stream]
    script = (
        "import os, sys; from harness.cli.entry import open_closed_streams; "
        "closed = open_closed_streams(); "
        f"print(closed, os.path.realpath('/proc/self/fd/{fd}'), file=open('fd.txt', 'w'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(PROJECT)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        preexec_fn=lambda: os.close(fd),
        check=False,
    )
    assert (0, f"{{{fd}}} {os.devnull}\n") == (done.returncode, (folder / "fd.txt").read_text())


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (["run", "-b", "mrv", "--out", "early.csv", "three.txt"], "rows: early.csv"),
        (["generate", "--size", "4", "--count", "3"], "# reproduce: harness generate"),
    ],
)
def test_a_stderr_closed_while_running_drops_the_rest(
    args: list[str], shown: str, folder: Path
) -> None:
    """stderr's reader gone before the first progress line (``2>&1 | head -c 10``): the
    command goes on to its end, its exit code and stdout as ever (a run: every row)."""
    (folder / "three.txt").write_text(f"{UNIQUE}\n" * 3)
    (folder / "early.csv").unlink(missing_ok=True)
    (folder / "early.meta.json").unlink(missing_ok=True)
    proc = subprocess.Popen(
        [sys.executable, "-c", "from harness.cli.entry import main; main()", *args],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(PROJECT)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None and proc.stdout is not None
    proc.stderr.close()  # the reader is gone: the harness's first write to fd 2 gets EPIPE
    out = proc.stdout.read()
    assert (0, True) == (proc.wait(timeout=600), shown in out)
    if args[0] == "run":
        assert 4 == len((folder / "early.csv").read_text().splitlines())
