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
from harness.tables.stats import literal


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
) -> str:
    """The page for the results CSVs ``paths`` (and, given one, a baseline CSV); ``time``
    is the cactus plots' time axis (a key of :data:`harness.report.data.TIMES`); with
    ``merge``, their rows pooled as one run."""
    from harness.report import html, plots

    sections, toc = [], []
    with data.load_runs(paths, merge) as runs:
        check_pair(runs, pair)
        palette = plots.colours(data.names(runs, ran=True))
        for index, group in enumerate(data.groups(runs)):
            sections.append(html.group_section(index, group, runs, pair, palette, time))
            toc.append((f"dataset-{index}", group.title))
    if baseline is not None:
        sections.append(_baseline(baseline, paths, palette))
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


def _baseline(baseline: Path, paths: Sequence[str | Path], palette) -> str:
    """The gate's findings (harness.gate, as ``harness check`` runs it) and time ratios."""
    from harness import gate

    known: dict[str, bool] = dict(gate.deterministic_specs(baseline))
    for path in paths:
        known.update(gate.deterministic_specs(Path(path)))
    with gate.read([baseline, *map(Path, paths)]) as results:
        con = results.con
        tables = [f"file_{i}" for i in range(1, len(paths) + 1)]
        con.execute(f"CREATE TEMP VIEW report_new AS {data.labelled(con, tables, paths)}")
        verdict = gate.judge(con, "file_0", "report_new", known)
        pairs = data.old_new(con)
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
    from harness import gate
    from harness.gate import paired

    pairs = paired.pairs_in(meta)
    if not pairs:
        return None
    with gate.read([path]) as results:
        con = results.con
        held = {b for (b,) in con.execute("SELECT DISTINCT backend FROM file_0").fetchall()}
        pairs = [p for p in pairs if set(p) <= held]
        if not pairs:
            return None
        verdict = paired.judge_pairs(con, "file_0", pairs, gate.deterministic_in(meta))
        olds = " UNION ALL ".join(
            f"SELECT * REPLACE ({literal(n)} AS backend) FROM file_0 WHERE backend = {literal(o)}"
            for o, n in pairs
        )
        news = ", ".join(literal(n) for _, n in pairs)
        con.execute(f"CREATE TEMP VIEW report_old AS {olds}")
        con.execute(
            f"CREATE TEMP VIEW report_new AS SELECT * FROM file_0 WHERE backend IN ({news})"
        )
        gate.prepare(con, "report_old", "report_new")
        rows = data.old_new(con)
    title = f"old ({pairs[0][0].rpartition('@')[2]}) against new, per puzzle"
    heading = (anchor, f"Old against new ({', '.join(o for o, _ in pairs)})")
    return _section(verdict, rows, palette, title, anchor, heading)
