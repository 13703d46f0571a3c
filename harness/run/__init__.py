"""Running and measuring: puzzles x backends x repeats become checked, timed rows.

- :mod:`.runner`: the run's configuration, its plan, resume and the loop that writes rows;
  called by ``harness run`` (:mod:`harness.cli.run`);
- :mod:`.worker`: the worker processes in which every solve runs, timed and limited from
  outside;
- :mod:`.cluster`: the same tasks solved on a Dask cluster (``harness run --cluster``).
"""
