"""The lib: backend: a shared library's C function, called in the worker, measured and checked."""

from __future__ import annotations

import atexit
import functools
import math
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from backends import make_backend, parse_spec
from backends.base import Status
from backends.errors import BackendOptionError
from backends.lib import LibBackend
from backends.puzzle import Puzzle
from harness.cli import main
from harness.run.config import bare_worker_mib
from tests.conftest import PROJECT, pattern_puzzle
from tests.results_file import read_rows

EXAMPLE = PROJECT / "examples" / "lib" / "solver.c"
#: Wrappers around the example's function, each misbehaving on one kind of puzzle: its
#: first cell. A 9x9 pattern puzzle with a blank first: the example answers it.
FAULTY = r"""
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "EXAMPLE"
int64_t crashing(const char *p, int64_t l, char *s, int64_t *st) {
    if (p[0] == '2') raise(SIGSEGV);
    return sudoku_solve(p, l, s, st);
}
int64_t hanging(const char *p, int64_t l, char *s, int64_t *st) {
    if (p[0] == '2') for (;;) {}
    return sudoku_solve(p, l, s, st);
}
int64_t picky(const char *p, int64_t l, char *s, int64_t *st) {
    return p[0] == '2' ? -3 : sudoku_solve(p, l, s, st);
}
int64_t liar(const char *p, int64_t l, char *s, int64_t *st) {
    if (p[0] == '2') { st[0] = -7; st[3] = -2; return 1; }  /* writes no solution */
    return sudoku_solve(p, l, s, st);
}
int64_t hog(const char *p, int64_t l, char *s, int64_t *st) {
    if (p[0] == '2') {  /* 1 GiB, each page touched */
        volatile char *big = malloc(1L << 30);
        for (long i = 0; big && i < 1L << 30; i += 4096) big[i] = 1;
        free((char *)big);
    }
    return sudoku_solve(p, l, s, st);
}
"""


def compile_library(tmp_path: Path, source: str, name: str) -> Path:
    """``source`` built as a shared library in ``tmp_path``, or a skip when there is no cc."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler (cc or gcc) on PATH to build the example library")
    src = tmp_path / f"{name}.c"
    src.write_text(source.replace("EXAMPLE", str(EXAMPLE)))
    library = tmp_path / f"lib{name}.so"
    subprocess.run([compiler, "-O2", "-shared", "-fPIC", "-o", str(library), str(src)], check=True)
    return library


@functools.cache
def example_library() -> Path | None:
    """The example solver built once for the session (in a temporary folder), or None
    without a C compiler."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    folder = Path(tempfile.mkdtemp(prefix="lib-example-"))
    atexit.register(shutil.rmtree, folder, True)
    library = folder / "libexample.so"
    command = [compiler, "-O2", "-shared", "-fPIC", "-o", str(library), str(EXAMPLE)]
    subprocess.run(command, check=True)
    return library


@pytest.fixture
def example() -> Path:
    """The example solver, built."""
    library = example_library()
    if library is None:
        pytest.skip("no C compiler (cc or gcc) on PATH to build the example library")
    return library


@pytest.fixture
def faulty(tmp_path: Path) -> Path:
    """The misbehaving wrappers, built."""
    return compile_library(tmp_path, FAULTY, "faulty")


def run(tmp_path: Path, spec: str, data: Path, *args: str) -> tuple[int, list[dict[str, str]]]:
    """``harness run -q -b SPEC ARGS DATA``: exit code and rows, in the order of the
    puzzles' lines (rows are written as solves end: a task run again after its worker was
    killed ends later)."""
    out = tmp_path / "run.csv"
    command = ["run", "-q", "-b", spec, *args, "--out", str(out), str(data)]
    result = CliRunner().invoke(main, command)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, by_line(out)


def by_line(out: Path) -> list[dict[str, str]]:
    """The rows of ``out`` in the order of their puzzles' lines."""
    return sorted(read_rows(out)[1], key=lambda row: int(row["line"]))


def three_puzzles(tmp_path: Path) -> Path:
    """A 9x9 puzzle starting with 1, one the wrappers misbehave on (1 and 2 swapped, so it
    starts with 2), the first again."""
    cells = list(pattern_puzzle(3, 0).to_string())
    for cell in (10, 20, 30, 40, 50):
        cells[cell] = "."
    first = "".join(cells)
    second = first.translate(str.maketrans("12", "21"))
    data = tmp_path / "puzzles.txt"
    data.write_text(f"{first}\n{second}\n{first}\n")
    return data


def test_spec_names_the_path_and_the_symbol() -> None:
    """lib:PATH calls sudoku_solve; lib:PATH:SYMBOL another function; a path may hold ':'."""
    specs = ("lib:./libx.so", "lib:./libx.so:my_solve", "lib:./a:b/libx.so", "lib:path=y.so")
    expected = [
        ("lib", {"path": "./libx.so"}),
        ("lib", {"path": "./libx.so", "symbol": "my_solve"}),
        ("lib", {"path": "./a:b/libx.so"}),
        ("lib", {"path": "y.so"}),
    ]
    assert expected == [parse_spec(spec) for spec in specs]


def test_example_answers_every_size_checked(tmp_path: Path, example: Path) -> None:
    """The example solves 4x4 to 25x25, proves uniqueness, UNSAT and two solutions, checked,
    and fills the counters and its own clock."""
    data = tmp_path / "mixed.txt"
    files = ("sizes.txt", "unsolvable.txt", "multi.txt")
    data.write_text("".join((PROJECT / "datasets" / f).read_text() for f in files))
    code, rows = run(tmp_path, f"lib:{example}", data, "--limit-solutions", "2")
    assert 0 == code
    assert {"SOLVED", "UNSAT"} == {row["status"] for row in rows}
    assert {"4", "9", "16", "25"} == {row["size"] for row in rows}
    assert {"0", "1", "2"} == {row["solutions"] for row in rows}
    assert all(float(row["own_solve_s"]) > 0 and int(row["nodes"]) > 0 for row in rows)
    assert [] == [row["message"] for row in rows if row["message"]]


def test_info_gives_the_largest_grid(example: Path) -> None:
    """sudoku_solver_info is read once, in a subprocess: name, version, max_box."""
    backend = make_backend(f"lib:{example}")
    assert ({"name": "example-lib", "version": "1", "max_box": "5"}, 5) == (
        backend.info,
        backend.largest_box,
    )


def test_segfault_and_hang_do_not_stop_the_run(tmp_path: Path, faulty: Path) -> None:
    """A segfault is ERROR naming the signal, a hang TIMEOUT; the puzzles around them solve."""
    data = three_puzzles(tmp_path)
    statuses = {}
    for symbol in ("crashing", "hanging"):
        out = tmp_path / symbol
        out.mkdir()
        code, rows = run(out, f"lib:{faulty}:{symbol}", data, "--timeout", "1")
        shown = {"crashing": 30, "hanging": 14}[symbol]  # the time a kill takes varies
        statuses[symbol] = (code, [(row["status"], row["message"][:shown]) for row in rows])
    solved = ("SOLVED", "")
    assert {
        "crashing": (4, [solved, ("ERROR", "worker died: killed by SIGSEGV"), solved]),
        "hanging": (0, [solved, ("TIMEOUT", "killed after 1"), solved]),
    } == statuses


def test_negative_return_is_unknown_with_the_value(tmp_path: Path, faulty: Path) -> None:
    """A negative return is UNKNOWN, not an error, and the message quotes it."""
    code, rows = run(tmp_path, f"lib:{faulty}:picky", three_puzzles(tmp_path))
    expected = ["", "picky returned -3: it cannot take this puzzle", ""]
    assert (0, ["SOLVED", "UNKNOWN", "SOLVED"], expected) == (
        code,
        [row["status"] for row in rows],
        [row["message"] for row in rows],
    )


def test_nonsense_statistics_are_dropped_and_an_unwritten_solution_is_blank(
    tmp_path: Path, faulty: Path
) -> None:
    """Statistics below -1 are dropped and said; a call that claims a solution but writes
    none gets a blank one (refused by the checker), not the previous call's."""
    backend = LibBackend(path=str(faulty), symbol="liar")
    first, second = (Puzzle.parse(line) for line in three_puzzles(tmp_path).read_text().split()[:2])
    results = [backend.solve(backend.encode(puzzle)) for puzzle in (first, second)]
    message = "dropped negative statistics: nodes=-7 own_ns=-2"
    assert [(Status.SOLVED, ""), (Status.SOLVED, message)] == [
        (result.status, result.message) for result in results
    ]
    assert ((255,) * 81, None, None) == (
        results[1].solution,
        results[1].nodes,
        results[1].own_solve_s,
    )


def test_memory_limit_holds(tmp_path: Path, faulty: Path) -> None:
    """A call that takes 1 GiB more than a bare worker, under a lower limit, is MEMOUT; the
    next one solves. (A worker is a fork of this process, whose memory grows over a long test
    session: the call's share must pass the limit however large the fork starts.)"""
    limit = max(250, math.ceil(1.5 * bare_worker_mib()) + 10)  # a worker forks this process
    code, rows = run(
        tmp_path, f"lib:{faulty}:hog", three_puzzles(tmp_path), "--memory-limit", str(limit)
    )
    assert (4, ["SOLVED", "MEMOUT", "SOLVED"]) == (code, [row["status"] for row in rows])


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda d, lib: d / "absent.so", "No such file or directory"),
        (lambda d, lib: PROJECT / "README.md", "is not a shared library"),
        (lambda d, lib: f"{lib}:no_such_function", "has no function 'no_such_function'"),
    ],
)
def test_bad_library_is_one_line_and_exit_2(tmp_path: Path, example: Path, make, reason) -> None:
    """A missing file, a file that is no library, a missing symbol: one line, exit 2, no CSV."""
    puzzles = tmp_path / "p.txt"
    puzzles.write_text(pattern_puzzle(3, 1).to_string() + "\n")
    out = tmp_path / "out.csv"
    command = ["harness", "run", "-q", "-b", f"lib:{make(tmp_path, example)}", "--out", str(out)]
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from harness.cli.entry import main; main()",
            *command[1:],
            str(puzzles),
        ],
        capture_output=True,
        text=True,
        cwd=PROJECT,
    )
    lines = done.stderr.strip().splitlines()
    assert (2, 1, True, False) == (done.returncode, len(lines), reason in done.stderr, out.exists())


def test_library_that_crashes_as_it_loads_is_refused(tmp_path: Path) -> None:
    """A library whose constructor segfaults crashes only the checking subprocess."""
    source = "#include <signal.h>\n"
    source += "__attribute__((constructor)) static void boom(void) { raise(SIGSEGV); }\n"
    library = compile_library(tmp_path, source, "boom")
    with pytest.raises(BackendOptionError, match="crashed as it loaded \\(SIGSEGV\\)"):
        LibBackend(path=str(library))


def test_cmd_time_us_is_own_solve_s_and_nonsense_is_dropped(tmp_path: Path) -> None:
    """time_us becomes own_solve_s; -5, nan, inf and text are dropped, and the row says so."""
    values = ["250", "-5", "nan", "inf", "soon"]
    puzzle = pattern_puzzle(2, 2)  # not the warm-up's puzzle (one blank a row), same answer
    answer = pattern_puzzle(2, 0).to_string()
    solver = tmp_path / "clock.py"
    solver.write_text(
        "import sys\n"
        "print('READY max_box=2', flush=True)\n"
        f"values = iter({values!r})\n"
        "for line in sys.stdin:\n"
        f"    clock = ' time_us=' + next(values) if line.count('.') == 8 else ''\n"
        f"    print('SOLVED {answer}' + clock, flush=True)\n"
    )
    data = tmp_path / "p.txt"
    data.write_text(f"{puzzle.to_string()}\n" * len(values))
    code, rows = run(tmp_path, f"cmd:{sys.executable} {solver}", data)
    dropped = "time_us={} dropped: not a number of microseconds, 0 or more"
    assert (0, ["0.000250000", "", "", "", ""]) == (code, [row["own_solve_s"] for row in rows])
    assert [""] + [dropped.format(v) for v in values[1:]] == [row["message"] for row in rows]


def test_tables_and_report_show_the_own_clock(tmp_path: Path, example: Path) -> None:
    """own_ms beside the median for lib:, empty for a backend without a clock; the report's
    summary shows it and its cactus plot can use it."""
    from harness.report import build
    from harness.results import engine
    from harness.tables import stats

    _, rows = run(tmp_path, f"lib:{example}", PROJECT / "datasets" / "easy.txt", "-b", "bitmask")
    csv = tmp_path / "run.csv"
    with engine.read([csv]) as results:
        table = {row["backend"]: row["own_ms"] for row in stats.summary(results.con)}
    own = sorted(float(row["own_solve_s"]) * 1000 for row in rows if row["backend"] != "bitmask")
    assert (own[24] + own[25]) / 2 == pytest.approx(table[f"lib:{example}"], rel=1e-12)
    assert table["bitmask"] is None  # not reported
    page = build([csv], time="own")
    shown = ("own clock ms", "own clock per puzzle", "Not in the cactus plot (no time by")
    assert [True, True, True] == [text in page for text in shown]


def test_the_same_solver_behind_cmd(tmp_path: Path) -> None:
    """examples/lib/main.c puts the example behind cmd:, its clock as time_us: same answers."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler (cc or gcc) on PATH to build the example")
    program = tmp_path / "solver"
    main_c = PROJECT / "examples" / "lib" / "main.c"
    subprocess.run([compiler, "-O2", "-o", str(program), str(main_c)], check=True)
    code, rows = run(tmp_path, f"cmd:{program}", PROJECT / "datasets" / "sizes.txt")
    assert (0, {"SOLVED"}) == (code, {row["status"] for row in rows})
    assert all(float(row["own_solve_s"]) > 0 for row in rows)


def test_all_leaves_lib_out() -> None:
    """-b all expands to the built-ins that need no file: lib: is named one by one."""
    from harness.run.runner import resolve_backends

    specs = [choice.spec for choice in resolve_backends(["all"])]
    assert (False, True) == (any(s.startswith("lib") for s in specs), "cmd" in specs)
