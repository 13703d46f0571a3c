"""What ``harness history`` asks git: revisions, ranges, each commit's date and subject, and
the order of commits.

Every question goes to the checkout :func:`harness.run.against.repository` names (the
project's own, else the current directory's). A revision git does not know, or a range
whose ends are not one line of history, is a :class:`HistoryError` naming it.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from backends.errors import SudokuError


class HistoryError(SudokuError):
    """Input ``harness history`` cannot use: the message says which and why, in one line."""


@dataclass(frozen=True)
class Commit:
    """One commit: its full sha, its committer date (ISO 8601) and its subject line."""

    sha: str
    date: str | None = None
    subject: str | None = None

    @property
    def short(self) -> str:
        return self.sha[:10]

    def meta(self) -> dict[str, str | None]:
        return {"sha": self.sha, "date": self.date, "subject": self.subject}


def git(repo: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run git in ``repo``; a git that cannot run at all is a :class:`HistoryError`."""
    try:
        return subprocess.run(
            ["git", "-C", str(repo), *args],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=300,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise HistoryError(f"cannot run git: {exc}") from None


def repository() -> Path:
    """The git checkout whose history is measured (see the module)."""
    from harness.run.against import AgainstError, repository

    try:
        return repository()
    except AgainstError:
        raise HistoryError(
            "history needs a git checkout: run it from a clone of the project"
        ) from None


def resolve(repo: Path, rev: str) -> str:
    """The full sha of the commit ``rev`` names."""
    if not rev or rev.startswith("-"):
        raise HistoryError(f"{rev!r}: not a revision")
    done = git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
    if done.returncode != 0 or not done.stdout.strip():
        raise HistoryError(f"{rev}: no such revision in {repo}")
    return done.stdout.strip()


def ancestry(repo: Path, good: str, bad: str) -> list[str]:
    """The commits after ``good`` up to ``bad`` (full shas, oldest first) on the paths from
    one to the other, as ``git rev-list --ancestry-path`` lists them; ``good`` must be an
    ancestor of ``bad``."""
    if git(repo, "merge-base", "--is-ancestor", good, bad).returncode != 0:
        raise HistoryError(f"{good[:10]} is not an ancestor of {bad[:10]}: no range between them")
    done = git(repo, "rev-list", "--reverse", "--topo-order", "--ancestry-path", f"{good}..{bad}")
    if done.returncode != 0:
        raise HistoryError(f"git rev-list {good[:10]}..{bad[:10]} failed: {done.stderr.strip()}")
    return done.stdout.split()


def revisions(repo: Path, text: str) -> list[str]:
    """The commits REVS names, oldest first, each once: ``A..B`` is A and every commit after
    it up to B (A's descendants that are B's ancestors), ``A,B,C`` those commits as given."""
    if ".." in text:
        first, _, last = text.partition("..")
        if first.endswith(".") or last.startswith("."):
            raise HistoryError(f"{text}: give a range as A..B (two dots), or a list as A,B,C")
        good, bad = resolve(repo, first.strip()), resolve(repo, last.strip())
        if good == bad:
            return [good]
        return [good, *ancestry(repo, good, bad)]
    found: list[str] = []
    for rev in (r.strip() for r in text.split(",")):
        if not rev:
            raise HistoryError(f"{text!r}: an empty revision in the list")
        sha = resolve(repo, rev)
        if sha not in found:
            found.append(sha)
    return found


def spaced(shas: Sequence[str], steps: int | None) -> list[str]:
    """At most ``steps`` of ``shas``, evenly spaced, the first and the last always kept."""
    if steps is None or len(shas) <= steps:
        return list(shas)
    if steps == 1:
        return [shas[-1]]
    picks = sorted({round(i * (len(shas) - 1) / (steps - 1)) for i in range(steps)})
    return [shas[i] for i in picks]


def known(repo: Path | None, shas: Iterable[str]) -> list[str]:
    """Those of ``shas`` that name a commit ``repo`` holds."""
    shas = list(dict.fromkeys(shas))
    if repo is None or not shas:
        return []
    done = git(repo, "cat-file", "--batch-check", stdin="".join(f"{s}\n" for s in shas))
    if done.returncode != 0:
        return []
    found = []
    for sha, line in zip(shas, done.stdout.splitlines(), strict=False):
        parts = line.split()
        if len(parts) >= 2 and parts[1] == "commit":
            found.append(sha)
    return found


def describe(repo: Path | None, shas: Iterable[str]) -> dict[str, Commit]:
    """Date and subject of each of ``shas`` ``repo`` holds."""
    present = known(repo, shas)
    if not present or repo is None:
        return {}
    done = git(
        repo,
        "log",
        "--no-walk=unsorted",
        "--format=%H%x00%cI%x00%s",
        "--stdin",
        stdin="".join(f"{s}\n" for s in present),
    )
    found = {}
    for line in done.stdout.splitlines():
        parts = line.split("\0")
        if len(parts) == 3:
            found[parts[0]] = Commit(parts[0], parts[1], parts[2])
    return found


def topological(repo: Path | None, shas: Iterable[str]) -> list[str] | None:
    """``shas`` in git's commit order, oldest first (a commit after its parents), or None
    unless ``repo`` holds every one of them."""
    shas = list(dict.fromkeys(shas))
    if repo is None or len(known(repo, shas)) != len(shas):
        return None
    if len(shas) < 2:
        return shas
    done = git(
        repo,
        "rev-list",
        "--topo-order",
        "--reverse",
        "--stdin",
        stdin="".join(f"{s}\n" for s in shas),
    )
    if done.returncode != 0:
        return None
    wanted = set(shas)
    return [sha for sha in done.stdout.split() if sha in wanted]


def commits(repo: Path, shas: Sequence[str]) -> list[Commit]:
    """Each of ``shas`` with its date and subject."""
    found = describe(repo, shas)
    return [found.get(sha, Commit(sha)) for sha in shas]
