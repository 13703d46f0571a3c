"""Numbers as people read them: thousands separators, never scientific notation.

Used by every table the harness prints (terminal, Markdown, HTML) and by the progress line.
An unknown value (None or NaN) is an empty string, never 0.
"""

from __future__ import annotations

import math


def _unknown(value: float | None) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def count(value: float | None) -> str:
    """A whole number with thousands separators: ``33340.0`` -> ``33,340``."""
    if _unknown(value):
        return ""
    return f"{round(float(value)):,}"


def significant(value: float | None, digits: int = 3) -> str:
    """``value`` to ``digits`` significant figures, in plain decimals with separators.

    ``0.0001234`` -> ``0.000123``, ``1234.6`` -> ``1,235`` (a whole part is never cut),
    ``12.345`` -> ``12.3``.
    """
    if _unknown(value):
        return ""
    value = float(value)
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, digits - 1 - magnitude)
    text = f"{value:,.{decimals}f}"
    if abs(float(text.replace(",", ""))) >= 10 ** (magnitude + 1):
        # rounding carried into a new digit (9.996 -> 10.00): one decimal fewer
        text = f"{value:,.{max(0, decimals - 1)}f}"
    return text


def ms(seconds: float | None) -> str:
    """Seconds shown as milliseconds to 3 significant figures: ``0.0123`` -> ``12.3``."""
    return "" if _unknown(seconds) else significant(float(seconds) * 1000)


def ratio(value: float | None) -> str:
    """A factor such as "x fastest": ``1`` -> ``1.00``, ``12.34`` -> ``12.3``."""
    return significant(value)


def duration(seconds: float) -> str:
    """Elapsed or remaining time: ``75`` -> ``1:15``, ``3725`` -> ``1:02:05``."""
    total = max(0, round(seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def plain(value: object) -> str:
    """A number for a machine-readable file: plain decimals, no separators, no exponent."""
    if isinstance(value, float):
        import numpy as np

        return np.format_float_positional(value, trim="-")
    return str(value)


def seconds(value: float) -> str:
    """A duration for a message, to two significant digits: '1.2 ms', '0.35 s', '30 s'."""
    if value <= 0:
        return "0 s"
    unit, scaled = ("s", value) if value >= 0.1 else ("ms", value * 1000)
    rounded = round(scaled, 1 - math.floor(math.log10(scaled)))
    return f"{rounded:g} {unit}" if rounded < 1e6 else f"{rounded:.0f} {unit}"
