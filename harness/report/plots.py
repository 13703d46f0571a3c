"""Drawing: matplotlib figures (Agg, no pyplot state) from the data of :mod:`.data`.

Each line or point set gets a ``gid`` naming its plot and backend, which becomes the ``id``
of its SVG group, so a test (or a reader of the page source) can find one line per backend.
Many points are drawn as :mod:`.thin` says: a curve thinned to a few thousand points, a
scatter plot as a 2-D density whose bins are one raster image inside the SVG (the axes and
text stay vector).
"""

from __future__ import annotations

import io
import math
import re
import textwrap
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "harness", "font.size": 9})

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.colors import LogNorm  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402 (after choosing the Agg backend)
from matplotlib.ticker import StrMethodFormatter  # noqa: E402

from harness.report import thin  # noqa: E402
from harness.report.data import wins  # noqa: E402
from harness.tables.humanize import count  # noqa: E402

WIDTH, HEIGHT = 6.4, 4.2  # inches
#: Metadata left out of every file, so a figure holds no date, no tool URL, and repeats.
NO_METADATA = {
    "svg": {"Date": None, "Creator": None},
    "pdf": {"CreationDate": None, "Creator": None, "Producer": None},
    "png": {"Software": None},
}
#: Sixteen markers told apart at a glance, and sixteen colours (tab10 and six more that
#: differ from each of its ten): a backend's pair of them is its own up to sixteen backends.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "p", "h", "d", "+", "x", "|")
COLOURS = (
    *("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"),
    *("#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"),
    *("#000000", "#000075", "#469990", "#800000", "#f0c000", "#f032e6"),
)
#: The resolution of a plot's raster parts (density bins) and of a PNG.
DPI = 110
#: Hexagons across a density plot.
GRIDSIZE = 60


def colours(names: Sequence[str]) -> dict[str, dict[str, str]]:
    """One colour and marker per backend (``color`` and ``marker``, as matplotlib takes
    them), the same in every plot of a page."""
    return {
        name: {"color": COLOURS[i % len(COLOURS)], "marker": MARKERS[i % len(MARKERS)]}
        for i, name in enumerate(names)
    }


def _style(palette: dict[str, dict[str, str]], name: str) -> dict[str, str]:
    return palette.get(name) or {"color": "black", "marker": "o"}


def _axes(title: str, xlabel: str, ylabel: str, size: tuple[float, float] = (WIDTH, HEIGHT)):
    figure = Figure(figsize=size, layout="constrained")
    axes = figure.add_subplot()
    axes.set_title(title)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.grid(True, which="major", alpha=0.3)
    return figure, axes


def _legend(owner: Figure | Axes, **options) -> None:
    """A legend on ``owner`` (a figure or one axes) when it has a labelled artist: else
    matplotlib warns, and the reader would see an empty box."""
    every = owner.axes if isinstance(owner, Figure) else [owner]
    if any(axes.get_legend_handles_labels()[0] for axes in every):
        owner.legend(**options)


def _marks(points: int, index: int) -> tuple[int, int]:
    """Where a line of ``points`` points bears its markers: about ten along it, every line
    at least one, and the ``index``-th line's shifted so that lines of equal length do not
    put theirs in the same places."""
    step = max(1, points // 10)
    return (index * max(1, step // 5)) % step, step


def _gid(kind: str, name: str) -> str:
    return f"{kind}:{re.sub(r'[^A-Za-z0-9_.:=,()-]', '_', name)}"


def cactus(
    points: dict[str, np.ndarray],
    timeout: float,
    title: str,
    palette,
    clock: str = "solve time",
) -> Figure:
    """Puzzles solved (x) against the time each took (y, log ms), one line per backend, each
    thinned by :func:`harness.report.thin.curve`; ``clock`` names the time (our solve time,
    or the solvers' own clock)."""
    figure, axes = _axes(
        title, "puzzles answered correctly", f"{clock} per puzzle (ms, log)", (7.2, 4.2)
    )
    for i, (name, times) in enumerate(points.items()):
        keep = thin.curve(np.asarray(times, dtype=float), timeout)
        (line,) = axes.plot(
            keep + 1,
            np.asarray(times, dtype=float)[keep] * 1000,
            markevery=_marks(len(keep), i),
            markersize=4,
            linewidth=1.2,
            label=f"{name} ({count(len(times))})",
            **_style(palette, name),
        )
        line.set_gid(_gid("cactus", name))
    axes.axhline(timeout * 1000, color="black", linestyle="--", linewidth=1)
    axes.annotate(
        f"timeout {timeout:g} s",
        (0.01, timeout * 1000),
        xycoords=("axes fraction", "data"),
        va="bottom",
        fontsize=8,
    )
    axes.set_yscale("log")
    axes.xaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    _legend(
        axes,
        fontsize=8,
        loc="upper left",
        bbox_to_anchor=(1.01, 1),
        title="backend (correct)",
        title_fontsize=8,
    )
    return figure


#: A scatter plot's axes reach the timeout only if the slowest point is within this factor
#: of it (or some puzzle is pinned at it).
SCATTER_TIMEOUT_NEAR = 100


def scatter(pairs: pd.DataFrame, a: str, b: str, timeout: float, title: str) -> Figure:
    """Per puzzle, a's time (x) against b's (y), log-log, with the diagonal; unanswered
    puzzles at the timeout (hollow), WRONG answers as red crosses."""
    size = (5.6, 5.2) if thin.dense(len(pairs)) else (4.8, 5.0)  # room for the colour bar
    figure, axes = _axes(title, f"{a}: solve ms (log)", f"{b}: solve ms (log)", size)
    x, y = pairs["x"] * 1000, pairs["y"] * 1000
    limit = timeout * 1000
    pinned = pairs["pinned_x"] | pairs["pinned_y"]
    if thin.dense(len(pairs)):
        _density(figure, axes, x, y, "scatter:density")
        _wrong(axes, x, y, pairs["wrong"], thin.MARKED)
    else:
        _points(axes, x, y, pinned, pairs["wrong"])
    top = max(x.max(), y.max()) if len(pairs) else limit
    x, y = x[x > 0], y[y > 0]  # a log axis has no room for 0
    # the timeout's lines only where points are pinned at it or it is near the slowest one:
    # else the axes would run orders of magnitude past every point, squeezed in a corner
    near = bool(pinned.any()) or top * SCATTER_TIMEOUT_NEAR >= limit
    high = limit * 1.5 if near else top * 2
    low = min(x.min(), y.min(), high) / 2 if len(x) and len(y) else limit / 1000
    axes.plot([low, high], [low, high], color="grey", linewidth=1, label="same time")
    if near:
        for set_limit in (axes.axvline, axes.axhline):
            set_limit(limit, color="black", linestyle="--", linewidth=0.8)
        axes.annotate(f"timeout {timeout:g} s", (low, limit), va="bottom", fontsize=8)
    else:
        text = f"timeout {timeout:g} s: off the chart, none reached it"
        axes.annotate(text, (0.98, 0.02), xycoords="axes fraction", ha="right", fontsize=8)
    a_wins, b_wins = wins(pairs)
    said = f"{a} faster on {count(a_wins)} puzzles, {b} on {count(b_wins)}"
    axes.set_title(f"{title}\n{textwrap.fill(said, 48)}")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlim(low, high)
    axes.set_ylim(low, high)
    axes.set_aspect("equal")
    _legend(figure, fontsize=8, loc="outside lower center", ncols=2)
    return figure


def _points(axes, x: pd.Series, y: pd.Series, pinned: pd.Series, wrong: pd.Series) -> None:
    """Each puzzle a point: answered by both, unanswered by one (hollow), WRONG (crosses)."""
    plain = ~pinned & ~wrong
    axes.scatter(x[plain], y[plain], s=14, alpha=0.7, label="both answered", gid="scatter:points")
    if pinned.any():
        axes.scatter(
            x[pinned & ~wrong],
            y[pinned & ~wrong],
            s=30,
            facecolors="none",
            edgecolors="tab:orange",
            label="unanswered: at the timeout",
            gid="scatter:pinned",
        )
    _wrong(axes, x, y, wrong)


def _wrong(axes, x: pd.Series, y: pd.Series, wrong: pd.Series, most: int | None = None) -> None:
    """WRONG answers as red crosses (the first ``most`` of them)."""
    if wrong.any():
        xs, ys = x[wrong][:most], y[wrong][:most]
        axes.scatter(xs, ys, s=40, marker="x", color="red", label="WRONG", gid="scatter:wrong")


def _density(figure: Figure, axes, x, y, gid: str, colorbar: bool = True):
    """The points of ``x`` and ``y`` (both above 0: log axes) as hexagonal bins coloured by
    how many fall in each (log scale), drawn as one raster image."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    positive = (x > 0) & (y > 0)
    bins = axes.hexbin(
        x[positive],
        y[positive],
        gridsize=GRIDSIZE,
        xscale="log",
        yscale="log",
        norm=LogNorm(),
        mincnt=1,
        cmap="viridis",
        linewidths=0,
        rasterized=True,
        gid=gid,
    )
    if colorbar:
        figure.colorbar(bins, ax=axes, label="puzzles in a bin (log)", shrink=0.8)
    return bins


def effort(effort: dict[str, pd.DataFrame], title: str, palette) -> Figure:
    """Two panels: nodes against solve time per backend (log-log, so microseconds per node
    shows as the distance from a diagonal), and the distribution of nodes per puzzle; one
    legend below both. With many points the left panel becomes :func:`effort_density`."""
    figure = Figure(figsize=(WIDTH * 1.6, HEIGHT + 0.3 * math.ceil(len(effort) / 4)))
    figure.set_layout_engine("constrained")
    left, right = figure.subplots(1, 2)
    left.set_title(f"{title}: effort against time")
    left.set_xlabel("nodes (log)")
    left.set_ylabel("solve ms (log)")
    for name, rows in effort.items():
        left.scatter(
            rows["nodes"],
            rows["solve_s"] * 1000,
            s=10,
            alpha=0.6,
            label=name,
            gid=_gid("effort", name),
            **_style(palette, name),
        )
    left.set_xscale("log")
    left.set_yscale("log")
    left.grid(True, alpha=0.3)
    nodes_curves(right, effort, title, palette, labels=False)
    _legend(figure, fontsize=8, loc="outside lower center", ncols=min(4, len(effort)) or 1)
    return figure


def nodes_curves(axes, effort: dict[str, pd.DataFrame], title: str, palette, labels=True):
    """Per backend, the share of its solved puzzles (y) that took at most so many nodes
    (x, log), each curve thinned by :func:`harness.report.thin.curve`."""
    axes.set_title(f"{title}: nodes per puzzle")
    axes.set_xlabel("nodes (log)")
    axes.set_ylabel("share of the puzzles a backend solved")
    for i, (name, rows) in enumerate(effort.items()):
        nodes = np.sort(rows["nodes"].to_numpy(dtype=float))
        # at a count many puzzles share, the share is that of the last of them
        keep = np.unique(np.searchsorted(nodes, nodes[thin.curve(nodes)], side="right") - 1)
        (line,) = axes.step(
            nodes[keep],
            (keep + 1) / len(nodes),
            where="post",
            label=name if labels else "_nolegend_",  # else the figure's legend has it twice
            markevery=_marks(len(keep), i),
            markersize=4,
            **_style(palette, name),
        )
        line.set_gid(_gid("nodes", name))
    axes.set_xscale("log")
    axes.set_ylim(0, 1.02)
    axes.grid(True, alpha=0.3)
    if labels:
        _legend(axes, fontsize=8, loc="lower right")


def nodes_figure(effort: dict[str, pd.DataFrame], title: str, palette) -> Figure:
    """:func:`nodes_curves` alone, with its legend."""
    figure, axes = _axes(f"{title}: nodes per puzzle", "", "", (6.4, 4.2))
    nodes_curves(axes, effort, title, palette)
    return figure


def effort_density(effort: dict[str, pd.DataFrame], title: str, palette) -> Figure:
    """Nodes (x) against solve ms (y), log-log, one density panel per backend."""
    panels = {n: (rows["nodes"], rows["solve_s"] * 1000) for n, rows in effort.items()}
    return density_grid(
        panels, f"{title}: effort against time", ("nodes (log)", "solve ms (log)"), palette
    )


def density_grid(
    panels: dict[str, tuple], title: str, labels: tuple[str, str], palette, diagonal=False
) -> Figure:
    """One :func:`_density` panel per backend (its name in its colour), shared log axes and
    one colour scale, four panels a row."""
    columns = min(4, len(panels))
    rows = math.ceil(len(panels) / columns)
    across, down = (2.9, 2.5) if columns > 2 else (4.0, 3.4)  # a panel's inches
    width, height = across * columns + 1.6, down * rows + 1.0
    figure = Figure(figsize=(width, height))  # fixed margins: a layout engine redraws often
    figure.subplots_adjust(
        left=0.9 / width,
        right=1 - 1.3 / width,
        bottom=0.7 / height,
        top=1 - 0.6 / height,
        wspace=0.12,
        hspace=0.35,
    )
    grid = figure.subplots(rows, columns, sharex=True, sharey=True, squeeze=False)
    figure.suptitle(title)
    figure.supxlabel(labels[0])
    figure.supylabel(labels[1])
    drawn = []
    for axes, (name, (x, y)) in zip(grid.flat, panels.items(), strict=False):
        drawn.append(_density(figure, axes, x, y, _gid("bins", name), colorbar=False))
        axes.set_gid(_gid("density", name))  # the bins are an image: the panel bears the name
        axes.set_title(f"{name} ({count(len(x))})", color=_style(palette, name)["color"])
        axes.grid(True, alpha=0.3)
        if diagonal:
            axes.axline((1, 1), (10, 10), color="grey", linewidth=0.8)
    for axes in list(grid.flat)[len(panels) :]:
        axes.set_visible(False)
    top = max((int(b.get_array().max()) for b in drawn if b.get_array().size), default=1)
    for bins in drawn:
        bins.set_norm(LogNorm(1, max(top, 2)))
    if drawn:
        bar = figure.add_axes((1 - 1.0 / width, 0.7 / height, 0.15 / width, 0.6))
        figure.colorbar(drawn[0], cax=bar, label="puzzles in a bin (log)")
    return figure


def old_new(pairs: pd.DataFrame, title: str, palette) -> Figure:
    """Per puzzle and backend, the baseline's time (x) against the new run's (y), on the
    clock that judged the backend (:attr:`harness.gate.GateResult.times`); with many
    points, one density panel per backend."""
    if thin.dense(len(pairs)):
        panels = {
            str(n): (rows["old"] * 1000, rows["new"] * 1000)
            for n, rows in pairs.groupby("backend", sort=False, observed=True)
        }
        labels = ("baseline: ms (log)", "new: ms (log)")
        return density_grid(panels, title, labels, palette, diagonal=True)
    figure, axes = _axes(title, "baseline: ms (log)", "new: ms (log)", (6.0, 4.6))
    for name, rows in pairs.groupby("backend", sort=False, observed=True):
        style = {"color": _style(palette, str(name))["color"]}
        axes.scatter(
            rows["old"] * 1000,
            rows["new"] * 1000,
            s=12,
            alpha=0.7,
            label=name,
            gid=_gid("oldnew", str(name)),
            **style,
        )
    if len(pairs):
        low = min(pairs["old"].min(), pairs["new"].min()) * 1000 / 2
        high = max(pairs["old"].max(), pairs["new"].max()) * 1000 * 2
        axes.plot([low, high], [low, high], color="grey", linewidth=1, label="same time")
        axes.set_xlim(low, high)
        axes.set_ylim(low, high)
    else:
        text = "no puzzle answered correctly in both runs"
        axes.annotate(text, (0.5, 0.5), xycoords="axes fraction", ha="center")
    axes.set_xscale("log")
    axes.set_yscale("log")
    _legend(figure, fontsize=8, loc="outside right upper")
    return figure


def svg(figure: Figure, prefix: str) -> str:
    """The figure as an inline ``<svg>`` element: no XML prolog, DOCTYPE, metadata or
    namespace URL, its internal ids prefixed so several figures share one page, and path
    coordinates to a tenth of a point."""
    buffer = io.StringIO()
    _major_ticks_only(figure)
    figure.savefig(buffer, format="svg", metadata=NO_METADATA["svg"], dpi=DPI)
    text = buffer.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)
    text = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", text)
    text = re.sub(r' d="[^"]*"', _short, text)
    text = re.sub(r'id="([mp][0-9a-f]{8,})"', rf'id="{prefix}-\1"', text)
    return re.sub(r'(href="#|url\(#)([mp][0-9a-f]{8,})', rf"\1{prefix}-\2", text)


def save(figure: Figure, path: Path) -> None:
    """Write ``figure`` to ``path`` in the format its suffix names (svg, png or pdf)."""
    kind = path.suffix.lower().lstrip(".")
    _major_ticks_only(figure)
    figure.savefig(path, format=kind, metadata=NO_METADATA.get(kind), dpi=150)


def _major_ticks_only(figure: Figure) -> None:
    """No minor ticks: a log axis has eight a decade, each drawn and laid out one by one
    (seconds for a page of panels), and the grid marks the decades only."""
    for axes in figure.axes:
        axes.minorticks_off()


#: A path's coordinates past one decimal (a tenth of a point is finer than a screen shows).
_DIGITS = re.compile(r"(\d\.\d)\d+")


def _short(match: re.Match) -> str:
    return _DIGITS.sub(r"\1", match.group(0))
