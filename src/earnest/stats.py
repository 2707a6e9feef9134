"""Small-sample statistics shared by live runs, trajectory batteries and reports.

Pass rates use the Wilson score interval: the normal interval collapses at 0% and 100%,
exactly where tuned suites sit.

Example:
    >>> lo, hi = wilson_interval(10, 10)
    >>> round(lo, 3), hi
    (0.722, 1.0)
    >>> pass_hat_k(4, 5, 2)
    0.6
    >>> [round(x, 4) for x in newcombe_interval(56, 70, 48, 80)]
    [0.0524, 0.3339]
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Z95 = 1.959963984540054


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for ``successes`` out of ``n``; ``(0.0, 1.0)`` when ``n == 0``."""
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= n:
        raise ValueError(f"successes={successes} outside 0..{n}")
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def newcombe_interval(s1: int, n1: int, s2: int, n2: int, z: float = Z95) -> tuple[float, float]:
    """Newcombe's hybrid score interval for the difference ``s1/n1 - s2/n2``.

    Built from the two Wilson intervals (Newcombe 1998, method 10), so it stays inside
    ``[-1, 1]`` and behaves at 0% and 100%. ``(-1.0, 1.0)`` when either ``n`` is 0.
    """
    if n1 <= 0 or n2 <= 0:
        return (-1.0, 1.0)
    p1, p2 = s1 / n1, s2 / n2
    l1, u1 = wilson_interval(s1, n1, z)
    l2, u2 = wilson_interval(s2, n2, z)
    d = p1 - p2
    lower = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    upper = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return (max(-1.0, lower), min(1.0, upper))


def pass_at_k(c: int, n: int, k: int) -> float:
    """pass@k = 1 - C(n-c, k) / C(n, k): at least one of k samples passes."""
    if k > n or n <= 0:
        return float("nan")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(c: int, n: int, k: int) -> float:
    """pass^k = C(c, k) / C(n, k): all of k samples pass (tau-bench's reliability metric)."""
    if k > n or n <= 0:
        return float("nan")
    return math.comb(c, k) / math.comb(n, k)


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """Mean with a 95% t-interval (normal for n > 30); ``(mean, lo, hi)``; NaN bounds when n < 2."""
    n = len(values)
    if n == 0:
        return (float("nan"), float("nan"), float("nan"))
    mean = sum(values) / n
    if n < 2:
        return (mean, float("nan"), float("nan"))
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return _t_interval(n, mean, var, z)


def mean_interval_of_sums(
    n: int, total: int, squares: int, scale: int = 1, z: float = Z95
) -> tuple[float, float, float]:
    """:func:`mean_interval` of ``n`` values given as integers of ``1/scale``, from their exact
    ``total`` and sum of ``squares``.

    Integer sums are exact and do not depend on the order the values came in, so the
    interval of a battery scored at once equals the one rebuilt from its shards in any
    order; and a running tally holds three integers, not the values.

    Example:
        >>> [round(x, 4) for x in mean_interval_of_sums(3, 5 + 6 + 7, 25 + 36 + 49, scale=10)]
        [0.6, 0.3516, 0.8484]
    """
    if n == 0:
        return (float("nan"), float("nan"), float("nan"))
    mean = total / (n * scale)  # int / int: correctly rounded
    if n < 2:
        return (mean, float("nan"), float("nan"))
    var = (n * squares - total * total) / (n * (n - 1) * scale * scale)
    return _t_interval(n, mean, var, z)


def _t_interval(n: int, mean: float, var: float, z: float) -> tuple[float, float, float]:
    crit = _t95(n - 1) if n <= 30 else z
    half = crit * math.sqrt(max(var, 0.0) / n)
    return (mean, mean - half, mean + half)


# Two-sided 95% critical values of Student's t for 1..30 degrees of freedom.
# fmt: off
_T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)
# fmt: on


def _t95(df: int) -> float:
    return _T95[min(df, 30) - 1]


__all__ = [
    "mean_interval",
    "mean_interval_of_sums",
    "newcombe_interval",
    "pass_at_k",
    "pass_hat_k",
    "wilson_interval",
]
