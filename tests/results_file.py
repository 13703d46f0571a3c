"""A results CSV as the tests read it: the header and every whole row, as text.

Tests look at what a run wrote, cell by cell; the product reads results with its engine
(:mod:`harness.results.engine`). Cells are unescaped (:func:`harness.results.unescape_cell`)
and a torn last line (no newline) is left out, as the engine leaves it out.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from harness.results import unescape_cell


def read_rows(path: Path | str, strict: bool = False) -> tuple[list[str], list[dict[str, str]]]:
    """Header and rows of a results CSV (``strict``: a row of another width raises)."""
    data = Path(path).read_bytes()
    data = data[: data.rfind(b"\n") + 1]
    reader = csv.reader(io.StringIO(data.decode("utf-8-sig"), newline=""))
    header = [unescape_cell(c) for c in next(reader, [])]
    rows = []
    for fields in reader:
        if not fields:
            continue
        if strict and len(fields) != len(header):
            raise ValueError(f"{path}:{reader.line_num}: {len(fields)} field(s)")
        fields += [""] * (len(header) - len(fields))
        rows.append(dict(zip(header, map(unescape_cell, fields), strict=False)))
    return header, rows
