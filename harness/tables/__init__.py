"""Tables: what results say, as figures people read.

- :mod:`.stats`: every statistic (per puzzle, per backend and dataset, the report's ranking
  with PAR-2 and the virtual best solver) as DuckDB queries;
- :mod:`.render`: a table as terminal text, Markdown, CSV or JSON; :mod:`.humanize`: numbers
  as people read them.

Called by ``harness run`` (the tables printed at the end), ``harness table``, the report and
the gate.
"""
