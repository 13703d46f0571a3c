"""Tables as people and scripts read them: a list of row dicts (:mod:`harness.tables.stats`'s)
as terminal text, Markdown, CSV or JSON.

Numbers are shown in human form (:mod:`harness.tables.humanize`), empty where unknown; a table
wider than the terminal is split into parts that repeat the key columns. A summary's
``solved`` and ``correct`` print as "done/planned" out of its ``puzzles``; CSV and JSON keep
the three as numbers. Plain Python: ``harness run`` prints its tables without pandas.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.results import escape_cell
from harness.tables import humanize
from harness.tables.stats import missing

Rows = Sequence[Mapping[str, Any]]

#: The summary's status columns; in print, those that are 0 on every row fold into "other".
STATUS_COLUMNS = ("unsat", "timeouts", "unknown", "errors", "wrong", "unavailable")
#: Printed headers of the summary's columns (CSV and JSON keep the column names).
LABELS = {
    "x_fastest": "\N{MULTIPLICATION SIGN} fastest",
    "median_ms": "median ms",
    "cpu_ms": "cpu ms",
    "wall_cpu": "wall/cpu",
    "spread_pct": "repeat IQR %",
    "min_ms": "min repeat ms",
    "own_ms": "own ms",
    "mean_ms": "mean ms",
    "max_ms": "max ms",
    "encode_ms": "encode ms",
    "nodes_median": "nodes med",
    "nodes_mean": "nodes mean",
    "nodes_max": "nodes max",
    "no_guess_pct": "no guess %",
    "guesses_per_puzzle": "guesses/puzzle",
}
#: Terminal width a printed table fits unless told otherwise.
WIDTH = 100


def cell(column: str, value: object) -> str:
    """One value as printed: human numbers, empty where unknown."""
    if isinstance(value, str):
        return value
    if missing(value):
        return ""
    if isinstance(value, bool):
        return str(value)
    if column.endswith(("_ms", "_pct", "_per_puzzle")) or column in ("x_fastest", "wall_cpu"):
        return humanize.significant(float(value))  # type: ignore[arg-type]
    if isinstance(value, int) or float(value).is_integer():  # type: ignore[arg-type]
        return humanize.count(float(value))  # type: ignore[arg-type]
    return humanize.significant(float(value))  # type: ignore[arg-type]


#: Columns given as "done/planned" in print, out of the ``puzzles`` column.
FRACTIONS = ("solved", "correct")


def _fractions(rows: Rows) -> list[dict[str, Any]]:
    """``rows`` with ``solved`` and ``correct`` as "done/planned" text, ``puzzles`` gone."""
    if not rows or "puzzles" not in rows[0]:
        return [dict(row) for row in rows]
    out = []
    for row in rows:
        shown = {k: v for k, v in row.items() if k != "puzzles"}
        for name in FRACTIONS:
            if name in shown:
                shown[name] = f"{humanize.count(row[name])}/{humanize.count(row['puzzles'])}"
        out.append(shown)
    return out


def printable(rows: Rows) -> tuple[list[str], list[list[str]], str]:
    """Headers, string cells and a footnote: datasets by file name when that is unambiguous,
    ``solved`` and ``correct`` out of the puzzles, and the status columns that are 0 on every
    row folded into one "other" column."""
    rows = _fractions(rows)
    names = list(rows[0]) if rows else []
    values = [list(row.values()) for row in rows]
    if "dataset" in names:
        at = names.index("dataset")
        short = {d: Path(str(d)).name or str(d) for d in {v[at] for v in values}}
        if len(set(short.values())) == len(short):
            for v in values:
                v[at] = short[v[at]]
    note = ""
    zero = [
        c
        for c in STATUS_COLUMNS
        if c in names and all(missing(v) or v == 0 for v in (row[c] for row in rows))
    ]
    if len(zero) > 1:
        position = names.index(zero[0])
        keep = [i for i, c in enumerate(names) if c not in zero]
        names = [names[i] for i in keep]
        names.insert(position, "other")
        values = [[v[i] for i in keep] for v in values]
        for v in values:
            v.insert(position, 0)
        note = f"other: {', '.join(zero)} (0 on every row)"
    if "wall_cpu" in names:
        loaded = "wall/cpu: wall time over CPU time, shown above 1.2: the solver waited for a CPU"
        note = "\n".join(filter(None, [note, loaded]))
    cells = [[cell(c, v) for c, v in zip(names, row, strict=True)] for row in values]
    return [LABELS.get(c, c) for c in names], cells, note


def _parts(
    headers: list[str], cells: list[list[str]], keys: int, width: int, gap: int = 2
) -> list[list[int]]:
    """Column indexes of each part: the ``keys`` first columns, then as many more as fit
    in ``width`` with ``gap`` characters between columns."""
    widths = [max([len(h), *(len(r[i]) for r in cells)]) + gap for i, h in enumerate(headers)]
    base = list(range(min(keys, len(headers))))
    used = sum(widths[i] for i in base) - gap
    parts, current = [], list(base)
    for i in range(len(base), len(headers)):
        if len(current) > len(base) and used + widths[i] > width:
            parts.append(current)
            current, used = list(base), sum(widths[j] for j in base) - gap
        current.append(i)
        used += widths[i]
    parts.append(current)
    return parts


def _key_count(headers: Sequence[str]) -> int:
    return sum(1 for h in headers if h in ("run", "backend", "dataset", "size", "tier"))


def render(rows: Rows, width: int | None = WIDTH) -> str:
    """Plain text for a terminal: human numbers, empty cells where a value is unknown.

    Wider than ``width`` (None = no limit), the table is printed in parts that each repeat
    the key columns (backend, dataset, size).
    """
    if not rows:
        return "(no rows)"
    headers, cells, note = printable(rows)
    keys = _key_count(headers)
    indexes = [list(range(len(headers)))] if width is None else _parts(headers, cells, keys, width)
    blocks = []
    for part in indexes:
        widths = {i: max([len(headers[i]), *(len(r[i]) for r in cells)]) for i in part}

        def line(values: Sequence[str], part: list[int] = part, widths=widths) -> str:
            return "  ".join(
                values[i].ljust(widths[i]) if i < keys else values[i].rjust(widths[i]) for i in part
            ).rstrip()

        blocks.append("\n".join([line(headers), *(line(r) for r in cells)]))
    return "\n\n".join(blocks) + (f"\n{note}" if note else "")


def markdown(rows: Rows, width: int | None = WIDTH) -> str:
    """A Markdown table (split like :func:`render` when wider than ``width``)."""
    if not rows:
        return "(no rows)"
    headers, cells, note = printable(rows)
    keys = _key_count(headers)
    everything = [list(range(len(headers)))]
    # "| a | b |": 3 characters between two cells, 4 around all of them
    parts = everything if width is None else _parts(headers, cells, keys, width - 4, gap=3)
    blocks = []
    for part in parts:
        rule = ["---" if i < keys else "---:" for i in part]
        lines = [[headers[i] for i in part], rule, *([r[i] for i in part] for r in cells)]
        blocks.append("\n".join("| " + " | ".join(r) + " |" for r in lines))
    return "\n\n".join(blocks) + (f"\n\n{note}" if note else "")


def render_native(rows: Rows, width: int | None = WIDTH) -> str:
    """:func:`harness.tables.stats.native_summary` as one entry per backend and dataset, each
    listing only the statistics that backend reports (``name value``), wrapped to ``width``:
    each library has its own statistics, so a grid of every name would be mostly empty."""
    if not rows:
        return "(no rows)"
    import textwrap  # here: only a run with native statistics needs it

    headers, cells, _ = printable(rows)
    keys = _key_count(headers)
    key_width = [max([len(headers[i]), *(len(r[i]) for r in cells)]) for i in range(keys)]
    indent = sum(key_width) + 2 * keys
    lines = []
    for row in cells:
        head = "  ".join(row[i].ljust(key_width[i]) for i in range(keys)) + "  "
        stats = [f"{headers[i]}\0{row[i]}" for i in range(keys, len(headers)) if row[i]]
        text = textwrap.fill(  # a name and its value (joined by NUL until now) stay together
            ", ".join(stats),
            width=max(40, width - indent) if width else 10**6,
            break_long_words=False,
            break_on_hyphens=False,
        )
        lines.append(head + text.replace("\n", "\n" + " " * indent).replace("\0", " "))
    title = "  ".join(headers[i].ljust(key_width[i]) for i in range(keys)) + "  statistics"
    return "\n".join([title, *lines])


def plain(value: object) -> object:
    """A value for JSON or CSV: a number rounded to 6 significant figures (a whole one
    as an int), None where unknown."""
    if missing(value):
        return None
    if hasattr(value, "item"):  # numpy scalars
        value = value.item()
    if isinstance(value, float):
        return float(f"{value:.6g}") if not value.is_integer() else int(value)
    return value


def records(rows: Rows) -> list[dict[str, object]]:
    """Rows as plain dicts for JSON or CSV (see :func:`plain`)."""
    return [{str(k): plain(v) for k, v in row.items()} for row in rows]


#: The columns CSV output keeps unless asked for every column.
KEY_COLUMNS = ("run", "backend", "dataset", "size", "tier", "puzzles", "solved", "correct")
KEY_COLUMNS += ("timeouts", "wrong", "errors", "x_fastest", "median_ms", "cpu_ms", "wall_cpu")
KEY_COLUMNS += ("spread_pct",)
KEY_COLUMNS += ("min_ms", "own_ms", "nodes_median")


def to_json(rows: Rows) -> str:
    """The table as a JSON list of row objects, one key per line (for scripts)."""
    import json

    return json.dumps(records(rows), indent=1)


def to_csv(rows: Rows, keys_only: bool = False, extra_keys: Sequence[str] = ()) -> str:
    """The table as CSV: numbers in plain decimals (never scientific notation), a text a
    spreadsheet would run as a formula escaped (:func:`harness.results.escape_cell`); with
    ``keys_only``, only :data:`KEY_COLUMNS` and ``extra_keys``."""
    import csv
    import io

    table = records(rows)
    names = list(table[0]) if table else []
    if keys_only:
        names = [c for c in names if c in KEY_COLUMNS or c in extra_keys]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(names)
    for row in table:
        writer.writerow([_csv_cell(row.get(c)) for c in names])
    return buffer.getvalue().rstrip("\n")


def _csv_cell(value: object) -> str:
    if value is None:
        return ""
    return escape_cell(value) if isinstance(value, str) else humanize.plain(value)
