"""pandas tables built from result rows: one summary row per backend x dataset.

Timing columns summarise the solve phase (``solve_s``) of answered rows (SOLVED or UNSAT
and checked): a TIMEOUT is counted in its own column and never averaged in as if it were
an answer, and a WRONG row is never timed as a success. With ``--repeat K`` the K rows of
one (puzzle, backend) are first reduced to their median, so every puzzle weighs the same.
Counters a backend does not report stay empty (NaN), never 0.

Rows are sorted by speed within each dataset (most checked answers first, then the lowest
median), with ``x_fastest``: the row's median over the dataset's fastest median. Printed
tables (:func:`render`, :func:`markdown`) show numbers in human form (:mod:`harness.humanize`)
and fit a width by splitting into parts that repeat the key columns.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from backends.base import COUNTERS, Status
from harness import humanize
from harness.results import MEASURE_COLUMNS, ResultsError, require_columns, unescape_cell

ANSWERED = (Status.SOLVED.value, Status.UNSAT.value)
NUMERIC = (*MEASURE_COLUMNS, *COUNTERS)
#: The summary's status columns; in print, those that are 0 on every row fold into "other".
STATUS_COLUMNS = ("unsat", "timeouts", "unknown", "errors", "wrong", "unavailable")
#: Printed headers of the summary's columns (CSV and JSON keep the column names).
LABELS = {
    "x_fastest": "\N{MULTIPLICATION SIGN} fastest",
    "median_ms": "median ms",
    "mean_ms": "mean ms",
    "max_ms": "max ms",
    "encode_ms": "encode ms",
    "nodes_median": "nodes med",
    "nodes_mean": "nodes mean",
    "nodes_max": "nodes max",
    "no_guess_pct": "no guess %",
    "guesses_per_puzzle": "guesses/puzzle",
}
#: The columns CSV output keeps unless asked for every column.
KEY_COLUMNS = ("backend", "dataset", "size", "tier", "solved", "correct", "timeouts", "wrong")
KEY_COLUMNS += ("errors", "x_fastest", "median_ms", "nodes_median")
#: Terminal width a printed table fits unless told otherwise.
WIDTH = 100


def load(path: str | Path) -> pd.DataFrame:
    """Read a results CSV with the right dtypes (puzzle text stays text).

    Raises :class:`harness.results.ResultsError`, naming the file, for one that is
    unreadable or not a results CSV.
    """
    try:
        frame = pd.read_csv(path, dtype={"puzzle": str, "solution": str, "message": str})
    except (OSError, UnicodeDecodeError, ValueError) as exc:  # pandas' parse errors too
        raise ResultsError(f"{path}: cannot read it as a results CSV: {exc}") from None
    require_columns(path, frame.columns)
    for column in frame.columns[[pd.api.types.is_string_dtype(t) for t in frame.dtypes]]:
        frame[column] = frame[column].map(unescape_cell, na_action="ignore")  # see results.py
    return frame


def per_puzzle(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, line, backend): medians over repeats, the status of repeat 0."""
    keys = ["dataset", "line", "puzzle", "backend"]
    numeric = [c for c in frame.columns if c in NUMERIC or _is_native(frame, c)]
    agg = {c: "median" for c in numeric}
    agg.update({c: "first" for c in ("status", "size", "givens", "solutions", "message", "tier")})
    agg = {c: f for c, f in agg.items() if c in frame.columns}
    ordered = frame.sort_values("repeat", kind="stable") if "repeat" in frame else frame
    return ordered.groupby(keys, sort=False, dropna=False).agg(agg).reset_index()


def _is_native(frame: pd.DataFrame, column: str) -> bool:
    from harness.results import BASE_COLUMNS

    return column not in BASE_COLUMNS and pd.api.types.is_numeric_dtype(frame[column])


def grouping(frame: pd.DataFrame) -> tuple[str, ...]:
    """backend x dataset, and grid size too when a dataset mixes sizes: a median over 4x4
    and 25x25 puzzles together would describe neither."""
    mixed = "size" in frame and (frame.groupby("dataset")["size"].nunique() > 1).any()
    return ("backend", "dataset", "size") if mixed else ("backend", "dataset")


def summary(frame: pd.DataFrame, by: Sequence[str] | None = None) -> pd.DataFrame:
    """The comparison table: one row per group (default :func:`grouping`)."""
    by = grouping(frame) if by is None else by
    puzzles = per_puzzle(frame)
    planned = _planned(puzzles, by)
    rows = []
    for key, group in puzzles.groupby(list(by), sort=True, dropna=False):
        status = group["status"]
        answered = group[status.isin(ANSWERED)]
        solved = status == Status.SOLVED.value
        ms = answered["solve_s"] * 1000
        row = dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True))
        row.update(
            {
                "solved": f"{int(solved.sum())}/{planned(row, len(group))}",
                # UNSAT is a right answer where the file says 0 solutions (else it is WRONG)
                "correct": f"{len(answered)}/{planned(row, len(group))}",
                "unsat": int((status == Status.UNSAT.value).sum()),
                "timeouts": int((status == Status.TIMEOUT.value).sum()),
                "unknown": int((status == Status.UNKNOWN.value).sum()),
                "errors": int(status.isin([Status.ERROR.value, Status.MEMOUT.value]).sum()),
                "wrong": int((status == Status.WRONG.value).sum()),
                "unavailable": int((status == Status.UNAVAILABLE.value).sum()),
                "median_ms": ms.median(),
                "mean_ms": ms.mean(),
                "max_ms": ms.max(),
                "encode_ms": (answered["encode_s"] * 1000).median(),
            }
        )
        for counter in ("nodes",):
            values = answered[counter] if counter in answered else pd.Series(dtype=float)
            row[f"{counter}_median"] = values.median()
            row[f"{counter}_mean"] = values.mean()
            row[f"{counter}_max"] = values.max()
        guesses = (
            answered.loc[answered["status"] == Status.SOLVED.value, "guesses"]
            if "guesses" in answered
            else pd.Series(dtype=float)
        )
        known = guesses.dropna()
        row["no_guess_pct"] = 100.0 * (known == 0).mean() if len(known) else float("nan")
        row["guesses_per_puzzle"] = known.mean() if len(known) else float("nan")
        row["_answered"] = len(answered)
        rows.append(row)
    return by_speed(pd.DataFrame(rows), [c for c in by if c != "backend"])


def _planned(puzzles: pd.DataFrame, by: Sequence[str]) -> Callable[[dict, int], int]:
    """How many puzzles each group was planned to cover: every puzzle any backend has a row
    for in the group's dataset (and size or tier), so a backend whose rows are missing is
    counted against the puzzles it never ran."""
    others = [k for k in by if k != "backend"]
    if "backend" not in by or not others:
        return lambda row, present: present
    counts = puzzles.drop_duplicates([*others, "line", "puzzle"]).groupby(others).size()

    def planned(row: dict, present: int) -> int:
        key = tuple(row[k] for k in others)
        return max(present, int(counts.get(key if len(key) > 1 else key[0], 0)))

    return planned


def by_speed(table: pd.DataFrame, within: Sequence[str]) -> pd.DataFrame:
    """``table`` sorted by speed within each ``within`` group, with its ``x_fastest`` column.

    Most checked answers first, then the lowest median; ``x_fastest`` is the row's median
    over the group's lowest (empty for a row without answers).
    """
    if table.empty:
        return table
    within = list(within)
    fastest = (
        table.groupby(within, dropna=False)["median_ms"].transform("min")
        if within
        else table["median_ms"].min()
    )
    position = table.columns.get_loc("median_ms")
    table.insert(position, "x_fastest", table["median_ms"] / fastest)
    table = table.sort_values(
        [*within, "_answered", "median_ms"],
        ascending=[*(True for _ in within), False, True],
        na_position="last",
        kind="stable",
    )
    return table.drop(columns="_answered").reset_index(drop=True)


def cell(column: str, value: object) -> str:
    """One value as printed: human numbers, empty where unknown."""
    if isinstance(value, str):
        return value
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return ""
    if isinstance(value, bool):
        return str(value)
    if column.endswith(("_ms", "_pct", "_per_puzzle")) or column == "x_fastest":
        return humanize.significant(float(value))
    if isinstance(value, int) or float(value).is_integer():
        return humanize.count(float(value))
    return humanize.significant(float(value))


def printable(table: pd.DataFrame) -> tuple[list[str], list[list[str]], str]:
    """Headers, string cells and a footnote: datasets by file name when that is unambiguous,
    and the status columns that are 0 on every row folded into one "other" column."""
    table = table.copy()
    if "dataset" in table:
        names = {d: Path(str(d)).name or str(d) for d in table["dataset"].unique()}
        if len(set(names.values())) == len(names):
            table["dataset"] = table["dataset"].map(names)
    note = ""
    zero = [c for c in STATUS_COLUMNS if c in table and (table[c].fillna(0) == 0).all()]
    if len(zero) > 1:
        position = table.columns.get_loc(zero[0])
        table = table.drop(columns=zero)
        table.insert(position, "other", 0)
        note = f"other: {', '.join(zero)} (0 on every row)"
    names = [str(c) for c in table.columns]
    cells = [[cell(c, v) for c, v in zip(names, values, strict=True)] for values in table.values]
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
    return sum(1 for h in headers if h in ("backend", "dataset", "size", "tier"))


def render(table: pd.DataFrame, width: int | None = WIDTH) -> str:
    """Plain text for a terminal: human numbers, empty cells where a value is unknown.

    Wider than ``width`` (None = no limit), the table is printed in parts that each repeat
    the key columns (backend, dataset, size).
    """
    if table.empty:
        return "(no rows)"
    headers, cells, note = printable(table)
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


def markdown(table: pd.DataFrame, width: int | None = WIDTH) -> str:
    """A Markdown table (split like :func:`render` when wider than ``width``)."""
    if table.empty:
        return "(no rows)"
    headers, cells, note = printable(table)
    keys = _key_count(headers)
    everything = [list(range(len(headers)))]
    # "| a | b |": 3 characters between two cells, 4 around all of them
    parts = everything if width is None else _parts(headers, cells, keys, width - 4, gap=3)
    blocks = []
    for part in parts:
        rule = ["---" if i < keys else "---:" for i in part]
        rows = [[headers[i] for i in part], rule, *([r[i] for i in part] for r in cells)]
        blocks.append("\n".join("| " + " | ".join(r) + " |" for r in rows))
    return "\n\n".join(blocks) + (f"\n\n{note}" if note else "")


def records(table: pd.DataFrame) -> list[dict[str, object]]:
    """Rows as plain dicts for JSON or CSV: numbers rounded to 6 significant figures, in
    plain decimals, None where unknown."""

    def plain(value: object) -> object:
        if value is None or (isinstance(value, float) and pd.isna(value)):
            return None
        if hasattr(value, "item"):  # numpy scalars
            value = value.item()
        if isinstance(value, float):
            return float(f"{value:.6g}") if not value.is_integer() else int(value)
        return value

    return [{str(k): plain(v) for k, v in row.items()} for row in table.to_dict("records")]


def to_json(table: pd.DataFrame) -> str:
    """The table as a JSON list of row objects, one key per line (for scripts)."""
    return json.dumps(records(table), indent=1)


def to_csv(table: pd.DataFrame) -> str:
    """The table as CSV: numbers in plain decimals (never scientific notation)."""
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=[str(c) for c in table.columns])
    writer.writeheader()
    for row in records(table):
        writer.writerow({k: "" if v is None else humanize.plain(v) for k, v in row.items()})
    return buffer.getvalue().rstrip("\n")


def native_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Medians of each backend's native statistics (columns it does not report are dropped)."""
    puzzles = per_puzzle(frame)
    native = [c for c in puzzles.columns if _is_native(puzzles, c)]
    if not native:
        return pd.DataFrame()
    answered = puzzles[puzzles["status"].isin(ANSWERED)]
    table = answered.groupby(list(grouping(frame)))[native].median()
    return table.dropna(axis=0, how="all").dropna(axis=1, how="all").reset_index()


def render_native(table: pd.DataFrame, width: int | None = WIDTH) -> str:
    """:func:`native_summary` as one entry per backend and dataset, each listing only the
    statistics that backend reports (``name value``), wrapped to ``width``: each library
    has its own statistics, so a grid of every name would be mostly empty."""
    if table.empty:
        return "(no rows)"
    headers, cells, _ = printable(table)
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


def summary_by_tier(
    frame: pd.DataFrame, tiers: Mapping[str, str], order: Sequence[str] = ()
) -> pd.DataFrame:
    """:func:`summary` per backend x dataset x difficulty tier.

    ``tiers`` maps a puzzle's canonical text to its tier (see :mod:`harness.rating`);
    puzzles it lacks are ``unrated``. Rows follow ``order`` within each backend x dataset.
    """
    tagged = frame.assign(tier=frame["puzzle"].map(tiers).fillna("unrated"))
    table = summary(tagged, by=("backend", "dataset", "tier"))
    if table.empty:
        return table
    rank = {tier: i for i, tier in enumerate(order)}
    table["_rank"] = table["tier"].map(lambda t: rank.get(t, len(rank)))
    table = table.sort_values(["backend", "dataset", "_rank"], kind="stable")
    return table.drop(columns="_rank").reset_index(drop=True)
