"""A corpus of corrupt results CSVs and ``.meta.json`` files, each a variant of one good run.

:func:`write_run` writes the good run (two backends on four puzzles, with its metadata);
:data:`VARIANTS` maps a variant's name to what it does to the run's CSV text and metadata:
each returns the CSV's bytes and the metadata's bytes (None: no metadata file).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path

from harness.results import BASE_COLUMNS
from harness.results.companions import meta_path_for

SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
BACKENDS = ("norvig", "naive")
BIG = str(2**64)


def _puzzle(line: int) -> str:
    return "".join("." if (i * 7 + line) % 3 else c for i, c in enumerate(SOLUTION))


def good_rows() -> list[dict[str, str]]:
    """Two backends on four puzzles: every row SOLVED, timed, counted."""
    rows = []
    for line in range(1, 5):
        for k, backend in enumerate(BACKENDS):
            puzzle = _puzzle(line)
            cells = {
                "dataset": "datasets/demo.txt",
                "line": line,
                "puzzle": puzzle,
                "size": 9,
                "givens": 81 - puzzle.count("."),
                "backend": backend,
                "repeat": 0,
                "limit": 1,
                "jobs": 1,
                "host": "vm",
                "status": "SOLVED",
                "solutions": 1,
                "solution": SOLUTION,
                "encode_s": 0.0001,
                "solve_s": 0.001 * line * (k + 1),
                "encode_cpu_s": 0.0001,
                "solve_cpu_s": 0.001 * line * (k + 1),
                "check_s": 0.00005,
                "wall_s": 0.002 * line * (k + 1),
                "peak_rss_mib": 19.5,
                "nodes": 10 * line * (k + 1),
                "guesses": 3 * line * k,
                "backtracks": 2 * line * k,
                "message": "",
            }
            rows.append({c: str(v) for c, v in cells.items()})
    return rows


def good_meta() -> dict:
    """Metadata as a run writes it (the fields the reading commands use)."""
    return {
        "command": ["harness", "run", "datasets/demo.txt", "-b", "norvig", "-b", "naive"],
        "cwd": "/tmp",
        "project_version": "0.1.0",
        "git": {"sha": "abc123", "dirty": False},
        "python": {"version": "3.11.7", "implementation": "CPython", "executable": "python"},
        "packages": {"pandas": "2"},
        "machine": {"cpu_model": "test cpu", "cpu_count": 2, "usable_cpus": 2, "os": "Linux"},
        "started": "2026-11-25T01:00:00+00:00",
        "finished": "2026-11-25T01:01:00+00:00",
        "complete": True,
        "calibration": {"workload": "w", "start_s": 0.0008, "end_s": 0.0008},
        "limits": {"timeout_s": 3.0, "memory_limit_mib": 2048, "solutions_limit": 1},
        "seed": 0,
        "jobs": 1,
        "repeat": 1,
        "datasets": [{"path": "datasets/demo.txt", "sha256": "00", "puzzles": 4}],
        "backends": [
            {"spec": b, "available": True, "reason": None, "deterministic": True, "plugin": None}
            for b in BACKENDS
        ],
        "skipped_lines": [],
    }


def csv_text(rows: list[dict[str, str]], header: list[str] | None = None) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    header = header or list(BASE_COLUMNS)
    writer.writerow(header)
    for row in rows:
        writer.writerow([row.get(c, "") for c in header])
    return buffer.getvalue()


def write_run(path: Path, data: bytes | None = None, meta: bytes | None = None) -> Path:
    """Write a run at ``path`` (the good one unless given its CSV and metadata bytes)."""
    path.write_bytes(csv_text(good_rows()).encode() if data is None else data)
    meta_path = meta_path_for(path)
    meta_path.unlink(missing_ok=True)
    if meta is not None or data is None:
        meta_path.write_bytes(json.dumps(good_meta()).encode() if meta is None else meta)
    return path


Variant = Callable[[], tuple[bytes, bytes | None]]
VARIANTS: dict[str, Variant] = {}


def _meta_bytes(meta: dict | None = None) -> bytes:
    return json.dumps(good_meta() if meta is None else meta).encode()


def text_variant(name: str, make: Callable[[], str]) -> None:
    VARIANTS[name] = lambda: (make().encode("utf-8", "surrogateescape"), _meta_bytes())


def cell_variant(name: str, column: str, value: str, row: int = 1) -> None:
    def make() -> str:
        rows = good_rows()
        rows[row][column] = value
        return csv_text(rows)

    text_variant(name, make)


def meta_variant(name: str, change: Callable[[dict], object]) -> None:
    def make() -> tuple[bytes, bytes | None]:
        meta = good_meta()
        replaced = change(meta)
        payload = replaced if isinstance(replaced, bytes) else _meta_bytes(meta)
        return csv_text(good_rows()).encode(), payload

    VARIANTS[name] = make


def _lines() -> list[str]:
    return csv_text(good_rows()).splitlines(keepends=True)


def _with_lines(edit: Callable[[list[str]], list[str]]) -> Callable[[], str]:
    return lambda: "".join(edit(_lines()))


# The file as a whole.
text_variant("empty file", lambda: "")
text_variant("header only", _with_lines(lambda ls: ls[:1]))
text_variant("torn header", _with_lines(lambda ls: [ls[0][:30]]))
text_variant("torn first row", _with_lines(lambda ls: [ls[0], ls[1][:40]]))
text_variant("torn last row", _with_lines(lambda ls: [*ls[:-1], ls[-1][:50]]))
text_variant("torn last row in a key", _with_lines(lambda ls: [*ls[:-1], ls[-1][:150]]))
text_variant("only blank lines", lambda: "\n\n\n")
text_variant("only whitespace", lambda: "   \t \n")
text_variant("blank line between rows", _with_lines(lambda ls: [*ls[:3], "\n", *ls[3:]]))
text_variant("CRLF line ends", lambda: "".join(ln.replace("\n", "\r\n") for ln in _lines()))
text_variant("byte order mark", lambda: "\ufeff" + "".join(_lines()))
text_variant("tab separated", lambda: "".join(ln.replace(",", "\t") for ln in _lines()))
text_variant("semicolon separated", lambda: "".join(ln.replace(",", ";") for ln in _lines()))
text_variant("NUL bytes", _with_lines(lambda ls: [ls[0], ls[1].replace("vm", "v\0m"), *ls[2:]]))
text_variant("unbalanced quote", _with_lines(lambda ls: [*ls[:2], '"' + ls[2], *ls[3:]]))
text_variant("not a CSV", lambda: "hello world\nthis is text\n")
text_variant("HTML", lambda: "<html><body>404</body></html>\n")
text_variant("all rows empty", _with_lines(lambda ls: [ls[0], ",,,\n", ",,,\n"]))
text_variant("a row of commas", _with_lines(lambda ls: [*ls, "," * (len(BASE_COLUMNS) - 1) + "\n"]))
VARIANTS["binary garbage"] = lambda: (bytes(range(256)) * 8, _meta_bytes())
VARIANTS["not UTF-8"] = lambda: (
    csv_text(good_rows()).replace("vm", "v\xe9m").encode("latin-1"),
    _meta_bytes(),
)
VARIANTS["gzip bytes"] = lambda: (b"\x1f\x8b\x08\x00" + b"\x00" * 40, _meta_bytes())

# The header.
text_variant(
    "no status column", lambda: csv_text(good_rows(), [c for c in BASE_COLUMNS if c != "status"])
)
text_variant(
    "no solve_s column", lambda: csv_text(good_rows(), [c for c in BASE_COLUMNS if c != "solve_s"])
)
text_variant("duplicated status column", lambda: csv_text(good_rows(), [*BASE_COLUMNS, "status"]))
text_variant("duplicated backend column", lambda: csv_text(good_rows(), ["backend", *BASE_COLUMNS]))
text_variant("empty column name", lambda: csv_text(good_rows(), [*BASE_COLUMNS, ""]))
text_variant("reordered columns", lambda: csv_text(good_rows(), list(reversed(BASE_COLUMNS))))
text_variant(
    "required columns only",
    lambda: csv_text(
        good_rows(),
        ["dataset", "line", "puzzle", "backend", "repeat", "limit", "status", "solve_s"],
    ),
)
text_variant("header repeated as a row", _with_lines(lambda ls: [ls[0], *ls[1:3], ls[0], *ls[3:]]))

# The shape of a row.
text_variant("a row of 5 fields", _with_lines(lambda ls: [*ls[:2], "a,b,c,d,e\n", *ls[2:]]))
text_variant("a row of 1 field", _with_lines(lambda ls: [*ls[:2], "x\n", *ls[2:]]))
text_variant(
    "a row with an extra field",
    _with_lines(lambda ls: [ls[0], ls[1].rstrip("\n") + ",x\n", *ls[2:]]),
)
text_variant(
    "every row with an extra field",
    _with_lines(lambda ls: [ls[0], *(ln.rstrip("\n") + ",1\n" for ln in ls[1:])]),
)
text_variant(
    "a 300 KB field",
    _with_lines(lambda ls: [ls[0], ls[1].rstrip("\n") + "x" * 300_000 + "\n", *ls[2:]]),
)
cell_variant("a 300 KB message", "message", "m" * 300_000)
cell_variant("a 300 KB puzzle", "puzzle", "1" * 300_000)

# Cells.
cell_variant("empty backend", "backend", "")
cell_variant("empty dataset", "dataset", "")
cell_variant("empty puzzle", "puzzle", "")
cell_variant("empty status", "status", "")
cell_variant("unknown status", "status", "GREAT")
cell_variant("status in lower case", "status", "solved")
cell_variant("empty line", "line", "")
cell_variant("line of text", "line", "abc")
cell_variant("negative line", "line", "-1")
cell_variant("line of 2^64", "line", BIG)
cell_variant("repeat of text", "repeat", "x")
cell_variant("limit of 0", "limit", "0")
cell_variant("limit of 2^64", "limit", BIG)
cell_variant("solve_s of abc", "solve_s", "abc")
cell_variant("solve_s of nan", "solve_s", "nan")
cell_variant("solve_s of inf", "solve_s", "inf")
cell_variant("solve_s of -inf", "solve_s", "-inf")
cell_variant("solve_s of 1e400", "solve_s", "1e400")
cell_variant("solve_s negative", "solve_s", "-1")
cell_variant("solve_s empty", "solve_s", "")
cell_variant("size of text", "size", "nine")
cell_variant("size of 2^64", "size", BIG)
cell_variant("guesses of 2^64", "guesses", BIG)
cell_variant("nodes of 2^70", "nodes", str(2**70))
cell_variant("guesses of 2^64 in every row", "guesses", BIG, row=0)
cell_variant("nodes of -5", "nodes", "-5")
cell_variant("backtracks of 1.5", "backtracks", "1.5")
cell_variant("solutions of 2^64", "solutions", BIG)
cell_variant("solution too short", "solution", "123")
cell_variant("dataset formula", "dataset", "=cmd|' -C calc'!A0.txt")
cell_variant("backend formula", "backend", "@SUM(1)")
text_variant(
    "native column of 2^64",
    lambda: csv_text([{**r, "extra": BIG} for r in good_rows()], [*BASE_COLUMNS, "extra"]),
)
text_variant(
    "native column of inf",
    lambda: csv_text([{**r, "extra": "inf"} for r in good_rows()], [*BASE_COLUMNS, "extra"]),
)
text_variant(
    "native column of text",
    lambda: csv_text([{**r, "extra": "text"} for r in good_rows()], [*BASE_COLUMNS, "extra"]),
)


# The metadata.
def _deep(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


meta_variant("meta nested 100,000 deep", lambda m: _deep(100_000))
meta_variant("meta object nested deep", lambda m: b'{"a":' * 50_000 + b"1" + b"}" * 50_000)
meta_variant("meta not JSON", lambda m: b"{not json")
meta_variant("meta empty", lambda m: b"")
meta_variant("meta a list", lambda m: b"[1, 2]")
meta_variant("meta binary", lambda m: bytes(range(256)))
meta_variant("meta machine null", lambda m: m.update(machine=None))
meta_variant("meta machine a list", lambda m: m.update(machine=[1]))
meta_variant("meta limits a string", lambda m: m.update(limits="x"))
meta_variant("meta timeout text", lambda m: m["limits"].update(timeout_s="abc"))
meta_variant("meta timeout negative", lambda m: m["limits"].update(timeout_s=-1))
meta_variant("meta timeout huge", lambda m: b'{"limits": {"timeout_s": 1e999}}')
meta_variant("meta timeout NaN", lambda m: b'{"limits": {"timeout_s": NaN}}')
meta_variant("meta backends a number", lambda m: m.update(backends=5))
meta_variant("meta backends of numbers", lambda m: m.update(backends=[5]))
meta_variant("meta backend spec a number", lambda m: m["backends"][0].update(spec=5))
meta_variant("meta datasets a string", lambda m: m.update(datasets="x"))
meta_variant("meta datasets of strings", lambda m: m.update(datasets=["x"]))
meta_variant("meta git a string", lambda m: m.update(git="x"))
meta_variant("meta python a number", lambda m: m.update(python=5))
meta_variant("meta packages a list", lambda m: m.update(packages=[1]))
meta_variant("meta calibration text", lambda m: m.update(calibration={"start_s": "x", "end_s": []}))
meta_variant("meta calibration a list", lambda m: m.update(calibration=[1]))
meta_variant("meta cpu_count text", lambda m: m["machine"].update(cpu_count="two"))
meta_variant("meta command a number", lambda m: m.update(command=5))
meta_variant("meta skipped_lines a number", lambda m: m.update(skipped_lines=5))
