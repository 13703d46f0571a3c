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
    time: str = "solve",
    merge: bool = False,
) -> str:
    """The page for the results CSVs ``paths`` (and, given one, a baseline CSV); ``time``
    is the cactus plots' time axis (a key of :data:`harness.report.data.TIMES`); with
    ``merge``, their rows pooled as one run."""
    from harness.report import html, plots

    runs = data.load_runs(paths, merge)
    check_pair(runs, pair)
    palette = plots.colours(data.backends(runs.frame))
    sections, toc = [], []
    for index, (title, frame) in enumerate(data.groups(runs.frame)):
        spread = data.repeat_spread(runs.raw, frame)  # empty without --repeat
        section = html.group_section(index, title, frame, runs.timeout, pair, palette, spread, time)
        sections.append(section)
        toc.append((f"dataset-{index}", title))
    if baseline is not None:
        sections.append(_baseline(baseline, paths, runs, palette))
        toc.append(("baseline", "Against the baseline"))
    for index, (path, meta) in enumerate(runs.metas):  # runs made with --against REV
        section = _paired(Path(path), meta, f"paired-{index}", palette)
        if section is not None:
            sections.append(section)
            toc.append((f"paired-{index}", f"Old against new: {Path(path).name}"))
    sections.append(html.provenance(runs.metas, runs.timeout_note))
    toc.append(("provenance", "Provenance"))
    names = ", ".join(Path(p).name for p in paths)
    return html.page(sections, f"sudoku-harness report: {names}", toc)


def _baseline(baseline: Path, paths: Sequence[str | Path], runs: data.Runs, palette) -> str:
    """The gate's findings (harness.gate, as ``harness check`` runs it) and time ratios."""
    from harness import gate
    from harness.gate.baseline import read_frame
    from harness.tables import load

    known: dict[str, bool] = dict(gate.deterministic_specs(baseline))
    for path in paths:
        known.update(gate.deterministic_specs(Path(path)))
    old = read_frame(baseline)
    new = load.concat(data.label_runs([read_frame(Path(p)) for p in paths], paths))
    new = new.drop(columns="run").astype({"backend": str})
    verdict = gate.compare(old, new, known)
    pairs = data.old_new(old, new)
    return _section(verdict, pairs, palette, "baseline against new, per puzzle", "b")


def _section(verdict, pairs: pd.DataFrame, palette, title: str, key: str, heading=None) -> str:
    """A gate's verdict with its time ratios, the old-new plot (a density at scale, saying
    so) and the per-puzzle pairs."""
    from harness.report import html, plots, thin

    findings = pd.DataFrame([vars(f) for f in verdict.findings])
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
    svg = plots.svg(plots.old_new(pairs, title, palette), key)
    note = thin.density_note(title, len(pairs), pinned=False) if thin.dense(len(pairs)) else ""
    listed = data.puzzle_pairs(pairs)
    extra = {} if heading is None else {"heading": heading}
    return html.baseline_section(
        verdict.headline, findings, pd.DataFrame(ratios), svg, note, listed, **extra
    )


def _paired(path: Path, meta, anchor: str, palette) -> str | None:
    """The section of a run made with ``--against``: each SPEC@REV against SPEC, paired
    (the run's rows as the gate reads them, backends as the run named them)."""
    from harness.gate import paired
    from harness.gate.baseline import _deterministic_in, read_frame

    pairs = paired.pairs_in(meta)
    if not pairs:
        return None
    rows = read_frame(path)
    pairs = [p for p in pairs if set(p) <= set(rows["backend"])]
    if not pairs:
        return None
    verdict = paired.compare_pairs(rows, pairs, _deterministic_in(meta))
    old = pd.concat([rows[rows.backend == o].assign(backend=n) for o, n in pairs])
    new = rows[rows.backend.isin([n for _, n in pairs])]
    title = f"old ({pairs[0][0].rpartition('@')[2]}) against new, per puzzle"
    heading = (anchor, f"Old against new ({', '.join(o for o, _ in pairs)})")
    return _section(verdict, data.old_new(old, new), palette, title, anchor, heading)
