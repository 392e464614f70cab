import math

import pytest

from empathybench.analysis.statistics import wilson_interval


def test_wilson_matches_the_closed_form() -> None:
    z = 1.959963984540054
    for successes, n in [(0, 10), (7, 10), (99, 100), (50, 100)]:
        p = successes / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        interval = wilson_interval(successes, n)
        assert interval is not None
        assert interval[0] == pytest.approx(max(0.0, centre - half), abs=1e-9)
        assert interval[1] == pytest.approx(min(1.0, centre + half), abs=1e-9)


def test_wilson_edge_cases() -> None:
    assert wilson_interval(0, 0) is None
    low, high = wilson_interval(100, 100) or (0.0, 0.0)
    assert 0.96 < low < 1.0 and high == pytest.approx(1.0)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)
    with pytest.raises(ValueError):
        wilson_interval(1, 2, confidence=1.0)
