"""The report page in a real browser: headless Chromium opens it offline with no console
error, and its DOM holds every section and one cactus line per backend."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from harness.cli import main
from tests.conftest import PROJECT

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def chromium(*args: str) -> subprocess.CompletedProcess:
    """Run headless Chromium (no sandbox: CI runs as root) with every host unresolvable."""
    command = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--enable-logging=stderr",
        "--v=0",
        "--host-resolver-rules=MAP * ~NOTFOUND",
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pd.DataFrame]:
    """A report over `-b all` on the first four puzzles of datasets/hard95.txt."""
    folder = tmp_path_factory.mktemp("browser")
    lines = (PROJECT / "datasets" / "hard95.txt").read_text().splitlines()
    puzzles = folder / "hard4.txt"
    puzzles.write_text("\n".join([x for x in lines if x and not x.startswith("#")][:4]) + "\n")
    csv, html = folder / "r.csv", folder / "r.html"
    runner = CliRunner()
    run = runner.invoke(
        main, ["run", "-q", "-b", "all", "--timeout", "1", "--out", str(csv), str(puzzles)]
    )
    assert 0 == run.exit_code, run.output
    report = runner.invoke(main, ["report", str(csv), "-o", str(html)])
    assert 0 == report.exit_code, report.output
    return html, pd.read_csv(csv)


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is absent (apt-get install chromium)")
def test_chromium_opens_the_report_with_every_section(page: tuple[Path, pd.DataFrame]) -> None:
    """No console message, the script ran, every section and a cactus line per backend."""
    html, rows = page
    done = chromium("--virtual-time-budget=3000", "--dump-dom", html.as_uri())
    dom = done.stdout
    console = [x for x in done.stderr.splitlines() if ":CONSOLE" in x]
    assert 0 == done.returncode
    assert [] == console
    assert 'data-script="ran"' in dom
    assert re.search(r'<pre id="js-errors"[^>]*></pre>', dom)
    for part in ('id="provenance"', 'id="dataset-0"', 'class="sortable"', 'class="cactus"'):
        assert part in dom
    for part in ('class="scatter"', 'class="effort"', "virtual best"):
        assert part in dom
    ran = sorted(set(rows.loc[rows["status"] != "UNAVAILABLE", "backend"]))
    assert ran == sorted(set(re.findall(r'id="cactus:([^"]+)"', dom)))  # even one solving 0


def test_the_page_references_no_network_resource(page: tuple[Path, pd.DataFrame]) -> None:
    """No http:// or https:// anywhere in the file (and so no CDN, font or image fetch)."""
    assert [] == re.findall(r"https?://", page[0].read_text())


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is absent (apt-get install chromium)")
def test_clicking_a_header_sorts_the_table(page: tuple[Path, pd.DataFrame], tmp_path: Path) -> None:
    """Two clicks on "median ms" sort slowest first; the virtual best row stays last."""
    click = (
        "<script>document.addEventListener('DOMContentLoaded',function(){"
        "var th=[...document.querySelectorAll('table.sortable th')]"
        ".find(function(h){return h.textContent==='median ms';});th.click();th.click();});"
        "</script></body>"
    )
    clicked = tmp_path / "clicked.html"
    clicked.write_text(page[0].read_text().replace("</body>", click))
    dom = chromium("--virtual-time-budget=3000", "--dump-dom", clicked.as_uri()).stdout
    body = re.search(r'<table class="sortable">.*?</table>', dom, re.S).group(0)
    rows = re.findall(r"<tr[^>]*><td[^>]*>([^<]*)</td>((?:<td[^>]*>[^<]*</td>)*)</tr>", body)
    medians = [re.findall(r"<td[^>]*>([^<]*)</td>", cells)[4] for _, cells in rows[:-1]]
    numbers = [float(m.replace(",", "")) for m in medians if m]
    assert ("virtual best", sorted(numbers, reverse=True)) == (rows[-1][0], numbers)
