"""The report page: one self-contained HTML file (inline SVG, inline style, a small inline
script that sorts tables), with no network reference, so it opens from ``file://`` offline."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

import pandas as pd

from harness.report import data, plots, thin
from harness.tables import humanize
from harness.tables.render import cell

STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:1260px;padding:0 1em;
color:#222}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.6em 0;font-size:13px}
th,td{border:1px solid #ddd;padding:3px 8px}td.n{text-align:right;font-variant-numeric:tabular-nums}
th{background:#f3f3f3}table.sortable th{cursor:pointer}table.sortable th:hover{background:#e4e4e4}
tr.vbs td{font-style:italic;background:#fafae8}
figure{margin:0}.plots{display:flex;flex-wrap:wrap;gap:1em}.plots svg{max-width:100%;height:auto}
.note{color:#555;font-size:.92em}.bad{color:#b00;font-weight:bold}
details{margin:.4em 0}code{background:#f4f4f4;padding:0 .2em}
"""

#: Sorts a table by the clicked header (numbers as numbers), and records any script error
#: in #js-errors so a headless browser's DOM shows it.
SCRIPT = """
window.addEventListener('error',function(e){var p=document.getElementById('js-errors');
if(p){p.textContent+=String(e.message)+'\\n';}});
function cellValue(td){var t=td.getAttribute('data-v');if(t===null){t=td.textContent;}
var n=parseFloat(t.replace(/,/g,''));return isNaN(n)?t.toLowerCase():n;}
function sortBy(th){var table=th.closest('table');var body=table.tBodies[0];
var i=Array.prototype.indexOf.call(th.parentNode.children,th);
var up=th.getAttribute('data-dir')!=='up';th.setAttribute('data-dir',up?'up':'down');
var rows=Array.prototype.slice.call(body.rows);var fixed=rows.filter(function(r){
return r.classList.contains('vbs');});rows=rows.filter(function(r){
return !r.classList.contains('vbs');});
rows.sort(function(a,b){var x=cellValue(a.cells[i]),y=cellValue(b.cells[i]);
if(x===''){return 1;}if(y===''){return -1;}
return (x<y?-1:x>y?1:0)*(up?1:-1);});
rows.concat(fixed).forEach(function(r){body.appendChild(r);});}
document.addEventListener('DOMContentLoaded',function(){
document.querySelectorAll('table.sortable th').forEach(function(th){
th.addEventListener('click',function(){sortBy(th);});});
document.body.setAttribute('data-script','ran');});
"""

HEADERS = {
    "backend": "backend",
    "solved": "correct",
    "timeouts": "timeouts",
    "errors": "errors",
    "wrong": "wrong",
    "median_ms": "median ms",
    "own_ms": "own clock ms",
    "mean_ms": "mean ms",
    "max_ms": "max ms",
    "cpu_median_ms": "CPU median ms",
    "wall_cpu": "wall/CPU",
    "spread_pct": "repeat IQR %",
    "min_ms": "fastest repeat ms",
    "par2_ms": "PAR-2 ms",
    "nodes_median": "nodes (median)",
    "guesses_median": "guesses (median)",
    "fastest_alone": "fastest alone",
}


def table(frame: pd.DataFrame, headers: dict[str, str], sortable: bool = True) -> str:
    """An HTML table of ``frame``'s columns named in ``headers``, numbers right-aligned."""
    columns = [c for c in headers if c in frame.columns]
    head = "".join(f"<th>{escape(headers[c])}</th>" for c in columns)
    rows = []
    for record in frame.to_dict("records"):
        cls = ' class="vbs"' if record.get("backend") == data.VBS else ""
        cells = []
        for c in columns:
            value = record[c]
            numeric = not isinstance(value, str)
            raw = f' data-v="{value}"' if numeric and cell(c, value) else ""
            klass = ' class="n"' if numeric else ""
            if value in ("WRONG", "REGRESSION", "INCONCLUSIVE"):
                klass = ' class="bad"'
            cells.append(f"<td{klass}{raw}>{escape(cell(c, value))}</td>")
        rows.append(f"<tr{cls}>{''.join(cells)}</tr>")
    kind = ' class="sortable"' if sortable else ""
    return f"<table{kind}><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def provenance(metas: Sequence[tuple[str, dict[str, Any] | None]], timeout_note: str) -> str:
    """What each run was: command, versions, machine, git SHA, limits and dates."""
    parts = ['<section id="provenance"><h2>Provenance</h2>']
    if len(metas) > 1:
        parts.append(f"<p><b>{len(metas)} runs on this page</b>; each is described below.</p>")
    if timeout_note:
        parts.append(f'<p class="note">{escape(timeout_note)}</p>')
    for path, meta in metas:
        parts.append(f"<h3>{escape(path)}</h3>")
        if meta is None:
            parts.append('<p class="note">no readable .meta.json beside this CSV</p>')
            continue
        parts.append(_dl(_provenance_items(meta)))
    parts.append("</section>")
    return "".join(parts)


def _provenance_items(meta: dict[str, Any]) -> list[tuple[str, str]]:
    git = meta.get("git") or {}
    machine = meta.get("machine") or {}
    python = meta.get("python") or {}
    limits = meta.get("limits") or {}
    packages = meta.get("packages") or {}
    command = meta.get("command")
    datasets = [
        f"{d.get('path')} ({d.get('puzzles')} puzzles, sha256 {str(d.get('sha256'))[:12]})"
        for d in meta.get("datasets") or []
    ]
    missing = [
        f"{b.get('spec')}: {b.get('reason')}"
        for b in meta.get("backends") or []
        if not b.get("available", True)
    ]
    sha = git.get("sha") or "unknown"
    items = [
        ("command", " ".join(command) if isinstance(command, list) else str(command)),
        ("git", f"{sha}{' (uncommitted changes)' if git.get('dirty') else ''}"),
        ("started / finished", f"{meta.get('started')} / {meta.get('finished')}"),
        ("complete", str(meta.get("complete"))),
        (
            "machine",
            f"{machine.get('cpu_model')}, {machine.get('cpu_count')} cores "
            f"({machine.get('usable_cpus')} usable), {machine.get('os')}",
        ),
        ("python", f"{python.get('version')} {python.get('implementation', '')}"),
        ("packages", ", ".join(f"{k} {v}" for k, v in packages.items() if v)),
        (
            "limits",
            f"timeout {limits.get('timeout_s')} s, memory {limits.get('memory_limit_mib')} MiB, "
            f"solutions {limits.get('solutions_limit')}",
        ),
        ("seed / jobs / repeat", f"{meta.get('seed')} / {meta.get('jobs')} / {meta.get('repeat')}"),
        ("datasets", "; ".join(datasets)),
    ]
    if missing:
        items.append(("unavailable", "; ".join(missing)))
    return items


def _dl(items: list[tuple[str, str]]) -> str:
    rows = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in items)
    return f"<table>{rows}</table>"


def group_section(
    index: int,
    group: data.Group,
    runs: data.Runs,
    pair: tuple[str, str] | None,
    palette: dict,
    time: str = "solve",
) -> str:
    """One dataset (and grid size) of ``runs``: its table (with the repeats' spread, where
    the runs repeated), then its cactus (its time axis ``time``, a key of
    :data:`harness.report.data.TIMES`), scatter and effort plots, and what was thinned to
    draw them."""
    anchor = f"dataset-{index}"
    title, timeout = group.title, runs.timeout
    summary = data.summary(runs, group)
    spread = data.repeat_spread(runs, group)
    if not spread.empty and not summary.empty:
        summary = summary.merge(spread, on="backend", how="left")
    puzzles = data.puzzle_count(runs, group)
    frame = data.puzzles(runs, group)
    parts = [
        f'<section id="{anchor}" class="dataset"><h2>{escape(title)}</h2>',
        f'<h3>Summary</h3><p class="note">{humanize.count(puzzles)} puzzles.</p>',
        f'<div class="summary">{table(summary, HEADERS)}</div>',
        '<p class="note">Times are the solve phase of checked answers (SOLVED, or UNSAT '
        "where the file allows it). PAR-2 counts each unsolved puzzle as twice the timeout "
        f"({humanize.significant(timeout)} s = {humanize.ms(timeout)} ms). The virtual best "
        "solver takes, per puzzle, the fastest correct answer; <i>fastest alone</i> counts "
        "the puzzles on which a backend's answer was strictly the fastest. <i>own clock</i> "
        "is the median of the time the solver measured itself, where it reports one. Click a "
        "header to sort.</p>",
    ]
    order = data.ranked(summary)
    pair = pair or data.pair_of(order)
    effort = data.effort(frame)
    figures, notes, curves = _plots(
        index, title, frame, timeout, pair, palette, order, time, effort
    )
    if notes:
        items = "".join(f"<li>{escape(n)}</li>" for n in notes)
        parts.append('<p class="note">What the plots thin to stay readable:</p>')
        parts.append(f'<ul class="note">{items}</ul>')
    parts.append(f'<div class="plots">{"".join(figures)}</div>')
    unclocked = [b for b in order if b not in curves]
    if unclocked:
        parts.append(
            f'<p class="note">Not in the cactus plot (no time by {escape(data.CLOCKS[time])}): '
            f"{escape(', '.join(unclocked))}.</p>"
        )
    uncounted = [b for b in order if b not in effort]
    if uncounted:
        parts.append(
            f'<p class="note">Not in the effort plots (no node count, or no correct answer): '
            f"{escape(', '.join(uncounted))}.</p>"
        )
    parts.append("</section>")
    return "".join(parts)


def _plots(index, title, frame, timeout, pair, palette, order, time, effort):
    """The group's figures (inline SVG), a sentence for each plot that was thinned, and the
    cactus curves (their time ``time``, a key of :data:`harness.report.data.TIMES`);
    backends in ``order`` first; ``effort`` is :func:`harness.report.data.effort`'s."""
    figures, notes = [], []
    curves = data.cactus(frame, order, data.TIMES[time])
    cactus = plots.cactus(curves, timeout, f"{title}: cactus", palette, data.CLOCKS[time])
    figures.append(f'<figure class="cactus">{plots.svg(cactus, f"c{index}")}</figure>')
    longest = max((len(t) for t in curves.values()), default=0)
    if longest > thin.CURVE_POINTS:
        notes.append(thin.curve_note("cactus", thin.CURVE_POINTS, longest))
    if pair is not None and set(pair) <= set(frame["backend"].unique()):
        points = data.scatter(frame, *pair, timeout)
        figure = plots.scatter(points, *pair, timeout, f"{title}: {pair[0]} vs {pair[1]}")
        figures.append(f'<figure class="scatter">{plots.svg(figure, f"s{index}")}</figure>')
        if thin.dense(len(points)):
            what = f"scatter {pair[0]} vs {pair[1]}"
            notes.append(thin.density_note(what, len(points), int(points["wrong"].sum())))
    effort = {b: effort[b] for b in [*order, *effort] if b in effort}
    total = sum(len(rows) for rows in effort.values())
    if effort and thin.dense(total):
        figure = plots.effort_density(effort, title, palette)
        figures.append(f'<figure class="effort">{plots.svg(figure, f"e{index}")}</figure>')
        figure = plots.nodes_figure(effort, title, palette)
        figures.append(f'<figure class="nodes">{plots.svg(figure, f"n{index}")}</figure>')
        notes.append(thin.density_note("effort against time", total, pinned=False))
        if max(len(rows) for rows in effort.values()) > thin.CURVE_POINTS:
            most = max(len(rows) for rows in effort.values())
            notes.append(thin.curve_note("nodes per puzzle", thin.CURVE_POINTS, most, False))
    elif effort:
        figure = plots.effort(effort, title, palette)
        figures.append(f'<figure class="effort">{plots.svg(figure, f"e{index}")}</figure>')
    return figures, notes, curves


def baseline_section(
    overall: str,
    notes: Sequence[str],
    findings: pd.DataFrame,
    ratios: pd.DataFrame,
    calibrated: str,
    scatter_svg: str,
    note: str = "",
    puzzles: pd.DataFrame | None = None,
    heading: tuple[str, str] = ("baseline", "Against the baseline"),
) -> str:
    """The gate's verdict and its notes, the verdict per backend, time ratios with their
    confidence (``calibrated`` says whether the new times were divided by the calibration),
    old vs new per puzzle (plotted, and the largest ratios listed); ``note``: how that plot
    was thinned, if it was; ``heading`` is (anchor, title)."""
    gate_headers = {c: c for c in ("backend", "dataset", "check", "baseline", "new", "verdict")}
    verdict_headers = {c: c for c in ("backend", "dataset", "verdict", "checks")}
    ratio_headers = {
        "backend": "backend",
        "dataset": "dataset",
        "clock": "clock",
        "pairs": "puzzles",
        "ratio": "median new/old",
        "low": "95% low",
        "high": "95% high",
    }
    puzzle_headers = {
        "backend": "backend",
        "line": "line",
        "old_ms": "old ms",
        "new_ms": "new ms",
        "ratio": "new/old",
    }
    listed = (
        ""
        if puzzles is None
        else (
            f"<details><summary>Per puzzle, largest ratios first ({len(puzzles)})</summary>"
            f"{table(puzzles, puzzle_headers)}</details>"
        )
    )
    said = "".join(f"<li>{escape(line)}</li>" for line in notes)
    return (
        f'<section id="{heading[0]}"><h2>{escape(heading[1])}</h2>'
        '<p class="note">The verdict is harness check\'s (harness.gate): the same table, '
        "figures and exit. Time is judged on the clock that measures each backend's work "
        "(CPU time in the worker's process, the solver's own clock, else wall time).</p>"
        f'<p class="verdict">harness check: <b>{escape(overall)}</b></p>'
        + (f"<ul>{said}</ul>" if said else "")
        + f"<h3>Verdict per backend</h3>{table(data.verdicts(findings), verdict_headers)}"
        f"<details><summary>Every check ({len(findings)})</summary>"
        f"{table(findings, gate_headers)}</details>"
        "<h3>Time ratio</h3>"
        f'<p class="note">Per backend, the median of the per-puzzle ratios on its clock, '
        f"with a distribution-free 95% interval; {escape(calibrated)}.</p>"
        f"{table(ratios, ratio_headers)}"
        + (f'<p class="note">{escape(note)}</p>' if note else "")
        + f'<div class="plots"><figure class="oldnew">{scatter_svg}</figure></div>'
        f"{listed}</section>"
    )


def page(body: Sequence[str], title: str, toc: Sequence[tuple[str, str]]) -> str:
    """The whole document around the sections in ``body``."""
    links = " · ".join(f'<a href="#{a}">{escape(t)}</a>' for a, t in toc)
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{STYLE}</style><script>{SCRIPT}</script>"
        f"</head><body><h1>{escape(title)}</h1><nav>{links}</nav>"
        '<pre id="js-errors" class="bad"></pre>' + "".join(body) + "</body></html>\n"
    )
