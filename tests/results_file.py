"""A results CSV as the tests read and write it: the header and every whole row, as text.

Tests look at what a run wrote, cell by cell; the product reads results with its engine
(:mod:`harness.results.engine`). Cells are unescaped (:func:`harness.results.unescape_cell`)
and a torn last line (no newline) is left out, as the engine leaves it out. Rows a test makes
are written as a run writes them (:class:`harness.results.RowWriter`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from harness.results import RowWriter, columns_for, companions, provenance, unescape_cell


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


def write_rows(path: Path, rows: Iterable[Mapping[str, Any]], natives: Iterable[str] = ()) -> Path:
    """``rows`` written to a new results CSV ``path`` as a run writes them (the base columns,
    then ``natives``; a column a row lacks is empty), with the metadata a run leaves: it
    vouches for the file, so the rows' answers (made up by a test) are not checked again."""
    with RowWriter(path, columns_for(natives)) as writer:
        for row in rows:
            writer.write(row)
    specs = dict.fromkeys(row["backend"] for row in read_rows(path)[1])
    if specs:  # a run has a backend at least
        meta = {"csv": str(path), "backends": [{"spec": spec} for spec in specs]}
        meta["csv_digest"] = provenance.csv_digest(path)
        provenance.write_json(companions.meta_path_for(path), meta)
    return path
