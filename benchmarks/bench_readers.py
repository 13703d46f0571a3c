"""Reading speed: harness.puzzles.readers on COUNT distinct 9x9 puzzles in four layouts.

    python benchmarks/bench_readers.py [--count 20000] [--rounds 7] [--compare REV]
                                       [--general] [--layout one-line ...]

The puzzles are the symmetry variants of the public sets that bench_overhead.py builds. Each
layout is written to a temporary file: one puzzle per line, the same with a rating after each
grid, gzip, and multi-line grids (``Puzzle.pretty``). It prints, per layout, the median time
of ``read_puzzles`` over ROUNDS rounds and the time per puzzle. ``--compare`` loads another
implementation of the readers, the ``harness/puzzles/readers/`` package at a git revision (say
``main``) or a single module file, and times it in the same rounds, alternating, with the
ratio new/other. ``--general`` also times this checkout's readers with the fast path for plain
one-line puzzles turned off (``harness.puzzles.readers.dispatch.FAST_PATH``), every line taking the
general path, with the ratio new/general. ``--layout`` (repeatable) times only the layouts
named.
"""

from __future__ import annotations

import argparse
import gzip
import importlib
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_overhead import build

from backends.puzzle import Puzzle
from harness.puzzles.readers import dispatch, read_puzzles

Reader = Callable[[str], object]


def write_layouts(puzzles: list[str], folder: Path) -> dict[str, Path]:
    """The puzzles in four layouts, one file each."""
    plain = "".join(f"{text}\n" for text in puzzles)
    files = {
        "one-line": (plain.encode(), "p.txt"),
        "with rating": ("".join(f"{text} # 2.5\n" for text in puzzles).encode(), "r.txt"),
        "gzip": (gzip.compress(plain.encode()), "p.txt.gz"),
        "grids": ("\n\n".join(Puzzle.parse(t).pretty() for t in puzzles).encode(), "g.txt"),
    }
    paths = {}
    for name, (data, file_name) in files.items():
        path = folder / file_name
        path.write_bytes(data)
        paths[name] = path
    return paths


ROOT = Path(__file__).resolve().parents[1]
LAYOUTS = ("one-line", "with rating", "gzip", "grids")


def load_other(source: str, folder: Path) -> Reader:
    """``read_puzzles`` of another readers implementation: a module file, or the
    ``harness/puzzles/readers/`` package at git revision ``source``, copied into ``folder`` as the
    package ``other_readers`` (its imports of ``harness.puzzles.readers`` renamed to match)."""
    if Path(source).is_file():
        return load_file(source)
    git = ["git", "-C", str(ROOT)]
    names = subprocess.run(
        [*git, "ls-tree", "--name-only", f"{source}:harness/puzzles/readers/"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    package = folder / "other_readers"
    package.mkdir()
    for name in names:
        if name.endswith(".py"):
            text = subprocess.run(
                [*git, "show", f"{source}:harness/puzzles/readers/{name}"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            (package / name).write_text(text.replace("harness.puzzles.readers", "other_readers"))
    sys.path.insert(0, str(folder))
    return importlib.import_module("other_readers").read_puzzles


def load_file(path: str) -> Reader:
    """``read_puzzles`` of another readers implementation, loaded from a module file."""
    spec = importlib.util.spec_from_file_location("other_readers", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["other_readers"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module.read_puzzles


def general_path(path: str) -> object:
    """``read_puzzles`` with the fast path off: every line through the general path."""
    dispatch.FAST_PATH = False
    try:
        return read_puzzles(path)
    finally:
        dispatch.FAST_PATH = True


def timed(reader: Reader, path: Path) -> float:
    """Seconds to read the file; freeing what was read comes after the clock stops."""
    start = time.perf_counter()
    result = reader(str(path))
    elapsed = time.perf_counter() - start
    del result
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument(
        "--compare", metavar="REV", help="git revision (or module file) to time side by side"
    )
    parser.add_argument(
        "--general", action="store_true", help="also time the readers with the fast path off"
    )
    parser.add_argument("--layout", action="append", choices=LAYOUTS, help="only these layouts")
    args = parser.parse_args()
    puzzles = build(args.count, seed=1)
    with tempfile.TemporaryDirectory() as tmp:
        readers: dict[str, Reader] = {"readers": read_puzzles}
        if args.compare:
            readers["other"] = load_other(args.compare, Path(tmp))
        if args.general:
            readers["general"] = general_path
        paths = write_layouts(puzzles, Path(tmp))
        paths = {name: path for name, path in paths.items() if name in (args.layout or LAYOUTS)}
        for reader in readers.values():  # warm-up: imports, caches
            reader(str(next(iter(paths.values()))))
        times = {(layout, name): [] for layout in paths for name in readers}
        for _ in range(args.rounds):
            for layout, path in paths.items():
                for name, reader in readers.items():
                    times[layout, name].append(timed(reader, path))
    print(f"{args.count} puzzles, median of {args.rounds} rounds (ratio: readers / that one)")
    for layout in paths:
        new = statistics.median(times[layout, "readers"])
        cells = [f"readers {new * 1e3:6.1f} ms {new / args.count * 1e6:4.1f} us"]
        for name in list(readers)[1:]:
            median = statistics.median(times[layout, name])
            cells.append(f"{name} {median * 1e3:6.1f} ms  ratio {new / median:.2f}")
        print(f"{layout:<12} " + " | ".join(cells))


if __name__ == "__main__":
    main()
