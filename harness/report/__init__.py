"""``harness report``: one self-contained HTML page per set of results CSVs.

:mod:`.data` reads the columns it shows (:mod:`harness.results.engine`) and computes what
each plot and table shows, :mod:`.thin` chooses the points a plot of very many keeps,
:mod:`.plots` draws it with matplotlib (Agg, imported only here), :mod:`.html` lays out the
page.
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
    known = data.names(runs)
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
    only_common: bool = False,
    ignore_time: bool = False,
    compare_time_anyway: bool = False,
) -> str:
    """The page for the results CSVs ``paths`` (and, given one, a baseline CSV, each of
    ``paths`` judged against it as ``harness check`` judges it, with ``only_common``,
    ``ignore_time`` and ``compare_time_anyway``); ``time`` is the cactus plots' time axis (a key of
    :data:`harness.report.data.TIMES`); with ``merge``, their rows pooled as one run."""
    from harness import gate
    from harness.report import html, plots

    sections, toc = [], []
    with data.load_runs(paths, merge) as runs:
        check_pair(runs, pair)
        palette = plots.colours(data.names(runs, ran=True))
        for index, group in enumerate(data.groups(runs)):
            sections.append(html.group_section(index, group, runs, pair, palette, time))
            toc.append((f"dataset-{index}", group.title))
    for index, path in enumerate(paths if baseline is not None else ()):
        several = len(paths) > 1
        heading = (
            f"baseline-{index}" if several else "baseline",
            f"Against the baseline: {Path(path).name}" if several else "Against the baseline",
        )
        verdict = gate.check_files(
            baseline,
            Path(path),
            only_common=only_common,
            compare_time=not ignore_time,
            compare_time_anyway=compare_time_anyway,
        )
        sections.append(_section(verdict, palette, "baseline against new, per puzzle", heading))
        toc.append(heading)
    for index, (path, meta) in enumerate(runs.metas):  # runs made with --against REV
        section = _paired(Path(path), meta, f"paired-{index}", palette)
        if section is not None:
            sections.append(section)
            toc.append((f"paired-{index}", f"Old against new: {Path(path).name}"))
    sections.append(html.provenance(runs.metas, runs.timeout_note))
    toc.append(("provenance", "Provenance"))
    names = ", ".join(Path(p).name for p in paths)
    return html.page(sections, f"sudoku-harness report: {names}", toc)


def _section(verdict, palette, title: str, heading: tuple[str, str]) -> str:
    """A gate's verdict (:class:`harness.gate.GateResult`) with its notes, the time ratios
    of the puzzles it judged on time (on the clock that judged each backend, calibrated as
    the verdict says), the old-new plot (a density at scale, saying so) and the per-puzzle
    times."""
    from harness.gate.clocks import NAMES
    from harness.report import html, plots, thin

    findings = pd.DataFrame([vars(f) for f in verdict.findings])
    pairs = verdict.times
    ratios = []
    for (backend, dataset), rows in pairs.groupby(["backend", "dataset"], sort=True):
        ratio, low, high = data.ratio_interval(rows["old"], rows["new"])
        ratios.append(
            {
                "backend": backend,
                "dataset": dataset,
                "clock": NAMES[rows["clock"].iloc[0]],
                "pairs": len(rows),
                "ratio": ratio,
                "low": low,
                "high": high,
            }
        )
    calibrated = (
        "not calibrated (times as measured)"
        if verdict.scale is None
        else f"calibrated (new times divided by x{verdict.scale:.3g}, the runs' calibration)"
    )
    svg = plots.svg(plots.old_new(pairs, title, palette), heading[0])
    note = thin.density_note(title, len(pairs), pinned=False) if thin.dense(len(pairs)) else ""
    return html.baseline_section(
        verdict.headline,
        verdict.notes,
        findings,
        pd.DataFrame(ratios),
        calibrated,
        svg,
        note,
        data.puzzle_pairs(pairs),
        heading,
    )


def _paired(path: Path, meta, anchor: str, palette) -> str | None:
    """The section of a run made with ``--against``: each SPEC@REV against SPEC, as
    ``harness check RUN.csv`` judges them (:func:`harness.gate.paired.check_file`)."""
    from harness.gate import paired

    pairs = paired.pairs_in(meta)
    if not pairs:
        return None
    verdict = paired.check_file(path)
    title = f"old ({pairs[0][0].rpartition('@')[2]}) against new, per puzzle"
    heading = (anchor, f"Old against new ({', '.join(o for o, _ in pairs)})")
    return _section(verdict, palette, title, heading)
