"""pandas tables built from result rows: one summary row per backend x dataset.

Timing columns summarise the solve phase (``solve_s``) of answered rows (SOLVED or UNSAT
and checked): a TIMEOUT is counted in its own column and never averaged in as if it were
an answer, and a WRONG row is never timed as a success. With ``--repeat K`` the K rows of
one (puzzle, backend) are first reduced to their median, so every puzzle weighs the same.
Counters a backend does not report stay empty (NaN), never 0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from backends.base import COUNTERS, Status
from harness.results import MEASURE_COLUMNS, ResultsError, require_columns, unescape_cell

ANSWERED = (Status.SOLVED.value, Status.UNSAT.value)
NUMERIC = (*MEASURE_COLUMNS, *COUNTERS)


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
        rows.append(row)
    return pd.DataFrame(rows)


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


def render(table: pd.DataFrame) -> str:
    """Plain text for a terminal: empty cells where a value is unknown."""
    if table.empty:
        return "(no rows)"
    return table.to_string(index=False, na_rep="", float_format=lambda v: f"{v:.4g}")


def native_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Medians of each backend's native statistics (columns it does not report are dropped)."""
    puzzles = per_puzzle(frame)
    native = [c for c in puzzles.columns if _is_native(puzzles, c)]
    if not native:
        return pd.DataFrame()
    answered = puzzles[puzzles["status"].isin(ANSWERED)]
    table = answered.groupby(list(grouping(frame)))[native].median()
    return table.dropna(axis=0, how="all").dropna(axis=1, how="all").reset_index()


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
