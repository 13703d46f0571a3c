"""Where a cluster run solves (no Dask needed here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.run.cluster.target import ClusterError, ClusterTarget


def test_local_needs_at_least_one_worker() -> None:
    """local:0 is refused with the value given."""
    with pytest.raises(ClusterError, match="'local:0'"):
        assert ClusterTarget("local:0").local_workers is None  # never reached: it raises


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        (ClusterTarget("local:3"), (3, "local:3")),
        (ClusterTarget("tcp://h:8786"), (None, "tcp://h:8786")),
        (ClusterTarget(None, Path("s.json")), (None, "scheduler file s.json")),
    ],
)
def test_a_target_names_itself_and_its_local_workers(
    target: ClusterTarget, expected: tuple[int | None, str]
) -> None:
    """A target says how many local workers it starts, and names itself in messages."""
    assert expected == (target.local_workers, str(target))
