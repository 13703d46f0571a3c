"""Results CSVs read by DuckDB: the one reader under every command that reads results.

``harness table``, ``report``, ``plot``, ``check``, ``--baseline``, ``--resume``, the
cross-check and the tables a run prints at its end all read a results CSV here, into a
DuckDB table, and ask their questions of it in SQL (:mod:`harness.tables.stats` holds the
statistics). DuckDB parses the file with the dialect the writer uses (comma, ``"`` quotes,
a header row) and the column types of :data:`harness.results.schema.SQL_TYPES`; nothing is
sniffed. Native statistics (columns after the base ones) come in by name: as numbers when
every cell of the column is one, else as text.

Every row is held to the rules of a results CSV, in SQL (:data:`RULES`):

- the header holds every required column, each column once, none unnamed;
- every row has as many fields as the header (DuckDB skips a blank line);
- ``dataset``, ``puzzle`` and ``backend`` are never empty; ``status`` is one of the statuses;
- ``line``, ``repeat`` and ``limit`` are whole numbers below 10^18; ``size``, ``givens``,
  ``jobs`` and ``solutions`` are too, or empty;
- every other base column with numbers (times, memory, search counters) is empty or a
  finite number of zero or more; no text holds a NUL byte.

A file that breaks one, or that DuckDB cannot parse, is refused with one line naming the
file, the line and the field (:class:`~harness.results.schema.ResultsError`). A last line
without its newline was torn by a kill mid-write: it is dropped, as ``--resume`` drops it
before writing on. A file of nothing but white space has no header and no rows.

Each file's ``.meta.json`` is read and checked (:func:`harness.results.metadata.read_meta`)
with it. A run that ended recorded there what its CSV was (:func:`harness.results.provenance
.csv_digest`); a file that is not that file any more (edited by hand), or whose run did not
end (``complete`` false), has the answers it counts as right checked again by the
harness's one checker (:mod:`harness.check.checker`): a SOLVED row whose grid the checker
refuses is WRONG, and :attr:`Results.notes` says so. A file with no such record and no word
that its run stopped (an older harness's) is read as it is.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import os
import re
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from backends.base import Status
from harness.results.schema import (
    BASE_COLUMNS,
    FORMULA_STARTS,
    INTEGER_COLUMNS,
    KEY_COLUMNS,
    NUMBER_COLUMNS,
    SQL_TYPES,
    ResultsError,
    require_columns,
)

if TYPE_CHECKING:
    import duckdb
    import pandas as pd

STATUSES = tuple(s.value for s in Status)
#: The longest line read, 4 MiB (a 300 KB message is read; a longer line is not a results
#: CSV). DuckDB reads in buffers of 16 lines this long: a longer limit costs memory.
MAX_LINE = 1 << 22
#: Columns never empty; columns that are empty or a whole number.
TEXT_KEYS = ("dataset", "puzzle", "backend")
WHOLE_OR_EMPTY = ("size", "givens", "jobs", "solutions")
#: Text columns the writer may have escaped against formulas (grids never are), and native
#: statistics' columns: their leading ``'`` is taken off once they are loaded.
ESCAPED = ("dataset", "backend", "host", "message")
#: The most memory DuckDB holds before it spills to its temporary folder.
MEMORY_LIMIT = "512MB"
#: Short text columns that may not hold a NUL byte (a sign of a file that is not text).
NUL_CHECKED = ("dataset", "backend", "host")


def _quoted(text: str) -> str:
    """``text`` as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def _ident(name: str) -> str:
    """``name`` as an SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def _shown(column: str) -> str:
    """SQL for a cell as a message shows it: quoted, cut at 40 characters (a whole number
    read as DOUBLE shown without its ``.0``)."""
    number = f"TRY_CAST({column} AS DOUBLE)"
    whole = f"{number} = trunc({number}) AND abs({number}) < 1e30"
    text = f"CASE WHEN {whole} THEN CAST(CAST({number} AS HUGEINT) AS VARCHAR) "
    text += f"ELSE CAST({column} AS VARCHAR) END"
    return f"""'''' || left({text}, 40) || ''''"""


def rules(header: Sequence[str]) -> list[tuple[str, str]]:
    """The rules the cells of a file with ``header`` keep: (SQL that is true for a good
    row, SQL for what is wrong with a bad one), column by column, in header order; whole
    numbers are read as DOUBLE and held to being whole here."""
    found = []
    for name in header:
        c = _ident(name)
        said = (
            f"'{name} is ' || coalesce({_shown(c)}, 'empty') || {_quoted(', not ' + wants(name))}"
        )
        if name == "status":
            found.append((f"{c} IN ({', '.join(map(_quoted, STATUSES))})", said))
        elif name in TEXT_KEYS:
            found.append((f"coalesce({c}, '') <> ''", f"'{name} is empty'"))
        elif name in INTEGER_COLUMNS or name in WHOLE_OR_EMPTY:
            whole = f"{c} >= 0 AND {c} < 1e18 AND {c} = trunc({c})"
            found.append((f"{c} IS NULL OR ({whole})" if name in WHOLE_OR_EMPTY else whole, said))
        elif name in NUMBER_COLUMNS:
            found.append((f"{c} IS NULL OR (isfinite({c}) AND {c} >= 0)", said))
    for name in (c for c in header if c in NUL_CHECKED):
        c = _ident(name)
        found.append((f"NOT contains(coalesce({c}, ''), chr(0))", f"'{name} holds a NUL byte'"))
    return found


def wants(name: str) -> str:
    """What a cell of column ``name`` must be, as a refusal says it."""
    if name == "status":
        return "one of " + " ".join(sorted(STATUSES))
    if name in INTEGER_COLUMNS or name in WHOLE_OR_EMPTY:
        return "a whole number below 10^18"
    return "a number (finite, zero or more)"


def unescaped(column: str) -> str:
    """SQL for the raw value of a text cell :func:`harness.results.escape_cell` wrote: the
    leading ``'`` taken off where the text after the quotes would run as a formula."""
    c = _ident(column)
    core = f"ltrim({c}, '''')"
    starts = " OR ".join(f"starts_with({core}, {_quoted(s)})" for s in FORMULA_STARTS)
    risky = f"({starts}) AND {core} <> '-' AND TRY_CAST({core} AS DOUBLE) IS NULL"
    return f"CASE WHEN starts_with({c}, '''') AND {risky} THEN {c}[2:] ELSE {c} END"


@dataclass
class Layout:
    """What Python reads of a results CSV before DuckDB does: its header (empty for a file
    of no text, or one torn before its header ended), and where its whole rows end (a torn
    last line follows, when that is short of the file's size)."""

    header: list[str]
    end: int
    size: int

    @property
    def torn(self) -> bool:
        return self.end < self.size


def layout(path: Path | str) -> Layout:
    """The header and rows' end of a results CSV; raises :class:`ResultsError` for a file
    it cannot read or a header that is not a results CSV's."""
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            end = _rows_end(handle, size)
            handle.seek(0)
            first = handle.readline(MAX_LINE)
            if not first.strip() and not _blank(handle, first):
                raise ResultsError(f"{path}:1: the header is empty")
    except OSError as exc:
        raise ResultsError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    if b"\0" in first:
        raise ResultsError(f"{path}:1: not a results CSV (the header holds a NUL byte)")
    if not first.endswith(b"\n"):  # no header line ends: no rows
        return Layout([], 0, size)
    if not first.strip():
        return Layout([], 0, size)  # a file of white space
    try:
        text = first.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ResultsError(f"{path}:1: not a results CSV (the header is not UTF-8)") from None
    text = text.rstrip("\r\n")
    if "\r" in text:  # the csv module would ask for "universal-newline mode"
        raise ResultsError(f"{path}:1: not a results CSV (a carriage return inside the header)")
    header = next(csv.reader([text]), [])
    require_columns(path, header)
    if "" in header:
        raise ResultsError(f"{path}:1: column {header.index('') + 1} has no name")
    twice = sorted({c for c in header if header.count(c) > 1})
    if twice:
        raise ResultsError(f"{path}:1: column {twice[0]!r} appears more than once")
    return Layout(header, end, size)


def _blank(handle, first: bytes) -> bool:
    """Whether, after a first line of white space, the whole file is white space."""
    return not any(block.strip() for block in iter(lambda: handle.read(1 << 20), b""))


def _rows_end(handle, size: int, block: int = 1 << 16) -> int:
    """The size of the file up to and with its last newline: what follows is a torn row."""
    end = size
    while end > 0:
        start = max(0, end - block)
        handle.seek(start)
        found = handle.read(end - start).rfind(b"\n")
        if found >= 0:
            return start + found + 1
        end = start
    return 0


def connect() -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB database, its memory bounded (it spills to :func:`spill_folder`)."""
    import duckdb

    con = duckdb.connect(config={"threads": max(1, min(os.cpu_count() or 1, 4))})
    con.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")
    con.execute("SET enable_progress_bar = false")
    con.execute(f"SET temp_directory = {_quoted(str(spill_folder()))}")
    return con


def spill_folder() -> Path:
    """Where a new database spills what passes its memory limit: a folder of its own (made by
    DuckDB only when it spills, and removed by DuckDB when the database closes)."""
    return Path(tempfile.gettempdir()) / f"harness-duckdb-{os.getpid()}-{next(_DATABASES)}"


#: Counts the databases this process opened, to name their spill folders apart.
_DATABASES = itertools.count()


def run_names(paths: Sequence[str | Path]) -> list[str]:
    """A short name per results CSV: its stem, or its path where two share a stem."""
    stems = [Path(p).stem for p in paths]
    return [s if stems.count(s) == 1 else str(p) for s, p in zip(stems, paths, strict=True)]


@dataclass
class Results:
    """Results CSVs in one DuckDB database: the view ``rows`` holds every row of every file
    (a ``run`` column names its file, see :func:`run_names`), the table ``file_<i>`` those of
    file ``i``; the natives are the native statistics' columns, numbers or text."""

    con: duckdb.DuckDBPyConnection
    paths: list[Path]
    runs: list[str]
    natives: list[str] = field(default_factory=list)
    numeric_natives: list[str] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    #: each file's metadata (None where it has none)
    metas: list[dict[str, Any] | None] = field(default_factory=list)
    #: what a reader should know of the files: answers refused when checked again
    notes: list[str] = field(default_factory=list)
    #: whether each file's last line was torn (a run stopped mid-write)
    torn: list[bool] = field(default_factory=list)

    def sql(self, query: str, params: Sequence[Any] | None = None) -> duckdb.DuckDBPyRelation:
        return self.con.sql(query, params=params)

    def frame(self, query: str, params: Sequence[Any] | None = None) -> pd.DataFrame:
        """A query's answer as a pandas DataFrame (unknown values as NaN or None)."""
        return self.con.execute(query, params).df()

    def records(self, query: str, params: Sequence[Any] | None = None) -> list[dict[str, Any]]:
        """A query's answer as a list of dicts (None where unknown), without pandas."""
        return records(self.con.execute(query, params))

    def close(self) -> None:
        self.con.close()  # DuckDB removes the spill folder it made

    def __enter__(self) -> Results:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def records(cursor: Any) -> list[dict[str, Any]]:
    """The rows of an executed DuckDB query as dicts."""
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def read(
    paths: Sequence[Path | str],
    columns: Sequence[str] | None = None,
    natives: bool = True,
    vouched: bool = False,
) -> Results:
    """Results CSVs loaded, each file's every row checked (see the module).

    ``columns`` names the base columns to keep (default: every one); a base column a file
    lacks is there, empty. With ``natives``, the native statistics' columns too. Raises
    :class:`ResultsError` naming the file, and the line and field of the first bad row, or
    the file and the field of a bad ``.meta.json``. ``vouched``: the caller has just checked
    every answer (the end of a run): none is checked again.
    """
    from harness.results.metadata import read_meta

    con = connect()
    results = Results(con, [Path(p) for p in paths], run_names(paths))
    wanted = list(BASE_COLUMNS if columns is None else columns)
    try:
        for index, (path, run) in enumerate(zip(results.paths, results.runs, strict=True)):
            results.metas.append(read_meta(path))
            found = _load(con, index, path, run, wanted, natives)
            results.counts.append(found[0])
            results.torn.append(found[2])
            if not vouched and found[0]:
                note = _check_again(con, index, path, results.metas[-1], found[0])
                results.notes += [note] if note else []
            for name, numeric in found[1]:
                if name not in results.natives:
                    results.natives.append(name)
                    if numeric:
                        results.numeric_natives.append(name)
        tables = " UNION ALL BY NAME ".join(
            f"SELECT * FROM file_{i}" for i in range(len(results.paths))
        )
        con.execute(f"CREATE VIEW rows AS {tables}")
    except BaseException:
        con.close()
        raise
    return results


def _source(path: Path, header: list[str], index: int) -> str:
    """The SQL that reads ``path`` with the writer's dialect and the header's types."""
    types = ", ".join(f"{_quoted(c)}: {_quoted(_read_type(c))}" for c in header)
    return (
        f"read_csv({_quoted(str(path))}, header = true, auto_detect = false, "
        f"columns = {{{types}}}, delim = ',', quote = '\"', escape = '\"', "
        f"max_line_size = {MAX_LINE}, store_rejects = true, rejects_limit = 100, "
        f"rejects_table = 'rejects_{index}', rejects_scan = 'scans_{index}')"
    )


def _read_type(column: str) -> str:
    """The type DuckDB parses a column as: numbers as DOUBLE (whole ones are held to
    their rule, then cast), text and native statistics as VARCHAR."""
    if column in INTEGER_COLUMNS or column in WHOLE_OR_EMPTY:
        return "DOUBLE"
    return SQL_TYPES.get(column, "VARCHAR")


def _kept(name: str, header: list[str]) -> str:
    """SQL for a kept column as the table holds it."""
    c = _ident(name)
    if name not in header:
        return f"CAST(NULL AS {SQL_TYPES[name]}) AS {c}"
    if name in INTEGER_COLUMNS or name in WHOLE_OR_EMPTY:
        return f"CAST(CASE WHEN {c} < 1e18 THEN {c} END AS {SQL_TYPES[name]}) AS {c}"
    return c


def _load(
    con: duckdb.DuckDBPyConnection,
    index: int,
    path: Path,
    run: str,
    wanted: list[str],
    natives: bool,
) -> tuple[int, list[tuple[str, bool]], bool]:
    """Load file ``index`` into table ``file_<index>``; its row count, native columns
    (name, whether numbers), and whether its last line was torn."""
    import duckdb

    found = layout(path)
    table = f"file_{index}"
    header = found.header
    kept = [_kept(name, header) for name in wanted]
    extra = [c for c in header if c not in BASE_COLUMNS] if natives else []
    kept += [_ident(c) for c in extra]
    if not header:  # no rows: an empty table of the kept columns
        con.execute(
            f"CREATE TABLE {table} AS SELECT {_quoted(run)} AS run, {', '.join(kept)} LIMIT 0"
        )
        return 0, [], found.torn
    checks = rules(header)
    good = " AND ".join(f"coalesce({ok}, false)" for ok, _ in checks) or "true"
    source = _source(path, header, index)
    try:
        con.execute(
            f"CREATE TABLE {table} AS SELECT {_quoted(run)} AS run, {', '.join(kept)}, "
            f"{good} AS _good FROM {source}"
        )
    except duckdb.OutOfMemoryException as exc:
        raise ResultsError(
            f"{path}: too large for the {MEMORY_LIMIT} the results engine may hold: {_reason(exc)}"
        ) from None
    except duckdb.Error as exc:
        raise ResultsError(f"{path}: cannot read it as a results CSV: {_reason(exc)}") from None
    torn = found.torn  # the file's; the table's last row is torn only while found.torn holds
    _refuse_rejects(con, index, path, found)
    if found.torn and found.end > 0:
        con.execute(f"DELETE FROM {table} WHERE rowid = (SELECT max(rowid) FROM {table})")
    bad = con.execute(f"SELECT min(rowid) FROM {table} WHERE NOT _good").fetchone()[0]
    if bad is not None:
        raise ResultsError(
            f"{path}:{_line_of_row(path, bad)}: {_problem(con, source, checks, bad)}"
        )
    con.execute(f"ALTER TABLE {table} DROP COLUMN _good")
    for name in [c for c in wanted if c in ESCAPED and c in header] + extra:
        c = _ident(name)
        con.execute(f"UPDATE {table} SET {c} = {unescaped(name)} WHERE starts_with({c}, chr(39))")
    kinds = [(name, _to_numbers(con, table, name)) for name in extra]
    count = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    return count, kinds, torn


def _check_again(
    con: duckdb.DuckDBPyConnection, index: int, path: Path, meta: dict | None, rows: int
) -> str | None:
    """Check again the SOLVED answers of file ``index`` when it is not the file its run
    recorded, or its run did not end (see the module); a refused one becomes WRONG in the
    table. A note when any is refused."""
    from harness.check.checker import all_valid, check_solution
    from harness.results.provenance import unchanged

    same = unchanged(path, (meta or {}).get("csv_digest"))
    if same or (same is None and (meta or {}).get("complete") is not False):
        return None  # vouched for, or nothing says it changed (a run's own, older, file)
    layout_ = layout(path)
    source = _source(path, layout_.header, f"again_{index}")
    if "solution" not in layout_.header:
        return None
    cursor = con.execute(
        f"SELECT _row, puzzle, solution FROM (SELECT row_number() OVER () - 1 AS _row, status, "
        f"puzzle, solution FROM {source}) WHERE status = 'SOLVED' AND _row < {int(rows)}"
    )
    refused: list[tuple[int, str]] = []
    while batch := cursor.fetchmany(1 << 12):
        by_size: dict[int, list[tuple[int, bytes, bytes]]] = {}
        for row, puzzle, solution in batch:
            n = math.isqrt(len(puzzle))
            given, answer = _digits(puzzle, n), _digits(solution or "", n)
            if n * n != len(puzzle) or given is None or answer is None:
                refused.append((row, "its puzzle or solution is not a grid of the harness's"))
                continue
            by_size.setdefault(n, []).append((row, given, answer))
        for n, grids in by_size.items():
            if all_valid([g for _, g, _ in grids], [a for _, _, a in grids], n):
                continue
            for row, given, answer in grids:
                reason = check_solution(tuple(given), tuple(answer))
                if reason is not None:
                    refused.append((row, reason))
    if not refused:
        return None
    refused.sort()
    table = f"file_{index}"
    kept = {d[0] for d in con.execute(f"SELECT * FROM {table} LIMIT 0").description}
    said = "changed after its run: the checker refuses its answer: "
    if "message" in kept:
        con.executemany(
            f"UPDATE {table} SET status = 'WRONG', message = ? WHERE rowid = ?",
            [(said + reason, row) for row, reason in refused],
        )
    elif "status" in kept:
        con.executemany(
            f"UPDATE {table} SET status = 'WRONG' WHERE rowid = ?", [(row,) for row, _ in refused]
        )
    first, reason = refused[0]
    return (
        f"{path}: changed since its run wrote it (or its run did not end): its answers were "
        f"checked again, {len(refused)} refused and counted WRONG "
        f"(line {_line_of_row(path, first)}: {reason})"
    )


def _digits(text: str, n: int) -> bytes | None:
    """A grid's canonical text as bytes of digits 0..n (``.`` empty), or None when it holds
    another character."""
    from backends.puzzle import canonical_alphabet

    symbols = "." + canonical_alphabet(n) if 1 <= n <= 35 else ""
    if not symbols or text.strip(symbols):
        return None
    return text.encode("ascii").translate(_TABLES.setdefault(n, _table(symbols)))


def _table(symbols: str) -> bytes:
    table = bytearray(range(256))
    for digit, symbol in enumerate(symbols):
        table[ord(symbol)] = digit
    return bytes(table)


#: Per grid side: the ``bytes.translate`` table from canonical symbols to digits.
_TABLES: dict[int, bytes] = {}


def _problem(
    con: duckdb.DuckDBPyConnection, source: str, checks: list[tuple[str, str]], row: int
) -> str:
    """What is wrong with row ``row`` of the file (the first rule of ``checks`` it breaks)."""
    cases = " ".join(f"WHEN NOT coalesce({ok}, false) THEN {bad}" for ok, bad in checks)
    found = con.execute(
        f"SELECT CASE {cases} END FROM (SELECT *, row_number() OVER () - 1 AS _row "
        f"FROM {source}) WHERE _row = {int(row)}"
    ).fetchone()
    return found[0] if found and found[0] else "a cell breaks the rules of a results CSV"


def _refuse_rejects(con: duckdb.DuckDBPyConnection, index: int, path: Path, found: Layout):
    """Raise for the first row DuckDB could not parse, its field count said before a bad
    cell of it (but a torn last line, which :func:`_load` drops: a reject there means the
    torn row is not in the table)."""
    # DuckDB places a reject at the bad cell, at the first extra field, or just past the
    # end of a short row (its newline included); the row begins at line_byte_position
    rejects = con.execute(
        "SELECT greatest(byte_position - 1, line_byte_position), column_name, error_type, "
        f"error_message, csv_line FROM rejects_{index} ORDER BY line, "
        "error_type NOT IN ('MISSING COLUMNS', 'TOO MANY COLUMNS'), byte_position, column_idx"
    ).fetchall()
    whole = [r for r in rejects if r[0] is None or r[0] < found.end]
    torn = [r for r in rejects if r[0] is not None and r[0] >= found.end]
    if whole:
        position, column, kind, message, text = whole[0]
        line = _row_start(path, _line_at(path, position))
        fields = len(next(csv.reader(io.StringIO(text or "", newline="")), []))
        if kind == "CAST" and text and fields != len(found.header):  # DuckDB may not say
            raise ResultsError(
                f"{path}:{line}: {fields} field(s), the header has {len(found.header)}"
            )
        raise ResultsError(f"{path}:{line}: {_reject_reason(column, kind, message)}")
    if torn:  # the torn line was refused, so it is not the table's last row
        found.end = found.size


def _reject_reason(column: str | None, kind: str, message: str) -> str:
    """What DuckDB found wrong with a line, in the words of the other refusals."""
    if kind == "CAST":
        value = re.search(r'string "(.*)" to', message)
        shown = repr(value.group(1)[:40]) if value else "text"
        return f"{column} is {shown}, not {wants(column or '')}"
    counts = re.search(r"Expected Number of Columns: (\d+) Found: (\d+)", message)
    if counts:
        return f"{counts.group(2)} field(s), the header has {counts.group(1)}"
    if kind == "INVALID ENCODING":
        return "not UTF-8 text"
    return _reason(message)


def _reason(error: object) -> str:
    """The first line of a DuckDB error, without its class name."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else "unreadable"
    return re.sub(r"^[A-Za-z ]*Error: ", "", text)


def _line_at(path: Path, position: int | None) -> int:
    """The 1-based line of the file at byte ``position``."""
    if position is None:
        return 1
    lines, left = 1, position
    with open(path, "rb") as handle:
        while left > 0:
            block = handle.read(min(left, 1 << 22))
            if not block:
                break
            lines += block.count(b"\n")
            left -= len(block)
    return lines


def _rows(path: Path) -> Iterator[tuple[int, int, list[str]]]:
    """The rows of the file after its header: the line each begins and ends on, and its
    fields (none for a blank line)."""
    csv.field_size_limit(min(MAX_LINE, sys.maxsize))
    with open(path, newline="", encoding="utf-8", errors="replace") as handle:
        reader = csv.reader(handle)
        next(reader, None)
        line = reader.line_num
        for fields in reader:
            yield line + 1, reader.line_num, fields
            line = reader.line_num


def _line_of_row(path: Path, row: int) -> int:
    """The line on which the file's row ``row`` (0 = the first after the header) begins,
    blank lines skipped as DuckDB skips them."""
    seen, line = -1, 1
    for first, last, fields in _rows(path):
        if fields:
            seen += 1
            if seen == row:
                return first
        line = last
    return line


def _row_start(path: Path, line: int) -> int:
    """The line on which the row holding line ``line`` begins (a quoted cell may run over
    several lines)."""
    for first, last, _ in _rows(path):
        if last >= line:
            return first
    return line


def _to_numbers(con: duckdb.DuckDBPyConnection, table: str, name: str) -> bool:
    """Turn a native statistic's column into numbers when every cell is one (or empty)."""
    c = _ident(name)
    text, numbers = con.execute(
        f"SELECT count({c}), count(TRY_CAST({c} AS DOUBLE)) FROM {table}"
    ).fetchone()
    if text != numbers:
        return False
    con.execute(f"ALTER TABLE {table} ALTER {c} TYPE DOUBLE USING TRY_CAST({c} AS DOUBLE)")
    return True


@dataclass
class Resumable:
    """What a resumed run needs of the rows already in its CSV: the header, how many rows,
    and the resume key of each (:func:`harness.results.schema.row_key`), exactly."""

    header: list[str]
    rows: int
    keys: set[str]

    def done(self, key: tuple[str, ...]) -> bool:
        """Whether the CSV holds a row with this resume key."""
        return KEY_SEPARATOR.join(key) in self.keys


#: Joins the parts of a resume key into one text (no key part holds it: it is a control
#: character a puzzle file, a backend spec or a number never has).
KEY_SEPARATOR = "\x1f"


def resumable(path: Path, limit: int) -> Resumable:
    """The rows of ``path``, which a run with ``limit`` is about to complete.

    Raises :class:`ResultsError` unless it is a results CSV (see :func:`read`) whose rows
    were measured under the same solution limit: with another limit, the same key would
    mean another measurement.
    """
    with read([path], [*KEY_COLUMNS, "limit"], natives=False, vouched=True) as results:
        other = results.con.execute(
            'SELECT min("limit") FROM rows WHERE "limit" <> ?', [limit]
        ).fetchone()[0]
        if other is not None:
            raise ResultsError(
                f"{path}: its rows were measured with --limit-solutions {other}, "
                f"not {limit}; resume with the same limit or choose another --out"
            )
        parts = ", ".join(f"CAST({_ident(c)} AS VARCHAR)" for c in KEY_COLUMNS)
        cursor = results.con.execute(
            f"SELECT concat_ws({_quoted(KEY_SEPARATOR)}, {parts}) FROM rows"
        )
        keys: set[str] = set()
        while batch := cursor.fetchmany(1 << 16):
            keys.update(key for (key,) in batch)
        return Resumable(layout(path).header, results.counts[0], keys)
