"""Tables: result rows reduced to one row per puzzle, summarised and printed.

- :mod:`.table`: what a summary table is: its columns, the statuses it counts, its order;
- :mod:`.rows`: result rows as columns, reduced to one row per puzzle;
- :mod:`.summary`: one row per backend x dataset (times, counts, ratios), in numpy;
- :mod:`.few`: the same summary of a short run's rows in plain Python;
- :mod:`.render`: a table as terminal text or Markdown; :mod:`.humanize`: numbers as people
  read them;
- :mod:`.frames`: the same tables for pandas callers (``harness table``, the report, the gate);
- :mod:`.load`: results CSVs read column by column in compact dtypes (the report, the gate).

Called by ``harness run`` (the tables printed at the end), ``harness table`` and the report.
"""
