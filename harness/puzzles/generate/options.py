"""The one record of what ``harness generate`` was asked for, passed whole to every part."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING

from backends import make_backend
from backends.puzzle import SIZES
from harness.puzzles.generate.common import (
    CHECK_BACKEND,
    DEFAULT_BACKEND,
    DEFAULT_ITERATIONS,
    SINGLES_BACKEND,
    GenerateError,
)
from harness.puzzles.generate.hardness import difficulty_tiers
from harness.puzzles.generate.symmetry import check_symmetry

if TYPE_CHECKING:
    from harness.puzzles.generate.pool import Candidate


@dataclass(frozen=True)
class GenerateOptions:
    """What ``harness generate`` was asked for. ``pool=None`` means "no ranking".

    ``symmetry`` names one of :data:`~harness.puzzles.generate.symmetry.SYMMETRIES`; ``difficulty``
    one of :func:`~harness.puzzles.generate.hardness.difficulty_tiers` (None: any); ``adversarial``
    a backend spec whose nodes each candidate climbs for ``iterations`` moves (None: no
    climb). ``check_backend`` proves uniqueness while carving; any correct backend gives the
    same puzzles, so it only changes the speed.
    """

    size: int = 9
    count: int = 1
    seed: int = 0
    pool: int | None = None
    backend: str = DEFAULT_BACKEND
    require_guess: bool = False
    check_backend: str = CHECK_BACKEND
    min_givens: int = 0
    symmetry: str = "none"
    difficulty: str | None = None
    adversarial: str | None = None
    iterations: int = DEFAULT_ITERATIONS

    @property
    def box(self) -> int:
        """The box side of a ``size`` x ``size`` grid."""
        return SIZES[self.size]

    @property
    def ranking_backend(self) -> str:
        """The spec whose nodes rank (and, adversarially, are climbed)."""
        return self.adversarial if self.adversarial is not None else self.backend

    @property
    def filtered(self) -> bool:
        """True when some candidates may be dropped (``require_guess`` or ``difficulty``)."""
        return self.require_guess or self.difficulty is not None

    def validate(self) -> None:
        """Raise :class:`GenerateError` (or the registry's error) naming a bad option."""
        if self.size not in SIZES:
            raise GenerateError(f"size {self.size!r} is not one of {sorted(SIZES)}")
        if self.count < 1:
            raise GenerateError(f"count must be at least 1, got {self.count!r}")
        if self.pool is not None and self.pool < self.count:
            raise GenerateError(f"pool {self.pool!r} is smaller than count {self.count!r}")
        if not 0 <= self.min_givens <= self.size * self.size:
            raise GenerateError(f"min-givens {self.min_givens!r} is out of range")
        check_symmetry(self.symmetry)
        if self.difficulty is not None and self.difficulty not in difficulty_tiers():
            raise GenerateError(
                f"difficulty {self.difficulty!r} is not one of {', '.join(difficulty_tiers())}"
            )
        if self.iterations < 0:
            raise GenerateError(f"iterations must be at least 0, got {self.iterations!r}")
        if self.adversarial is not None and self.backend not in (
            DEFAULT_BACKEND,
            self.adversarial,
        ):
            raise GenerateError(
                f"--adversarial {self.adversarial} ranks by its own nodes; "
                f"drop --backend {self.backend}"
            )
        self._validate_backends()

    def _validate_backends(self) -> None:
        """Every backend the options name exists and is available; the ranking one is
        deterministic."""
        for spec in [self.ranking_backend, self.check_backend, SINGLES_BACKEND]:
            backend = make_backend(spec)  # unknown names and bad options fail here
            reason = type(backend).unavailable_reason()
            if reason is not None:
                raise GenerateError(f"backend {spec!r} is unavailable: {reason}")
        if not type(make_backend(self.ranking_backend)).deterministic:
            raise GenerateError(
                f"backend {self.ranking_backend!r} is not deterministic, so its nodes cannot "
                "rank puzzles reproducibly"
            )

    def command(self) -> str:
        """The ``harness generate`` command line that makes exactly this output."""
        args = ["harness", "generate", "--size", str(self.size), "--count", str(self.count)]
        args += ["--seed", str(self.seed)]
        if self.pool is not None:
            args += ["--pool", str(self.pool)]
        if self.adversarial is None:
            args += ["--backend", self.backend]
        if self.require_guess:
            args.append("--require-guess")
        if self.min_givens:
            args += ["--min-givens", str(self.min_givens)]
        if self.check_backend != CHECK_BACKEND:
            args += ["--check-backend", self.check_backend]
        if self.symmetry != "none":
            args += ["--symmetry", self.symmetry]
        if self.difficulty is not None:
            args += ["--difficulty", self.difficulty]
        if self.adversarial is not None:
            args += ["--adversarial", self.adversarial, "--iterations", str(self.iterations)]
        return shlex.join(args)

    def wanted(self) -> str:
        """What a kept candidate must be, in words ('need a guess', 'are rated easy')."""
        words = []
        if self.require_guess:
            words.append("need a guess")
        if self.difficulty is not None:
            words.append(f"are rated {self.difficulty}")
        return " and ".join(words)

    def qualifies(self, candidate: Candidate) -> bool:
        """True when ``candidate`` passes ``require_guess`` and ``difficulty``."""
        if self.require_guess and candidate.needs_guess is False:
            return False
        return self.difficulty is None or candidate.tier == self.difficulty
