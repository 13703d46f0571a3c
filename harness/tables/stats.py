"""Every statistic of results, as DuckDB queries: the one place that says what a figure is.

The queries read a table or view of result rows (:mod:`harness.results.engine`'s ``rows``,
or a pandas DataFrame registered under a name) and come back as plain rows (a list of
dicts, :data:`Table`), which the renderers print and pandas callers turn into DataFrames.

**Puzzles.** With ``--repeat K`` the K rows of one puzzle and backend are first reduced to
one (:func:`per_puzzle`): the median of each number over the repeats, and of the status,
size, givens, solutions and message the first known value by repeat (repeat 0's status), so
every puzzle weighs the same. Two more columns say how much the repeats varied: over the
answered repeats (2 or more), their interquartile range over their median
(``solve_spread``) and the fastest (``solve_fastest``). A puzzle is its run, dataset and
line (a resumed run refuses a dataset that changed, so a line holds one puzzle).

**Summary** (:func:`summary`), one row per group (backend x dataset, and grid size where a
dataset mixes sizes): ``solved`` (SOLVED puzzles) and ``correct`` (checked answers: SOLVED,
and UNSAT where the file says 0 solutions; the harness marks any other UNSAT WRONG) out of
``puzzles`` (every puzzle any backend has a row for in the group's dataset, so a backend
whose rows are missing counts against the puzzles it never ran); a column per other status;
then over the answered puzzles the median, mean and maximum of the solve phase (``solve_s``,
in ms), the median of its CPU time (``cpu_ms``), of the solver's own clock (``own_ms``), of
encoding (``encode_ms``), ``x_fastest`` (the median over the dataset's fastest median), the
repeats' spread (``spread_pct``, ``min_ms``), node counts (median, mean, max); over the
SOLVED puzzles the share solved without a guess and the guesses per puzzle. A TIMEOUT or
WRONG row is never timed as an answer. Unknown values are skipped (a median of nothing is
empty). Rows are sorted by speed within each dataset: most checked answers first, then the
lowest median. DuckDB holds every value a median is taken of, and cannot spill them: each
median of the summary is taken in a query of its own, so ten million rows fit the memory
a reading command has (:data:`harness.results.engine.MEMORY_LIMIT`).

**The report** (:func:`ranking`): per backend, the same counts and times and the penalised
average runtime (PAR-2: an unanswered puzzle counts as twice the timeout), the puzzles on
which it alone was fastest, and a last row for the virtual best solver (per puzzle, the
fastest checked answer of any backend).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from backends.base import COUNTERS, Status
from harness.results.schema import BASE_COLUMNS, MEASURE_COLUMNS

if TYPE_CHECKING:
    import duckdb

#: A table: one dict per row, every dict with the same keys in order.
Table = list[dict[str, Any]]
#: The statuses of a checked answer.
ANSWERED = (Status.SOLVED.value, Status.UNSAT.value)
#: The status columns of the summary, and the statuses each counts.
COUNTED = {
    "unsat": (Status.UNSAT.value,),
    "timeouts": (Status.TIMEOUT.value,),
    "unknown": (Status.UNKNOWN.value,),
    "errors": (Status.ERROR.value, Status.MEMOUT.value),
    "wrong": (Status.WRONG.value,),
    "unavailable": (Status.UNAVAILABLE.value,),
}
#: Columns a puzzle takes from its first row (by repeat) that has them.
FIRST = ("status", "size", "givens", "solutions", "message", "solution", "host", "jobs")
#: Columns that are neither reduced nor kept per puzzle.
NOT_NUMBERS = ("run", "dataset", "line", "puzzle", "backend", "repeat", "limit", "tier")
#: The number columns of a result row.
NUMERIC = (*MEASURE_COLUMNS, *COUNTERS)
#: Columns left out of a summary where no row has a value (no backend reports it).
OPTIONAL = ("cpu_ms", "wall_cpu", "own_ms", "spread_pct", "min_ms")
#: A median wall time over CPU time above this, shown: the solver waited for a CPU (a
#: loaded machine) for a fifth of its time or more. Below it, ``wall_cpu`` is left empty.
LOADED = 1.2
#: The name of the virtual best solver's row in :func:`ranking`.
VBS = "virtual best"


def q(name: str) -> str:
    """``name`` as an SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def literal(text: str) -> str:
    """``text`` as an SQL string literal."""
    return "'" + str(text).replace("'", "''") + "'"


def _in(values: Sequence[str]) -> str:
    return "(" + ", ".join(map(literal, values)) + ")"


ANSWERED_SQL = f"status IN {_in(ANSWERED)}"


def columns_of(con: duckdb.DuckDBPyConnection, source: str) -> list[str]:
    """The columns of a table, view or registered frame."""
    return [d[0] for d in con.execute(f"SELECT * FROM {source} LIMIT 0").description]


def rows(cursor: Any) -> Table:
    """The rows of an executed query as dicts."""
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def numbers(con: duckdb.DuckDBPyConnection, source: str) -> list[str]:
    """The number columns of ``source`` that are reduced over repeats: measures, counters,
    and native statistics held as numbers."""
    found = []
    for name, kind, *_ in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall():
        if name in NUMERIC or (
            name not in BASE_COLUMNS
            and name not in NOT_NUMBERS
            and name not in ("solve_spread", "solve_fastest")
            and kind.split("(")[0] in ("DOUBLE", "FLOAT", "BIGINT", "INTEGER", "HUGEINT", "DECIMAL")
        ):
            found.append(name)
    return found


def per_puzzle(
    con: duckdb.DuckDBPyConnection, source: str = "rows", merge: bool = False, name: str = "puzzles"
) -> str:
    """Create the view ``name``: one row per puzzle and backend of ``source`` (see the
    module), in order of first appearance. With ``merge``, runs are pooled (their puzzles'
    rows reduced together). Returns ``name``."""
    present = columns_of(con, source)
    keys = [k for k in ("run", "dataset", "line", "puzzle", "backend") if k in present]
    if merge or "run" not in present:
        keys = [k for k in keys if k != "run"]
    if "puzzle" in keys and "line" in keys:
        keys.remove("puzzle")  # a line is one puzzle (see the module); the text comes along
    values = numbers(con, source)
    firsts = [c for c in (*FIRST, "puzzle", "tier") if c in present and c not in keys]
    repeats = "repeat" in present and _has_repeats(con, source, keys, merge)
    if not repeats:
        spread = "CAST(NULL AS DOUBLE) AS solve_spread, CAST(NULL AS DOUBLE) AS solve_fastest"
        listed = ", ".join(q(c) for c in [*keys, *values, *firsts])
        con.execute(
            f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT {listed}, {spread} FROM {source}"
        )
        return name
    order = "(repeat, _at)" if "repeat" in present else "_at"  # ties: the first row
    medians = [f"median({q(c)}) AS {q(c)}" for c in values]
    first = [
        f"arg_min({q(c)}, {order}) FILTER (WHERE {q(c)} IS NOT NULL) AS {q(c)}" for c in firsts
    ]
    answered = f"FILTER (WHERE {ANSWERED_SQL} AND solve_s IS NOT NULL)"
    spread = [
        f"CASE WHEN count(solve_s) {answered} > 1 THEN (quantile_cont(solve_s, 0.75) {answered}"
        f" - quantile_cont(solve_s, 0.25) {answered}) / nullif(median(solve_s) {answered}, 0)"
        " END AS solve_spread",
        f"CASE WHEN count(solve_s) {answered} > 1 THEN min(solve_s) {answered}"
        " END AS solve_fastest",
    ]
    listed = ", ".join([*map(q, keys), *medians, *first, *spread])
    group = ", ".join(map(q, keys))
    con.execute(
        f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT * EXCLUDE (_at) FROM (SELECT {listed}, "
        f"min(_at) AS _at FROM (SELECT *, row_number() OVER () AS _at FROM {source}) "
        f"GROUP BY {group}) ORDER BY _at"
    )
    return name


def _has_repeats(
    con: duckdb.DuckDBPyConnection, source: str, keys: Sequence[str], merge: bool
) -> bool:
    """Whether some puzzle has more than one row (repeats, or runs pooled by ``merge``)."""
    if not merge:
        found = con.execute(f"SELECT max(repeat) FROM {source}").fetchone()[0]
        return bool(found)
    group = ", ".join(map(q, keys))
    counted = f"SELECT count(*) AS n FROM {source} GROUP BY {group} HAVING n > 1 LIMIT 1"
    return con.execute(counted).fetchone() is not None


def grouping(con: duckdb.DuckDBPyConnection, source: str = "rows") -> tuple[str, ...]:
    """backend x dataset, and grid size too when a dataset mixes sizes: a median over 4x4
    and 25x25 puzzles together would describe neither."""
    if "size" not in columns_of(con, source):
        return ("backend", "dataset")
    mixed = con.execute(
        f"SELECT count(DISTINCT size) FROM {source} WHERE size IS NOT NULL GROUP BY dataset "
        "ORDER BY 1 DESC LIMIT 1"
    ).fetchone()
    return ("backend", "dataset", "size") if mixed and mixed[0] > 1 else ("backend", "dataset")


def _statistics(present: Sequence[str]) -> dict[str, str]:
    """The aggregates of the summary over a group's puzzles (see the module), by the
    column each makes, in the table's order."""
    ans = f"FILTER (WHERE {ANSWERED_SQL})"
    solved = f"FILTER (WHERE status = {literal(Status.SOLVED.value)})"

    def col(name: str) -> str:
        return q(name) if name in present else "CAST(NULL AS DOUBLE)"

    return {
        "median_ms": f"median({col('solve_s')}) {ans} * 1000",
        "cpu_ms": f"median({col('solve_cpu_s')}) {ans} * 1000",
        "wall_cpu": f"median({col('solve_s')} / nullif({col('solve_cpu_s')}, 0)) {ans}",
        "spread_pct": f"median(solve_spread) {ans} * 100",
        "min_ms": f"median(solve_fastest) {ans} * 1000",
        "own_ms": f"median({col('own_solve_s')}) {ans} * 1000",
        "mean_ms": f"avg({col('solve_s')}) {ans} * 1000",
        "max_ms": f"max({col('solve_s')}) {ans} * 1000",
        "encode_ms": f"median({col('encode_s')}) {ans} * 1000",
        "nodes_median": f"median({col('nodes')}) {ans}",
        "nodes_mean": f"avg({col('nodes')}) {ans}",
        "nodes_max": f"max({col('nodes')}) {ans}",
        "no_guess_pct": f"100.0 * count(*) FILTER (WHERE status = {literal(Status.SOLVED.value)} "
        f"AND {col('guesses')} = 0) / nullif(count({col('guesses')}) {solved}, 0)",
        "guesses_per_puzzle": f"avg({col('guesses')}) {solved}",
    }


def summary(
    con: duckdb.DuckDBPyConnection,
    source: str = "rows",
    by: Sequence[str] | None = None,
    merge: bool = False,
) -> Table:
    """The comparison table of ``source``'s rows (see the module): one row per group
    (default :func:`grouping`, led by ``run`` when several runs are kept apart)."""
    puzzles = per_puzzle(con, source, merge)
    present = columns_of(con, puzzles)
    by = _groups(con, source, present, by, merge)
    others = [k for k in by if k != "backend"]
    counts = [
        f"count(*) FILTER (WHERE status = {literal(Status.SOLVED.value)}) AS solved",
        f"count(*) FILTER (WHERE {ANSWERED_SQL}) AS correct",
        *(f"count(*) FILTER (WHERE status IN {_in(s)}) AS {c}" for c, s in COUNTED.items()),
    ]
    keys = ", ".join(map(q, by))
    planned = _planned(con, puzzles, others)
    statistics = _statistics(present)
    medians = {n: s for n, s in statistics.items() if s.startswith("median(")}  # one query each
    rest = [f"{s} AS {n}" for n, s in statistics.items() if n not in medians]
    aggregates = ", ".join([*counts, *rest])
    query = f"""
        WITH groups AS (
            SELECT {keys}, count(*) AS present, {aggregates}
            FROM {puzzles} GROUP BY {keys}
        )
        SELECT {", ".join(f"g.{q(k)}" for k in by)},
               greatest(g.present, coalesce(p.planned, 0)) AS puzzles,
               g.* EXCLUDE ({keys}, present)
        FROM groups g {planned}
    """
    table = rows(con.execute(query))
    for name, median in medians.items():
        query = f"SELECT {keys}, {median} AS {name} FROM {puzzles} GROUP BY {keys}"
        taken = {tuple(r[k] for k in by): r[name] for r in rows(con.execute(query))}
        for row in table:
            row[name] = taken.get(tuple(row[k] for k in by))
    ordered = [  # the groups' keys and counts as the query gave them, then the statistics
        {**{c: v for c, v in row.items() if c not in statistics}, **{n: row[n] for n in statistics}}
        for row in table
    ]
    return finish(ordered, others)


def _groups(
    con: duckdb.DuckDBPyConnection,
    source: str,
    present: Sequence[str],
    by: Sequence[str] | None,
    merge: bool,
) -> list[str]:
    """The columns a table groups by: ``by`` (default :func:`grouping`), led by ``run`` when
    ``source`` holds several runs kept apart."""
    keys = list(grouping(con, source) if by is None else by)
    several = (
        _count(con, f"SELECT count(DISTINCT run) FROM {source}") > 1 if "run" in present else False
    )
    return ["run", *keys] if several and not merge else keys


def _planned(con: duckdb.DuckDBPyConnection, puzzles: str, others: Sequence[str]) -> str:
    """The join that gives each group its planned puzzles: the distinct puzzles of its
    dataset (and size, run or tier) over every backend."""
    if not others:
        return "LEFT JOIN (SELECT NULL AS planned) p ON false"
    keys = ", ".join(map(q, others))
    identity = "line" if "line" in columns_of(con, puzzles) else "puzzle"
    on = " AND ".join(f"g.{q(k)} IS NOT DISTINCT FROM p.{q(k)}" for k in others)
    return (
        f"LEFT JOIN (SELECT {keys}, count(DISTINCT {identity}) AS planned FROM {puzzles} "
        f"GROUP BY {keys}) p ON {on}"
    )


def _count(con: duckdb.DuckDBPyConnection, query: str) -> int:
    return int(con.execute(query).fetchone()[0] or 0)


def missing(value: object) -> bool:
    """None, or a float NaN: unknown."""
    return value is None or value != value


def sort_key(value: object) -> tuple:
    """A sort key that puts unknown values last."""
    return (True,) if missing(value) else (False, value)


def finish(table: Table, within: Sequence[str]) -> Table:
    """``table`` without the :data:`OPTIONAL` columns no row has, with ``x_fastest`` (the
    row's median over its group's lowest) before ``median_ms``, sorted by speed within each
    ``within`` group: most checked answers first, then the lowest median; ``wall_cpu`` only
    where above :data:`LOADED`."""
    loaded(table)
    for name in OPTIONAL:
        if all(missing(row.get(name)) for row in table):
            for row in table:
                row.pop(name, None)

    def group(row: dict[str, Any]) -> tuple:
        return tuple(sort_key(row[k]) for k in within)

    fastest: dict[tuple, float] = {}
    for row in table:
        median = row["median_ms"]
        if not missing(median) and not (fastest.get(group(row), float("inf")) <= median):
            fastest[group(row)] = median
    ranked = []
    for row in table:
        out: dict[str, Any] = {}
        for name, value in row.items():
            if name == "median_ms":
                best = fastest.get(group(row))
                out["x_fastest"] = _ratio(value, best)
            out[name] = value
        ranked.append(out)
    ranked.sort(  # the backend last: ties in a fixed order, whatever order the groups came
        key=lambda r: (
            *group(r),
            -r["correct"],
            sort_key(r["median_ms"]),
            sort_key(r.get("backend")),
        )
    )
    return ranked


def loaded(table: Table) -> Table:
    """``table`` with its ``wall_cpu`` left empty where at most :data:`LOADED` (a solver
    that had its CPU, or one that works on several threads, whose CPU passes its wall)."""
    for row in table:
        if not missing(row.get("wall_cpu")) and row["wall_cpu"] <= LOADED:
            row["wall_cpu"] = None
    return table


def _ratio(value: float | None, base: float | None) -> float | None:
    if missing(value) or missing(base):
        return None
    if base == 0:
        return None if value == 0 else float("inf")
    return value / base


def native_summary(
    con: duckdb.DuckDBPyConnection,
    source: str = "rows",
    by: Sequence[str] | None = None,
    merge: bool = False,
) -> Table:
    """Medians of each backend's native statistics (numbers) over its answered puzzles, per
    group; a statistic no row of a group reports is left out of it, and a group that
    reports none."""
    puzzles = per_puzzle(con, source, merge)
    present = columns_of(con, puzzles)
    native = [c for c in numbers(con, puzzles) if c not in BASE_COLUMNS]
    if not native:
        return []
    by = _groups(con, source, present, by, merge)
    keys = ", ".join(map(q, by))
    medians = ", ".join(f"median({q(c)}) FILTER (WHERE {ANSWERED_SQL}) AS {q(c)}" for c in native)
    known = " AND ".join(f"{q(k)} IS NOT NULL" for k in by)
    query = f"SELECT {keys}, {medians} FROM {puzzles} WHERE {known} GROUP BY {keys} ORDER BY {keys}"
    table = [r for r in rows(con.execute(query)) if any(not missing(r[c]) for c in native)]
    kept = [c for c in native if any(not missing(r[c]) for r in table)]
    return [{**{k: r[k] for k in by}, **{c: r[c] for c in kept}} for r in table]


def ranking(
    con: duckdb.DuckDBPyConnection, puzzles: str, timeout: float, where: str = "true"
) -> Table:
    """Per backend of the ``puzzles`` (a :func:`per_puzzle` view) that pass ``where``: its
    counts, times and PAR-2, the puzzles on which it alone was fastest; best PAR-2 first
    (ties: lower median), then the virtual best solver's row (see the module)."""
    present = columns_of(con, puzzles)
    ident = "dataset, line" if "line" in present else "dataset, puzzle"
    if "run" in present:
        ident = "run, " + ident
    cpu = "median(solve_cpu_s) FILTER (WHERE ok) * 1000" if "solve_cpu_s" in present else "NULL"
    wall_cpu = "NULL"
    if "solve_cpu_s" in present:
        wall_cpu = "median(solve_s / nullif(solve_cpu_s, 0)) FILTER (WHERE ok)"
    own = "median(own_solve_s) FILTER (WHERE ok) * 1000" if "own_solve_s" in present else "NULL"
    nodes = "median(nodes) FILTER (WHERE ok)" if "nodes" in present else "NULL"
    guesses = "median(guesses) FILTER (WHERE ok)" if "guesses" in present else "NULL"
    wrong, timeout_s = literal(Status.WRONG.value), literal(Status.TIMEOUT.value)
    errors = _in(COUNTED["errors"])
    query = f"""
        WITH p AS (
            SELECT *, {ANSWERED_SQL} AND solve_s IS NOT NULL AS ok,
                   row_number() OVER () AS _order
            FROM {puzzles} WHERE {where}
        ),
        ran AS (
            SELECT backend, min(_order) AS first FROM p
            WHERE status <> {literal(Status.UNAVAILABLE.value)} GROUP BY backend
        ),
        best AS (
            SELECT min(solve_s, 2) FILTER (WHERE ok) AS two,
                   arg_min(backend, solve_s) FILTER (WHERE ok) AS winner
            FROM p GROUP BY {ident}
        ),
        alone AS (
            SELECT winner AS backend, count(*) AS won FROM best
            WHERE len(two) = 1 OR two[2] > two[1] GROUP BY winner
        ),
        virtual AS (
            SELECT count(two[1]) AS _answered, count(*) AS _puzzles,
                   median(two[1]) * 1000 AS _median, avg(two[1]) * 1000 AS _mean,
                   max(two[1]) * 1000 AS _max, avg(coalesce(two[1], 2 * $timeout)) * 1000 AS _par2
            FROM best
        ),
        per AS (
            SELECT backend,
                   count(*) FILTER (WHERE ok) AS answered, count(*) AS puzzles,
                   count(*) FILTER (WHERE status = {timeout_s}) AS timeouts,
                   count(*) FILTER (WHERE status IN {errors}) AS errors,
                   count(*) FILTER (WHERE status = {wrong}) AS wrong,
                   median(solve_s) FILTER (WHERE ok) * 1000 AS median_ms,
                   avg(solve_s) FILTER (WHERE ok) * 1000 AS mean_ms,
                   max(solve_s) FILTER (WHERE ok) * 1000 AS max_ms,
                   avg(CASE WHEN ok THEN solve_s ELSE 2 * $timeout END) * 1000 AS par2_ms,
                   {cpu} AS cpu_median_ms, {wall_cpu} AS wall_cpu, {nodes} AS nodes_median,
                   {guesses} AS guesses_median, {own} AS own_ms
            FROM p GROUP BY backend
        )
        SELECT per.*, coalesce(alone.won, 0) AS fastest_alone, virtual.*
        FROM per JOIN ran USING (backend) LEFT JOIN alone USING (backend) CROSS JOIN virtual
        ORDER BY par2_ms, median_ms NULLS LAST, ran.first
    """
    table = rows(con.execute(query, {"timeout": timeout}))
    if not table:
        return table
    virtual = {name: table[0][name] for name in table[0] if name.startswith("_")}
    table = [{k: v for k, v in r.items() if not k.startswith("_")} for r in table]
    table.append(
        {
            "backend": VBS,
            "answered": virtual["_answered"],
            "puzzles": virtual["_puzzles"],
            "timeouts": 0,
            "errors": 0,
            "wrong": 0,
            "median_ms": virtual["_median"],
            "mean_ms": virtual["_mean"],
            "max_ms": virtual["_max"],
            "par2_ms": virtual["_par2"],
        }
    )
    loaded(table)
    for name in ("own_ms", "wall_cpu"):  # a column no row has
        if all(missing(r.get(name)) for r in table):
            for r in table:
                r.pop(name, None)
    return table


def repeat_spread(con: duckdb.DuckDBPyConnection, puzzles: str, where: str = "true") -> Table:
    """Per backend run with ``--repeat``, over its answered puzzles with 2 or more answered
    repeats: the median of their spread (%) and of their fastest repeat (ms)."""
    query = f"""
        SELECT backend, median(solve_spread) * 100 AS spread_pct,
               median(solve_fastest) * 1000 AS min_ms
        FROM {puzzles} WHERE {where} AND solve_fastest IS NOT NULL AND {ANSWERED_SQL}
        GROUP BY backend ORDER BY backend
    """
    return rows(con.execute(query))


#: The statuses whose messages :func:`failure_lines` sums up.
FAILURES = (Status.WRONG.value, Status.ERROR.value, Status.MEMOUT.value)


def failure_lines(con: duckdb.DuckDBPyConnection, source: str = "rows") -> list[str]:
    """One line per failing status (WRONG, ERROR, MEMOUT): how many rows, and the most
    common reason (messages alike but for their numbers count as one), with an example."""
    query = f"""
        WITH shapes AS (
            SELECT status, regexp_replace(coalesce(message, ''), '[0-9]+([.][0-9]+)?', '#', 'g')
                   AS shape, count(*) AS n, min(coalesce(message, '')) AS example
            FROM {source} WHERE status IN {_in(FAILURES)} GROUP BY ALL
        )
        SELECT status, sum(n) OVER (PARTITION BY status) AS total, n, example FROM shapes
        QUALIFY row_number() OVER (PARTITION BY status ORDER BY n DESC, shape) = 1
    """
    found = {
        status: (total, n, example) for status, total, n, example in con.execute(query).fetchall()
    }
    return [
        f"{status}: {found[status][0]} row(s); most common reason ({found[status][1]}): "
        f"{found[status][2]}"
        for status in FAILURES
        if status in found
    ]


def statuses(
    con: duckdb.DuckDBPyConnection, source: str = "rows", excluding: Sequence[str] = ()
) -> set[str]:
    """The statuses some row has (of a backend not in ``excluding``)."""
    query = f"SELECT DISTINCT status FROM {source}"
    if excluding:
        query += f" WHERE backend NOT IN {_in(excluding)}"
    return {status for (status,) in con.execute(query).fetchall()}


def with_tiers(
    con: duckdb.DuckDBPyConnection, tiers: Sequence[tuple[str, int, str]], source: str = "rows"
) -> str:
    """A view of ``source``'s rows with each puzzle's difficulty tier (``tiers``: dataset,
    line, tier; ``unrated`` for a puzzle it lacks); returns its name."""
    con.execute(
        "CREATE OR REPLACE TEMP TABLE puzzle_tiers (dataset VARCHAR, line BIGINT, tier VARCHAR)"
    )
    if tiers:
        con.executemany("INSERT INTO puzzle_tiers VALUES (?, ?, ?)", list(tiers))
    con.execute(
        f"CREATE OR REPLACE TEMP VIEW tiered AS SELECT r.*, coalesce(t.tier, 'unrated') AS tier "
        f"FROM {source} r LEFT JOIN puzzle_tiers t USING (dataset, line)"
    )
    return "tiered"


def summary_by_tier(
    con: duckdb.DuckDBPyConnection,
    tiers: Sequence[tuple[str, int, str]],
    order: Sequence[str] = (),
    source: str = "rows",
) -> Table:
    """:func:`summary` per backend x dataset x difficulty tier; rows follow ``order``
    within each backend x dataset."""
    table = summary(con, with_tiers(con, tiers, source), by=("backend", "dataset", "tier"))
    rank = {tier: i for i, tier in enumerate(order)}
    return sorted(
        table,
        key=lambda r: (
            sort_key(r["backend"]),
            sort_key(r["dataset"]),
            rank.get(r["tier"], len(rank)),
        ),
    )
