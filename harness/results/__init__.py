"""Results: the CSV a run writes, the metadata beside it, and the engine that reads them.

- :mod:`.schema`: the columns and their types, the resume key and formula escaping (the
  column table is there);
- :mod:`.writer`: appending rows so that an interrupted run leaves a valid file;
- :mod:`.engine`: results CSVs read by DuckDB, every row checked (every reading command);
- :mod:`.lock`: one run writes a CSV at a time, and only a regular file;
- :mod:`.companions`: the names of the files beside a CSV (``x.csv.meta.json``, ``x.csv.log``);
- :mod:`.provenance`: the ``.meta.json`` written beside every results CSV;
- :mod:`.metadata`: reading that ``.meta.json`` back, every field a reader uses checked;
- :mod:`.identity`: whether a file is a results CSV of a harness run (header and metadata).

Written by the runner (:mod:`harness.run.runner`), read by ``table``, ``check``, ``report``,
``--resume`` and the end of a run. The names below are the package's public ones.
"""

from __future__ import annotations

from harness.results.lock import exclusive
from harness.results.schema import (
    BASE_COLUMNS,
    FORMULA_STARTS,
    INTEGER_COLUMNS,
    KEY_COLUMNS,
    MEASURE_COLUMNS,
    NUMBER_COLUMNS,
    REQUIRED_COLUMNS,
    Key,
    ResultsError,
    columns_for,
    escape_cell,
    require_columns,
    row_key,
    unescape_cell,
)
from harness.results.writer import RowWriter

__all__ = [
    "BASE_COLUMNS",
    "FORMULA_STARTS",
    "INTEGER_COLUMNS",
    "KEY_COLUMNS",
    "MEASURE_COLUMNS",
    "NUMBER_COLUMNS",
    "REQUIRED_COLUMNS",
    "Key",
    "ResultsError",
    "RowWriter",
    "columns_for",
    "escape_cell",
    "exclusive",
    "require_columns",
    "row_key",
    "unescape_cell",
]
