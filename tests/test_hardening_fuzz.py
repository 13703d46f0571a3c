"""Random results CSVs and metadata through every reading command: only documented outcomes."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.cli import main
from harness.exit_codes import CheckExit, RunExit
from harness.results import BASE_COLUMNS
from tests.corrupt_corpus import BIG, csv_text, good_meta, good_rows, write_run

SPECIAL = ["", "SOLVED", "UNSAT", "TIMEOUT", "0", "1", "-1", "1.5", "nan", "inf", "1e400", BIG]
SPECIAL += ["=1+1", "'=x", "@A1", "a,b", 'q"uote', "two\nlines", "norvig", "datasets/x.txt"]
CELLS = st.one_of(st.sampled_from(SPECIAL), st.text(max_size=12))
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=8,
)
META_KEYS = ["machine", "limits", "backends", "datasets", "git", "python", "calibration"]


@st.composite
def results_text(draw: st.DrawFn) -> str:
    """A good run's CSV with random columns, cells, widths and a random cut."""
    rows, header = good_rows(), list(BASE_COLUMNS)
    if draw(st.booleans()):
        header = list(draw(st.permutations(header)))
    if draw(st.integers(0, 3)) == 0:
        header.remove(draw(st.sampled_from(header)))
    if draw(st.integers(0, 5)) == 0:
        header.append(draw(st.sampled_from(["status", "extra", "", "nodes"])))
    for _ in range(draw(st.integers(0, 6))):
        row = draw(st.sampled_from(rows))
        row[draw(st.sampled_from(header))] = draw(CELLS)
    text = csv_text(rows, header)
    if draw(st.integers(0, 3)) == 0:
        text = text[: draw(st.integers(0, len(text)))]
    if draw(st.integers(0, 4)) == 0:
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from([",", "\n", '"', "x,y\n", "\r"])) + text[at:]
    return text


@st.composite
def meta_bytes(draw: st.DrawFn) -> bytes | None:
    """No metadata, random JSON, or a good run's metadata with random fields."""
    kind = draw(st.sampled_from(["none", "random", "fields"]))
    if kind == "none":
        return None
    if kind == "random":
        return json.dumps(draw(JSON)).encode()
    meta = good_meta()
    for key in draw(st.lists(st.sampled_from(META_KEYS), max_size=3)):
        meta[key] = draw(JSON)
    return json.dumps(meta).encode()


def outcome(result, command: str) -> tuple[bool, bool, bool]:
    """(no traceback, a documented exit code, a refusal in exactly one line)."""
    clean = result.exception is None or isinstance(result.exception, SystemExit)
    codes = {RunExit.OK, RunExit.USAGE}
    if command == "check":
        codes |= {CheckExit.REGRESSION, CheckExit.WRONG}
    lines = result.stderr.strip().splitlines()
    one_line = not lines or (len(lines) == 1 and lines[0].startswith("harness: error: "))
    refused = result.exit_code == RunExit.USAGE and not result.stdout
    return clean, result.exit_code in codes, one_line or not refused


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(text=results_text(), meta=meta_bytes())
def test_random_results_give_only_documented_outcomes(text: str, meta: bytes | None) -> None:
    """table, check (both ways), report and plot of a random CSV and metadata: exit 0, 1
    (check) or 2, a refusal in one line, never a traceback."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        base = write_run(root / "base.csv")
        bad = write_run(root / "x.csv", text.encode("utf-8", "surrogatepass"), meta)
        commands = [
            ["table", bad],
            ["check", base, bad],
            ["check", bad, base],
            ["report", bad, "-o", root / "r.html"],
            ["plot", "cactus", bad, "-o", root / "p.svg"],
        ]
        for args in commands:
            result = CliRunner().invoke(main, [str(a) for a in args])
            assert (args[0], True, True, True) == (args[0], *outcome(result, args[0]))
