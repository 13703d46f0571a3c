"""One run that measures several commits: ``harness history run`` (and each step of
``harness history find``).

Each commit's tree is checked out once in the worktree cache ``--against`` keeps
(:func:`harness.run.against.worktree`), and each backend ``SPEC`` asked for runs once per
commit as ``SPEC@<sha>`` (the first 12 hex digits), its solves routed to a process that
imports ``backends`` from that tree (:mod:`harness.run.worker.trees`). They are backends of
one run, so the runner's per-puzzle order, shuffled with the seed, interleaves every commit
puzzle by puzzle, and load falls on all of them alike. The run's metadata records under
``history`` which backend is which commit (sha, date, subject), for ``harness history``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.history.git import Commit, HistoryError
from harness.run.config import BackendChoice, RunConfig
from harness.run.worker import trees

#: Hex digits of a commit's sha in its backends' names.
SHORT = 12


def twin(spec: str, sha: str) -> str:
    """The name of backend ``spec`` as it was at commit ``sha``."""
    return f"{spec}@{sha[:SHORT]}"


def _reworded(error: Exception) -> str:
    """An ``--against`` message as history's (the option is not this command's)."""
    return re.sub(r"^--against( \S+)?: ", "", str(error))


def prepare(
    repo: Path, commits: Sequence[Commit], choices: Sequence[BackendChoice]
) -> tuple[list[BackendChoice], dict[str, Any]]:
    """Each available backend of ``choices`` once per commit, routed to its tree, and what
    the run's metadata records under ``history``."""
    from harness.run import against

    runnable = [c for c in choices if c.unavailable is None]
    specs = [c.spec for c in runnable]
    twins: list[BackendChoice] = []
    named: dict[str, dict[str, str]] = {}
    for commit in commits:
        try:
            tree = against.worktree(repo, commit.sha)
            against.check_tree(tree, commit.short, specs)
        except against.AgainstError as exc:
            raise HistoryError(f"commit {commit.short}: {_reworded(exc)}") from None
        for choice in runnable:
            name = twin(choice.spec, commit.sha)
            trees.route(name, choice.spec, tree)
            twins.append(BackendChoice(name, choice.cls, None))
            named[name] = {"spec": choice.spec, "sha": commit.sha}
    meta = {
        "commits": {c.sha: {"date": c.date, "subject": c.subject} for c in commits},
        "backends": named,
    }
    return twins, meta


def configure(config: RunConfig, repo: Path, commits: Sequence[Commit]) -> RunConfig:
    """``config`` with its backends replaced by their twins at each of ``commits``."""
    if not commits:
        raise HistoryError("no commit to measure")
    twins, meta = prepare(repo, commits, config.backends)
    if not twins:
        raise HistoryError("no backend asked for is available here")
    return dataclasses.replace(config, backends=twins, history=meta)
