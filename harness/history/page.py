"""``harness history report``: the trends as one self-contained HTML page, in the report's
style (:mod:`harness.report.html`, :mod:`harness.report.plots`).

The page holds a table of every step, newest first, then for each machine class one trend
plot per backend and dataset: commits along the x axis (oldest left), the median time with
its interquartile range as a band, each time step marked at its commit (red
slower, green faster), and below it the total node count, each counter step marked. With
hundreds of commits a plot stays small: one line and one band, markers only up to
:data:`MARKERS_UP_TO` commits, at most :data:`TICKS` commits named on the axis.
"""

from __future__ import annotations

from html import escape
from typing import Any

from harness.gate import clocks
from harness.history.render import blocks, newest_first
from harness.history.trends import Step, Trends

#: Up to this many commits, each point has a marker.
MARKERS_UP_TO = 60
#: At most this many commits are named along the x axis.
TICKS = 24
SLOWER, FASTER, COUNTER = "#d62728", "#2ca02c", "#9467bd"


def trend_figure(title: str, rows: list[dict[str, Any]], steps: list[Step]):
    """The trend of one backend on one dataset: time above, nodes below (see the module)."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator

    x = list(range(len(rows)))
    figure = Figure(figsize=(9.6, 4.6), layout="constrained")
    top, bottom = figure.subplots(2, 1, sharex=True, height_ratios=(2.2, 1))
    top.set_title(title, fontsize=10)
    median = [_or_nan(r["median_ms"]) for r in rows]
    marker = "o" if len(rows) <= MARKERS_UP_TO else None
    top.fill_between(
        x,
        [_or_nan(r["q1_ms"]) for r in rows],
        [_or_nan(r["q3_ms"]) for r in rows],
        color="#1f77b4",
        alpha=0.18,
        linewidth=0,
        label="interquartile range over the puzzles",
    )
    (line,) = top.plot(x, median, color="#1f77b4", marker=marker, markersize=3.5, label="median")
    line.set_gid("trend:median")
    top.set_ylim(bottom=0)
    top.set_ylabel("ms per puzzle")
    top.grid(True, alpha=0.3)
    nodes = [_or_nan(r["nodes"]) for r in rows]
    (counted,) = bottom.plot(
        x, nodes, color="#444444", marker=marker, markersize=3, drawstyle="steps-mid"
    )
    counted.set_gid("trend:nodes")
    bottom.set_ylabel("nodes (total)")
    bottom.grid(True, alpha=0.3)
    bottom.yaxis.set_major_locator(MaxNLocator(4))
    at = {r["sha"]: i for i, r in enumerate(rows)}
    marks: dict[tuple[int, bool], list[Step]] = {}
    for step in steps:
        if step.commit.sha in at:
            marks.setdefault((at[step.commit.sha], step.kind == "time"), []).append(step)
    for (where, timed), found in marks.items():
        axes, colour = bottom, COUNTER
        if timed:
            axes, colour = top, SLOWER if (found[0].ratio or 1) > 1 else FASTER
        axes.axvline(where - 0.5, color=colour, linestyle="--", linewidth=1.2, gid=_gid(found[0]))
        axes.annotate(
            f"{found[0].commit.sha[:7]} " + ", ".join(s.short() for s in found),
            (where - 0.5, 0.95),
            xycoords=("data", "axes fraction"),
            xytext=(3, 0),
            textcoords="offset points",
            va="top",
            ha="left" if where < len(rows) * 0.7 else "right",
            fontsize=8,
            color=colour,
            bbox={"facecolor": "white", "alpha": 0.85, "edgecolor": "none", "pad": 1},
        )
    names = [r["commit"][:7] for r in rows]
    shown = (
        x
        if len(x) <= TICKS
        else sorted({round(i * (len(x) - 1) / (TICKS - 1)) for i in range(TICKS)})
    )
    bottom.xaxis.set_major_locator(FixedLocator(shown))
    bottom.xaxis.set_major_formatter(
        FuncFormatter(lambda v, _: names[int(v)] if 0 <= v < len(names) and v == int(v) else "")
    )
    for label in bottom.get_xticklabels():
        label.set_rotation(60)
        label.set_fontsize(7)
        label.set_family("monospace")
    bottom.set_xlabel(f"commit, oldest first ({len(rows)})")
    top.legend(fontsize=7, loc="lower left")
    return figure


def _gid(step: Step) -> str:
    return f"step:{step.kind}:{step.commit.sha[:12]}"


def _or_nan(value: Any) -> float:
    return float("nan") if value is None else float(value)


def steps_table(trends: Trends) -> str:
    """Every step, newest first."""
    head = ("commit", "date", "subject", "backend", "dataset", "change", "puzzles", "measured")
    rows = []
    for step in newest_first(trends):
        kind = "bad" if step.kind == "time" and (step.ratio or 1) > 1 else ""
        cells = [
            f"<code>{escape(step.commit.short)}</code>",
            escape((step.commit.date or "")[:10]),
            escape(step.commit.subject or ""),
            escape(step.backend),
            escape(step.dataset),
            f'<span class="{kind}">{escape(step.said())}</span>',
            str(step.pairs),
            "in different runs" if step.apart else "in one run",
        ]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    if not rows:
        return '<p class="note">No step: no significant time change, no counter change.</p>'
    header = "".join(f"<th>{h}</th>" for h in head)
    body = "".join(rows)
    return f'<table class="sortable"><thead><tr>{header}</tr></thead><tbody>{body}</tbody></table>'


def build(trends: Trends, time_ratio: float, alpha: float) -> str:
    """The whole page."""
    from harness.report import html, plots

    sections = [
        '<section id="steps"><h2>Steps, newest first</h2>',
        f'<p class="note">A time step: between a commit and the one before it, on the puzzles '
        f"both answered, the median per-puzzle ratio beyond x{time_ratio:g} (or below its "
        f"inverse), a one-sided Wilcoxon signed-rank p below {alpha:g} and a 95% confidence "
        "interval that excludes 1. A counter step: any puzzle's count of a deterministic "
        "backend differs. Times are the clock that judges each backend (CPU time for "
        "solvers in the worker's process).</p>",
        steps_table(trends),
        "</section>",
    ]
    toc = [("steps", "Steps")]
    by_machine: dict[str, list[tuple[str, list[dict[str, Any]]]]] = {}
    for title, rows in blocks(trends):
        by_machine.setdefault(rows[0]["machine"], []).append((title, rows))
    index = 0
    for number, (machine, groups) in enumerate(by_machine.items()):
        anchor = f"machine-{number}"
        sections.append(f'<section id="{anchor}" class="machine"><h2>{escape(machine)}</h2>')
        toc.append((anchor, machine))
        for _, rows in groups:
            backend, dataset = rows[0]["backend"], rows[0]["dataset"]
            clock = clocks.NAMES.get(trends.clocks.get((machine, backend), ""), "time")
            steps = [
                s
                for s in trends.steps
                if (s.machine, s.backend, s.dataset) == (machine, backend, dataset)
            ]
            figure = trend_figure(f"{backend} on {dataset}: {clock}", rows, steps)
            drawn = plots.svg(figure, f"t{index}")
            sections.append(f'<figure class="trend" id="trend-{index}">{drawn}</figure>')
            index += 1
        sections.append("</section>")
    if trends.notes:
        items = "".join(f"<li>{escape(n)}</li>" for n in trends.notes)
        sections.append(
            f'<section id="notes"><h2>Notes</h2><ul class="note">{items}</ul></section>'
        )
        toc.append(("notes", "Notes"))
    return html.page(sections, "sudoku-harness: trends by commit", toc)
