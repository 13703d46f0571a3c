"""A history as text, Markdown, CSV or JSON, in the forms of ``harness table``.

Text and Markdown give one block per machine class, backend and dataset: a row per commit
(short sha, subject, median and interquartile range of the judging clock, total nodes,
puzzles answered, the steps at that commit), then every step, newest first, with its date,
subject, ratio and test. CSV is one flat row per commit; JSON holds ``rows``, ``steps``
(each with its full ``commit`` sha, ``backend``, ``dataset``, ``kind`` and ``ratio``) and
``notes``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from harness.gate import clocks
from harness.history.trends import Step, Trends
from harness.tables import humanize, render

FORMATS = ("text", "markdown", "csv", "json")
#: The longest subject a text table shows.
SUBJECT = 22
#: The longest step summary a text table shows.
MARK = 22


def blocks(trends: Trends) -> list[tuple[str, list[dict[str, Any]]]]:
    """(title, rows) for each machine class, backend and dataset, in order."""
    found: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in trends.rows:
        found.setdefault((row["machine"], row["backend"], row["dataset"]), []).append(row)
    titled = []
    for (machine, backend, dataset), rows in found.items():
        clock = clocks.NAMES.get(trends.clocks.get((machine, backend), ""), "time")
        titled.append((f"{backend} on {dataset} ({clock}; {machine})", rows))
    return titled


def _cut(text: str, most: int) -> str:
    return text if len(text) <= most else text[: most - 1] + "\N{HORIZONTAL ELLIPSIS}"


def _iqr(row: dict[str, Any]) -> str:
    if row["q1_ms"] is None:
        return ""
    return f"{humanize.significant(row['q1_ms'])}-{humanize.significant(row['q3_ms'])}"


def _mark(steps: Sequence[Step]) -> str:
    return "; ".join(f"{s.short()}{'*' if s.apart else ''}" for s in steps)


def _shown(rows: list[dict[str, Any]], trends: Trends) -> list[dict[str, Any]]:
    """The rows of one block as a table prints them."""
    at: dict[tuple[str, str, str, str], list[Step]] = {}
    for step in trends.steps:
        at.setdefault((step.machine, step.backend, step.dataset, step.commit.sha), []).append(step)
    shown = []
    for row in rows:
        steps = at.get((row["machine"], row["backend"], row["dataset"], row["sha"]), [])
        shown.append(
            {
                "commit": row["commit"],
                "subject": _cut(row["subject"], SUBJECT),
                "median_ms": row["median_ms"],
                "IQR ms": _iqr(row),
                "nodes": row["nodes"],
                "solved": row["solved"],
                "puzzles": row["puzzles"],
                "step": _cut(_mark(steps), MARK),
            }
        )
    return shown


def step_lines(trends: Trends) -> list[str]:
    """Every step, newest first, under its commit (short sha, date, subject): where, what."""
    lines: list[str] = []
    last = None
    for step in newest_first(trends):
        if step.commit.sha != last:
            commit = step.commit
            lines.append(
                _cut(f"{commit.short} {(commit.date or '')[:10]} {commit.subject or ''}", 96)
            )
            last = commit.sha
        where = f"{step.backend} on {step.dataset}"
        lines.append(_cut(f"    {where}: {step.said()}, {step.pairs} puzzles", 100))
    return lines


def newest_first(trends: Trends) -> list[Step]:
    """The steps, the newest commit first (by its place in its machine class's order)."""
    return list(reversed(trends.steps))


def text(trends: Trends, markdown: bool = False) -> str:
    """The history as terminal text, or Markdown."""
    out = []
    for title, rows in blocks(trends):
        table = _shown(rows, trends)
        if markdown:
            out.append(f"### {title}\n\n{render.markdown(table)}")
        else:
            out.append(f"{title}\n{render.render(table)}")
    if not out:
        out.append("no commit measured: no run here ties a backend to a commit")
    heading = f"steps ({len(trends.steps)}), newest first:"
    listed = step_lines(trends) or ["    none"]
    if markdown:
        out.append(f"### {heading}\n\n```\n" + "\n".join(listed) + "\n```")
    else:
        out.append(heading + "\n" + "\n".join(listed))
    notes = list(trends.notes)
    if any(s.apart for s in trends.steps):
        notes.append("* (runs apart): the two commits were measured in different runs, so load")
        notes[-1] += " was not shared; their times are calibrated"
    if notes:
        out.append("\n".join(f"note: {n}" for n in notes))
    return "\n\n".join(out)


def flat(trends: Trends) -> list[dict[str, Any]]:
    """The per-commit rows as CSV and JSON hold them (full shas)."""
    return [
        {
            "machine": r["machine"],
            "backend": r["backend"],
            "dataset": r["dataset"],
            "commit": r["sha"],
            "date": r["date"],
            "subject": r["subject"],
            "clock": r["clock"],
            "median_ms": r["median_ms"],
            "q1_ms": r["q1_ms"],
            "q3_ms": r["q3_ms"],
            "nodes": r["nodes"],
            "solved": r["solved"],
            "puzzles": r["puzzles"],
            "runs": r["runs"],
            "step": r["step"],
        }
        for r in trends.rows
    ]


def as_json(trends: Trends) -> str:
    document = {
        "rows": render.records(flat(trends)),
        "steps": [s.record() for s in newest_first(trends)],
        "notes": trends.notes,
    }
    return json.dumps(document, indent=1)


def formatted(trends: Trends, fmt: str) -> str:
    """The history in format ``fmt`` (one of :data:`FORMATS`)."""
    if fmt == "json":
        return as_json(trends)
    if fmt == "csv":
        return render.to_csv(flat(trends))
    return text(trends, markdown=fmt == "markdown")
