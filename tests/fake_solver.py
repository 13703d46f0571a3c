"""A cmd: solver that misbehaves on purpose, for the tests (not collected by pytest).

    python tests/fake_solver.py MODE [MARKER]

It answers 4x4 pattern puzzles (tests.conftest.pattern_puzzle) with their one solution,
except a puzzle with 3 blanks a row, where MODE says what it does: ``answer`` (answers it
too), ``hang``, ``crash`` (exits with code 3), ``garbage`` (prints a line that breaks the
protocol), ``fork`` (forks a child that sleeps, and hangs), ``hog`` (holds 300 MiB while
it answers), ``hog-hang`` (holds 300 MiB and hangs), ``exit-held`` (starts a process that
holds its stdout, and exits with code 3), ``setsid`` (starts ``sleep MARKER`` in a new
session, and hangs). MODE ``echo`` answers every puzzle ``UNKNOWN -`` at once; ``shadow``
answers each with statistics named like the row's own columns; ``silent`` never says READY.
"""

import os
import subprocess
import sys
import time

MODE = sys.argv[1]
ANSWER = "".join(str(((r % 2) * 2 + r // 2 + c) % 4 + 1) for r in range(4) for c in range(4))
SHADOW = "backend=norvig dataset=zzz line=99 repeat=5 puzzle=y host=evil status=UNSAT"
if MODE == "silent":
    time.sleep(3600)
print("# comments are ignored", flush=True)
print("READY name=fake max_box=2", flush=True)
hoard = b""
for line in sys.stdin:
    if MODE == "echo":
        print("UNKNOWN -", flush=True)
        continue
    if MODE == "shadow":
        print("SOLVED", ANSWER, "nodes=4", SHADOW, flush=True)
        continue
    text, limit = line.split()
    if text.count(".") == 12 and MODE != "answer":
        if MODE == "crash":
            sys.exit(3)
        if MODE == "garbage":
            print("hello world", flush=True)
            continue
        if MODE == "exit-held":
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)", *sys.argv])
            sys.exit(3)
        if MODE == "setsid":
            subprocess.Popen(["sleep", sys.argv[2]], start_new_session=True)
        if MODE.startswith("hog"):
            hoard = b"x" * (300 << 20)
        if MODE == "fork" and os.fork() == 0:
            time.sleep(3600)
        if MODE in ("hang", "fork", "hog-hang", "setsid"):
            time.sleep(3600)
    print("# thinking", flush=True)
    print("SOLVED", ANSWER, "nodes=1 flips=7 time_us=12", flush=True)
