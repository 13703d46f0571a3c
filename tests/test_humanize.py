"""Human numbers: separators, 3 significant figures, never scientific notation."""

from __future__ import annotations

import math

import pytest

from harness.tables import humanize


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.000123456, "0.000123"),
        (0.0431, "0.0431"),
        (1.0, "1.00"),
        (9.996, "10.0"),
        (12.345, "12.3"),
        (1234.6, "1,235"),
        (33340.0, "33,340"),
        (0.0, "0"),
        (math.nan, ""),
    ],
)
def test_significant(value: float, text: str) -> None:
    """Three significant figures in plain decimals; NaN is empty."""
    assert text == humanize.significant(value)


def test_ms_and_count() -> None:
    """Seconds show as ms; counts get separators; unknown is empty."""
    assert ("12.3", "2,603,220", "") == (
        humanize.ms(0.0123),
        humanize.count(2603220.0),
        humanize.count(None),
    )


def test_duration() -> None:
    """Minutes and seconds, hours when there are some."""
    assert ("0:05", "1:15", "1:02:05") == tuple(map(humanize.duration, (5, 75, 3725)))


def test_plain_never_uses_an_exponent() -> None:
    """1.23e-07 is written out in full for a CSV."""
    assert "0.000000123" == humanize.plain(1.23e-07)


def test_seconds_in_messages_keep_two_significant_digits() -> None:
    """Durations in messages: 1.2 ms, 0.35 s, 30 s, never 0.001234 s."""
    from harness.tables.humanize import seconds

    assert ["1.2 ms", "0.35 s", "30 s"] == [seconds(0.001234), seconds(0.3512), seconds(30.0)]
