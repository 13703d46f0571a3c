"""``harness history``: how each backend's time and search effort moved from commit to commit.

- :mod:`.git`: revisions, ranges, commit dates and subjects, commit order;
- :mod:`.runs`: the runs in a results folder, each backend tied to the commit it measured,
  by machine class and in commit order;
- :mod:`.trends`: per-commit figures and the steps between neighbouring commits, in SQL on
  the results engine;
- :mod:`.render`: a history as text, Markdown, CSV or JSON;
- :mod:`.measure`: one run that measures several commits, interleaved puzzle by puzzle;
- :mod:`.bisect`: the first commit where a backend became slower, or its counters changed;
- :mod:`.page`: the trends as one HTML page.

The results folder is the record: each run's CSV and ``.meta.json``.
"""
