"""Puzzles: reading puzzle files, making new ones, and describing them.

- :mod:`.readers`: puzzle files in every accepted layout (one line, grids, CSV, gzip, stdin);
- :mod:`.generate`: the generator behind ``harness generate``;
- :mod:`.catalog`: what ``datasets/`` ships (``harness datasets``);
- :mod:`.rating`: difficulty tiers and explanations (``harness rate``, ``harness explain``).

Called by the runner (to read a run's files) and by the commands named above.
"""
