"""``harness run --against REV``: every backend also runs as it was at git revision REV.

The project's tree at REV is checked out once, detached, in a cached git worktree
(:func:`worktree`: ``$XDG_CACHE_HOME/sudoku-harness/worktrees/<full sha>``, reused by later
runs). Each backend ``SPEC`` asked for gets a twin, ``SPEC@REV`` (REV as the user typed it).
Both sides of the pair are measured the same way (:mod:`harness.run.worker.trees`): each in
a fresh interpreter a worker starts, ``SPEC@REV`` with the ``backends`` of the tree at REV,
``SPEC`` with those of :data:`CURRENT`, warmed up and timed by the same code, on the same
CPU. The plan runs the two one right after the other, old first on one puzzle and new first
on the next (:func:`harness.run.plan.plan`), so load falls on both alike;
:mod:`harness.gate.paired` then judges each pair inside the run.

Everything that can fail is checked before the first solve: a REV git does not know, a tree
at REV without ``backends`` or without one of the backends asked for; each is one line.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import backends
from backends.errors import SudokuError
from harness.results import provenance
from harness.run.config import BackendChoice, RunConfig
from harness.run.worker import trees
from harness.run.worker.handle import WARMUP_TIMEOUT_S
from harness.run.worker.wire import Malformed

#: The tree whose ``backends`` this harness imports: the new side of every pair runs from it.
CURRENT = Path(backends.__file__).resolve().parents[1]


class AgainstError(SudokuError):
    """A revision or tree ``--against`` cannot use; the message says which and why."""


@dataclass(frozen=True)
class Against:
    """The revision a run compares against: as typed, its commit, and its tree."""

    rev: str
    sha: str
    tree: Path
    pairs: dict[str, str]  # SPEC@REV -> SPEC, for each backend the run has twice

    def meta(self) -> dict[str, Any]:
        """What the run's metadata records under ``against``."""
        return {"rev": self.rev, "sha": self.sha, "tree": str(self.tree), "pairs": self.pairs}


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=300
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise AgainstError(f"--against: cannot run git: {exc}") from None


def repository() -> Path:
    """The git checkout whose history ``--against`` reads: the project's own, else the
    current directory's (a harness installed from a checkout that is run from it)."""
    for place in (provenance.PROJECT_ROOT, Path.cwd()):
        done = _git(place, "rev-parse", "--show-toplevel")
        if done.returncode == 0:
            return Path(done.stdout.strip())
    raise AgainstError(
        f"--against: {provenance.PROJECT_ROOT} is not a git checkout, nor is the current "
        "directory; run from a clone of the project"
    )


def resolve(repo: Path, rev: str) -> str:
    """The full sha of the commit ``rev`` names in ``repo``; one line when it names none."""
    if rev.startswith("-"):
        raise AgainstError(f"--against {rev}: not a revision")
    done = _git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
    if done.returncode != 0 or not done.stdout.strip():
        raise AgainstError(f"--against {rev}: no such revision in {repo}")
    return done.stdout.strip()


def cache_root() -> Path:
    """Where checked-out trees are kept: ``$XDG_CACHE_HOME`` (else ``~/.cache``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "sudoku-harness" / "worktrees"


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (two runs preparing one tree take turns)."""
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def worktree(repo: Path, sha: str) -> Path:
    """``repo``'s tree at commit ``sha``, checked out detached in the cache; one already
    there at that commit, with no file changed or added, is reused; anything else at its
    place (an incomplete or changed tree, a file, a symlink) is removed and the tree made
    again."""
    root = cache_root()
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise AgainstError(f"--against: cannot create {root}: {exc.strerror}") from None
    path = root / sha
    with _locked(root / f"{sha}.lock"):
        if _intact(path, sha):
            return path
        if os.path.lexists(path):
            _git(repo, "worktree", "remove", "--force", str(path))
            _remove(path)
        done = _git(repo, "worktree", "add", "--force", "--detach", str(path), sha)
        if done.returncode != 0 or not _intact(path, sha):
            reason = (done.stderr.strip().splitlines() or ["git worktree add failed"])[-1]
            raise AgainstError(f"--against: cannot check out {sha[:12]} in {path}: {reason}")
    return path


def _remove(path: Path) -> None:
    """Remove what is at ``path``: a folder with all it holds, else the file or symlink."""
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise AgainstError(f"--against: cannot remove {path}: {exc.strerror}") from None


def _intact(path: Path, sha: str) -> bool:
    """Whether ``path`` is a checkout of ``sha`` with no tracked file changed and no other
    file in it, ignored or not (any file there may be imported as the old code)."""
    if not path.is_dir() or path.is_symlink() or not (path / ".git").is_file():
        return False
    head = _git(path, "rev-parse", "HEAD")
    status = _git(path, "status", "--porcelain", "--untracked-files=all", "--ignored")
    return head.stdout.strip() == sha and status.returncode == 0 and not status.stdout.strip()


def check_tree(
    tree: Path,
    rev: str,
    specs: list[str],
    timeout: float | None = None,
    memory_mib: float | None = None,
) -> None:
    """Raise :class:`AgainstError` unless the tree's ``backends`` builds every spec and each
    is available there. The check runs in a process of the kind the workers start, isolated
    as a solve is (:class:`~harness.run.worker.trees.TreeProcess`): its own session, killed
    whole after, its output read as it comes and never shown, the limit of a warm-up (the
    run's ``timeout``, at least :data:`~harness.run.worker.handle.WARMUP_TIMEOUT_S`) for
    each spec, and the run's ``memory_mib`` a worker (with what it started)."""
    if not (tree / "backends" / "__init__.py").is_file():
        raise AgainstError(f"--against {rev}: the tree at {rev} has no backends package")
    limit = max(timeout or 0.0, WARMUP_TIMEOUT_S) * max(1, len(specs))
    process = trees.TreeProcess(str(tree), isolated=True)
    try:
        answer = process.ask("check", specs, timeout=limit, memory_mib=memory_mib)
    except MemoryError:
        raise AgainstError(
            f"--against {rev}: the tree at {rev} cannot run: its check held more than "
            f"{memory_mib:g} MiB (--memory-limit)"
        ) from None
    except TimeoutError:
        raise AgainstError(
            f"--against {rev}: the tree at {rev} cannot run: its check gave no answer "
            f"in {limit:g} s"
        ) from None
    except (EOFError, OSError, Malformed):
        reason = process.last_error() or process.death()
        raise AgainstError(f"--against {rev}: the tree at {rev} cannot run: {reason}") from None
    finally:
        process.close()
    problems = answer.get("problems") if type(answer) is dict else None
    if type(problems) is not dict or set(problems) != set(specs):
        raise AgainstError(f"--against {rev}: the tree at {rev} gave its check no answer")
    for spec, problem in problems.items():
        if problem is not None:
            said = str(problem)[:200]
            raise AgainstError(f"--against {rev}: backend {spec} in the tree at {rev}: {said}")


def prepare(
    choices: list[BackendChoice],
    rev: str,
    timeout: float | None = None,
    memory_mib: float | None = None,
) -> tuple[list[BackendChoice], Against]:
    """The run's backends with each available one's twin at ``rev`` after them, and what
    the run compares against. Each twin is routed to the processes of the tree at ``rev``,
    each backend it pairs with to those of :data:`CURRENT`, so both sides are measured
    alike. The tree is checked first (:func:`check_tree`, under the run's ``timeout`` and
    ``memory_mib``)."""
    repo = repository()
    sha = resolve(repo, rev)
    tree = worktree(repo, sha)
    runnable = [c for c in choices if c.unavailable is None]
    check_tree(tree, rev, [c.spec for c in runnable], timeout, memory_mib)
    twins = [BackendChoice(f"{c.spec}@{rev}", c.cls, None) for c in runnable]
    for choice, twin in zip(runnable, twins, strict=True):
        trees.route(twin.spec, choice.spec, tree)
        trees.route(choice.spec, choice.spec, CURRENT)
    pairs = {twin.spec: choice.spec for choice, twin in zip(runnable, twins, strict=True)}
    return [*choices, *twins], Against(rev, sha, tree, pairs)


def configure(config: RunConfig, rev: str) -> RunConfig:
    """``config`` with each backend's twin at ``rev`` (see :func:`prepare`) and the
    revision in its metadata; refuses what ``--against`` cannot do."""
    if config.cluster is not None:
        raise AgainstError("--against runs on local workers; leave out --cluster")
    if config.resume:
        raise AgainstError("--against cannot --resume a run; start it again with a new --out")
    choices, against = prepare(list(config.backends), rev, config.timeout, config.memory_limit_mib)
    return dataclasses.replace(config, backends=choices, against=against.meta())
