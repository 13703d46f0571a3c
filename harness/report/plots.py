"""Drawing: matplotlib figures (Agg, no pyplot state) from the data of :mod:`.data`.

Each line or point set gets a ``gid`` naming its plot and backend, which becomes the ``id``
of its SVG group, so a test (or a reader of the page source) can find one line per backend.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "harness", "font.size": 9})

import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402 (after choosing the Agg backend)

from harness.report.data import wins  # noqa: E402

WIDTH, HEIGHT = 6.4, 4.2  # inches
#: Metadata left out of every file, so a figure holds no date, no tool URL, and repeats.
NO_METADATA = {
    "svg": {"Date": None, "Creator": None},
    "pdf": {"CreationDate": None, "Creator": None, "Producer": None},
    "png": {"Software": None},
}
MARKERS = "os^Dv<>pPX*h"


def colours(names: Sequence[str]) -> dict[str, tuple]:
    """One colour and marker style per backend, the same in every plot of a page."""
    cmap = matplotlib.colormaps["tab10" if len(names) <= 10 else "tab20"]
    return {name: cmap(i % cmap.N) for i, name in enumerate(names)}


def _axes(title: str, xlabel: str, ylabel: str, size: tuple[float, float] = (WIDTH, HEIGHT)):
    figure = Figure(figsize=size, layout="constrained")
    axes = figure.add_subplot()
    axes.set_title(title)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.grid(True, which="major", alpha=0.3)
    return figure, axes


def _gid(kind: str, name: str) -> str:
    return f"{kind}:{re.sub(r'[^A-Za-z0-9_.:=,()-]', '_', name)}"


def cactus(
    points: dict[str, list[float]],
    timeout: float,
    title: str,
    palette: dict[str, tuple],
    clock: str = "solve time",
) -> Figure:
    """Puzzles solved (x) against the time each took (y, log ms), one line per backend;
    ``clock`` names the time (our solve time, or the solvers' own clock)."""
    figure, axes = _axes(
        title, "puzzles answered correctly", f"{clock} per puzzle (ms, log)", (7.2, 4.2)
    )
    for i, (name, times) in enumerate(points.items()):
        xs = range(1, len(times) + 1)
        (line,) = axes.plot(
            xs,
            [t * 1000 for t in times],
            marker=MARKERS[i % len(MARKERS)],
            markersize=3,
            linewidth=1.2,
            color=palette.get(name),
            label=f"{name} ({len(times)})",
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
    axes.legend(
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
    figure, axes = _axes(title, f"{a}: solve ms (log)", f"{b}: solve ms (log)", (4.8, 5.0))
    x, y = pairs["x"] * 1000, pairs["y"] * 1000
    limit = timeout * 1000
    pinned = pairs["pinned_x"] | pairs["pinned_y"]
    plain = ~pinned & ~pairs["wrong"]
    axes.scatter(x[plain], y[plain], s=14, alpha=0.7, label="both answered", gid="scatter:points")
    if pinned.any():
        axes.scatter(
            x[pinned & ~pairs["wrong"]],
            y[pinned & ~pairs["wrong"]],
            s=30,
            facecolors="none",
            edgecolors="tab:orange",
            label="unanswered: at the timeout",
            gid="scatter:pinned",
        )
    if pairs["wrong"].any():
        axes.scatter(
            x[pairs["wrong"]],
            y[pairs["wrong"]],
            s=40,
            marker="x",
            color="red",
            label="WRONG",
            gid="scatter:wrong",
        )
    top = max(x.max(), y.max()) if len(pairs) else limit
    # the timeout's lines only where points are pinned at it or it is near the slowest one:
    # else the axes would run orders of magnitude past every point, squeezed in a corner
    near = bool(pinned.any()) or top * SCATTER_TIMEOUT_NEAR >= limit
    high = limit * 1.5 if near else top * 2
    low = min(x.min(), y.min(), high) / 2 if len(pairs) else limit / 1000
    axes.plot([low, high], [low, high], color="grey", linewidth=1, label="same time")
    if near:
        for set_limit in (axes.axvline, axes.axhline):
            set_limit(limit, color="black", linestyle="--", linewidth=0.8)
        axes.annotate(f"timeout {timeout:g} s", (low, limit), va="bottom", fontsize=8)
    else:
        text = f"timeout {timeout:g} s: off the chart, none reached it"
        axes.annotate(text, (0.98, 0.02), xycoords="axes fraction", ha="right", fontsize=8)
    a_wins, b_wins = wins(pairs)
    axes.set_title(f"{title}\n{a} faster on {a_wins} puzzles, {b} on {b_wins}")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlim(low, high)
    axes.set_ylim(low, high)
    axes.set_aspect("equal")
    figure.legend(fontsize=8, loc="outside lower center", ncols=2)
    return figure


def effort(effort: dict[str, pd.DataFrame], title: str, palette: dict[str, tuple]) -> Figure:
    """Two panels: nodes against solve time per backend (log-log, so microseconds per node
    shows as the distance from a diagonal), and the distribution of nodes per puzzle."""
    figure = Figure(figsize=(WIDTH * 1.6, HEIGHT), layout="constrained")
    left, right = figure.subplots(1, 2)
    left.set_title(f"{title}: effort against time")
    left.set_xlabel("nodes (log)")
    left.set_ylabel("solve ms (log)")
    right.set_title(f"{title}: nodes per puzzle")
    right.set_xlabel("nodes (log)")
    right.set_ylabel("share of the puzzles a backend solved")
    for i, (name, rows) in enumerate(effort.items()):
        colour = palette.get(name)
        left.scatter(
            rows["nodes"],
            rows["solve_s"] * 1000,
            s=10,
            alpha=0.6,
            color=colour,
            marker=MARKERS[i % len(MARKERS)],
            label=name,
            gid=_gid("effort", name),
        )
        nodes = sorted(rows["nodes"])
        shares = [(k + 1) / len(nodes) for k in range(len(nodes))]
        (line,) = right.step(nodes, shares, where="post", color=colour, label=name)
        line.set_gid(_gid("nodes", name))
    for axes in (left, right):
        axes.set_xscale("log")
        axes.grid(True, alpha=0.3)
    left.set_yscale("log")
    right.legend(fontsize=8, loc="lower right")
    return figure


def old_new(pairs: pd.DataFrame, title: str, palette: dict[str, tuple]) -> Figure:
    """Per puzzle and backend, the baseline's time (x) against the new run's (y)."""
    figure, axes = _axes(title, "baseline: solve ms (log)", "new: solve ms (log)", (6.0, 4.6))
    for name, rows in pairs.groupby("backend", sort=False):
        axes.scatter(
            rows["old"] * 1000,
            rows["new"] * 1000,
            s=12,
            alpha=0.7,
            color=palette.get(name),
            label=name,
            gid=_gid("oldnew", name),
        )
    if len(pairs):
        low = min(pairs["old"].min(), pairs["new"].min()) * 1000 / 2
        high = max(pairs["old"].max(), pairs["new"].max()) * 1000 * 2
        axes.plot([low, high], [low, high], color="grey", linewidth=1, label="same time")
        axes.set_xlim(low, high)
        axes.set_ylim(low, high)
    axes.set_xscale("log")
    axes.set_yscale("log")
    figure.legend(fontsize=8, loc="outside right upper")
    return figure


def svg(figure: Figure, prefix: str) -> str:
    """The figure as an inline ``<svg>`` element: no XML prolog, DOCTYPE, metadata or
    namespace URL, and its internal ids prefixed so several figures share one page."""
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata=NO_METADATA["svg"])
    text = buffer.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)
    text = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", text)
    text = re.sub(r'id="([mp][0-9a-f]{8,})"', rf'id="{prefix}-\1"', text)
    return re.sub(r'(href="#|url\(#)([mp][0-9a-f]{8,})', rf"\1{prefix}-\2", text)


def save(figure: Figure, path: Path) -> None:
    """Write ``figure`` to ``path`` in the format its suffix names (svg, png or pdf)."""
    kind = path.suffix.lower().lstrip(".")
    figure.savefig(path, format=kind, metadata=NO_METADATA.get(kind), dpi=150)
