"""The report at scale: a page whose size does not grow with the rows, thinned honestly."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.report import thin
from harness.results import BASE_COLUMNS
from harness.results.companions import meta_path_for

#: Rows of the synthetic run: half a million, so that writing and reporting them stays
#: within the suite's budget on a busy 2-core machine (a million take twice as long). Past
#: the thinning thresholds the page no longer grows with the rows (a curve keeps at most
#: 2,000 points, a density is one image), so a million rows give a page of the same size.
ROWS = 500_000
BACKENDS = 8
MEGABYTE = 1024 * 1024


def synthetic_run(path: Path, rows: int = ROWS, backends: int = BACKENDS) -> Path:
    """A results CSV of ``backends`` backends on ``rows / backends`` puzzles, every column a
    run writes: lognormal solve times (each backend slower than the last; the solver's own
    clock a tenth under them), node counts that follow them, a few TIMEOUT, WRONG and ERROR
    rows; and its .meta.json with the timeout."""
    rng = np.random.default_rng(7)
    puzzles = rows // backends
    pool = ["".join(rng.choice(list("123456789."), 81)) for _ in range(256)]
    hardness = rng.lognormal(0.0, 1.2, puzzles)
    lines = np.arange(1, puzzles + 1).tolist()
    with path.open("w", encoding="utf-8") as out:
        out.write(",".join(BASE_COLUMNS) + "\n")
        for b in range(backends):
            solve = 1e-4 * 1.4**b * hardness * rng.lognormal(0.0, 0.3, puzzles)
            nodes = np.maximum(1, hardness * 50 * (b + 1)).round().astype(np.int64)
            status = np.where(solve > 1.0, "TIMEOUT", "SOLVED").astype(object)
            status[rng.random(puzzles) < 2e-4] = "WRONG"
            status[rng.random(puzzles) < 2e-4] = "ERROR"
            row = (
                f"datasets/big.txt,%d,%s,9,17,b{b}:opt={b},0,1,2,vm,%s,1,%s,"
                "2e-05,%.6g,2e-05,%.6g,%.6g,1e-05,%.6g,21.5,%d,%d,%d,\n"
            )
            cells = zip(lines, status.tolist(), solve.tolist(), nodes.tolist(), strict=True)
            out.writelines(
                row % (n, pool[n & 255], st, pool[n & 255], s, s, s * 0.9, s, k, k // 3, k // 4)
                for n, st, s, k in cells
            )
    specs = [{"spec": f"b{b}:opt={b}"} for b in range(backends)]
    meta = {"limits": {"timeout_s": 1.0}, "command": ["harness", "run"], "backends": specs}
    meta_path_for(path).write_text(json.dumps(meta))
    return path


@pytest.mark.slow
def test_a_report_of_many_rows_stays_small(tmp_path: Path) -> None:
    """500,000 rows of 8 backends: a page under 5 MB that says what it thinned and how,
    one cactus line per backend, density plots in place of scatters, the own clock and CPU
    medians in the summary."""
    csv = synthetic_run(tmp_path / "big.csv")
    out = tmp_path / "big.html"
    result = CliRunner().invoke(main, ["report", str(csv), "-o", str(out)])
    page = out.read_text()
    assert 0 == result.exit_code, result.output
    assert out.stat().st_size < 5 * MEGABYTE
    assert re.search(r"cactus: 2,000 of [0-9,]+ points per backend at most", page)
    assert "drawn as a 2-D density" in page
    assert BACKENDS == len(set(re.findall(r'id="cactus:([^"]+)"', page)))
    assert BACKENDS == len(set(re.findall(r'id="density:([^"]+)"', page)))
    assert page.index('id="dataset-0"') < page.index('id="provenance"')
    medians = ("own clock ms", "CPU median ms")
    assert medians == tuple(h for h in medians if f"<th>{h}</th>" in page)


def test_an_against_run_of_many_puzzles_pairs_them_as_a_density(tmp_path: Path) -> None:
    """An --against run of 4,500 puzzles: its old-against-new plot is one density panel
    for the new backend, and the section says it was drawn as a density."""
    csv = synthetic_run(tmp_path / "pairs.csv", rows=9_000, backends=2)
    meta_path = meta_path_for(csv)
    meta = json.loads(meta_path.read_text()) | {"against": {"pairs": {"b0:opt=0": "b1:opt=1"}}}
    meta_path.write_text(json.dumps(meta))
    out = tmp_path / "pairs.html"
    result = CliRunner().invoke(main, ["report", str(csv), "-o", str(out)])
    page = out.read_text()
    section = page[page.index('<section id="paired-0">') : page.index('id="provenance"')]
    assert 0 == result.exit_code, result.output
    assert re.search(r"per puzzle: 4,[0-9]{3} points drawn as a 2-D density", section)
    assert ["b1:opt=1"] == re.findall(r'id="density:([^"]+)"', section)


def test_a_curve_keeps_its_extremes_and_the_timeout_crossing() -> None:
    """100,000 sorted times crossing 1.0: at most 2,000 kept, with the first, the last, and
    the last under the timeout and the first over it."""
    values = np.sort(np.random.default_rng(3).lognormal(-3.0, 1.5, 100_000))
    limit = 1.0
    keep = thin.curve(values, limit)
    over = int(np.searchsorted(values, limit, side="right"))
    assert 0 < over < len(values)
    assert len(keep) <= thin.CURVE_POINTS
    assert {0, len(values) - 1, over - 1, over} <= set(keep.tolist())
    assert (np.diff(keep) > 0).all()


def test_a_curve_keeps_the_shape_of_its_steep_tail() -> None:
    """The slowest 0.1% climb three orders of magnitude: the kept points follow the climb
    (no gap on the log scale wider than a tenth of its range)."""
    values = np.sort(np.concatenate([np.full(99_900, 0.001), np.logspace(-3, 0, 100)]))
    kept = values[thin.curve(values)]
    assert np.ptp(np.log10(kept)) * 0.1 > np.diff(np.log10(kept)).max()


def test_a_short_curve_keeps_every_point() -> None:
    """Fewer points than the budget: all of them, in order."""
    assert list(range(5)) == thin.curve(np.arange(5.0), 2.5).tolist()


def test_sixteen_backends_have_distinct_colours_and_markers() -> None:
    """Each of 16 backends its own colour and its own marker."""
    pytest.importorskip("matplotlib", reason="plots need pip install 'sudoku-harness[report]'")
    from harness.report import plots

    styles = plots.colours([f"b{i}" for i in range(16)]).values()
    assert 16 == len({s["color"] for s in styles})
    assert 16 == len({s["marker"] for s in styles})
