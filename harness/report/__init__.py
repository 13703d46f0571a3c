"""``harness report``: one self-contained HTML page per set of results CSVs.

:mod:`.load` reads the columns it shows, :mod:`.data` computes what each plot and table
shows, :mod:`.thin` chooses the points a plot of very many keeps, :mod:`.plots` draws it
with matplotlib (Agg, imported only here), :mod:`.html` lays out the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from harness.report import data


class ReportError(ValueError):
    """Input the report cannot use (an unknown --pair backend, ...); one line."""


def check_pair(runs: data.Runs, pair: tuple[str, str] | None) -> None:
    """Raise :class:`ReportError` unless both backends of ``pair`` are in the rows."""
    known = list(dict.fromkeys(runs.frame["backend"]))
    for name in pair or ():
        if name not in known:
            raise ReportError(
                f"--pair: no backend {name!r} in the results; they hold {', '.join(known)}"
            )


def build(
    paths: Sequence[str | Path],
    pair: tuple[str, str] | None = None,
    baseline: Path | None = None,
) -> str:
    """The page for the results CSVs ``paths`` (and, given one, a baseline CSV)."""
    from harness.report import html, plots

    runs = data.load_runs(paths)
    check_pair(runs, pair)
    palette = plots.colours(data.backends(runs.frame))
    sections, toc = [], []
    for index, (title, frame) in enumerate(data.groups(runs.frame)):
        sections.append(html.group_section(index, title, frame, runs.timeout, pair, palette))
        toc.append((f"dataset-{index}", title))
    if baseline is not None:
        sections.append(_baseline(baseline, paths, runs, palette))
        toc.append(("baseline", "Against the baseline"))
    sections.append(html.provenance(runs.metas, runs.timeout_note))
    toc.append(("provenance", "Provenance"))
    names = ", ".join(Path(p).name for p in paths)
    return html.page(sections, f"sudoku-harness report: {names}", toc)


def _baseline(baseline: Path, paths: Sequence[str | Path], runs: data.Runs, palette) -> str:
    """The gate's findings (harness.gate, as ``harness check`` runs it) and time ratios."""
    from harness import gate
    from harness.gate.baseline import read_frame
    from harness.report import html, load, plots, thin

    known: dict[str, bool] = dict(gate.deterministic_specs(baseline))
    for path in paths:
        known.update(gate.deterministic_specs(Path(path)))
    old = read_frame(baseline)
    new = load.concat(data.label_runs([read_frame(Path(p)) for p in paths], paths))
    new = new.drop(columns="run").astype({"backend": str})
    verdict = gate.compare(old, new, known)
    findings = pd.DataFrame([vars(f) for f in verdict.findings])
    pairs = data.old_new(old, new)
    ratios = []
    for (backend, dataset), rows in pairs.groupby(["backend", "dataset"], sort=True):
        ratio, low, high = data.ratio_interval(rows["old"], rows["new"])
        ratios.append(
            {
                "backend": backend,
                "dataset": dataset,
                "pairs": len(rows),
                "ratio": ratio,
                "low": low,
                "high": high,
            }
        )
    title = "baseline against new, per puzzle"
    svg = plots.svg(plots.old_new(pairs, title, palette), "b")
    note = thin.density_note(title, len(pairs), pinned=False) if thin.dense(len(pairs)) else ""
    return html.baseline_section(verdict.headline, findings, pd.DataFrame(ratios), svg, note)
