"""Worker processes: every solve runs in one, and its limits are enforced from outside.

- :mod:`harness.run.worker.wire`: what crosses the pipes (:class:`Task`, each task's
  :class:`~harness.outcome.Outcome`, the warm-up notices), answers in frames the parent
  checks;
- :mod:`harness.run.worker.measure`: build, warm up, encode and solve inside a worker, timed;
- :mod:`harness.run.worker.child`: a worker process's set-up (none of the parent's files)
  and task loop;
- :mod:`harness.run.worker.output`: the run's log of what workers print, read by the parent,
  capped;
- :mod:`harness.run.worker.reaper`: what a worker starts, in any session, dies with the
  harness, even one killed by SIGKILL, whatever signals it ignores;
- :mod:`harness.run.worker.handle`: the parent's handle on one worker process: clocks, memory,
  stop and kill, with every process it started;
- :mod:`harness.run.worker.pool`: :class:`WorkerPool`, the parent's side: which worker gets
  which task, time and memory limits, replacements, broken warm-ups.
"""

from harness.run.worker.handle import kill_grace
from harness.run.worker.pool import WorkerPool
from harness.run.worker.wire import Task

__all__ = ["Task", "WorkerPool", "kill_grace"]
