"""Coherence checks on completions."""

from __future__ import annotations

import math

import pytest

from empathybench.probes.coherence import check_text, is_coherent, perplexity


def test_checks_and_coherence() -> None:
    empty = check_text("  \n", [5, 6])
    assert empty.empty and empty.distinct_1 is None
    loop = check_text("the the the the", [7, 7, 7, 7, 7, 7])
    assert loop.distinct_1 == 0.25 and loop.repetition == 0.75
    assert not is_coherent(loop.empty, loop.repetition, 3.0, 10.0)
    assert not is_coherent(True, 0.0, 3.0, 10.0)
    assert not is_coherent(False, 0.0, 30.0, 10.0)
    assert is_coherent(False, 0.1, 3.0, 10.0)
    assert perplexity(math.log(4.0)) == pytest.approx(4.0)
    assert perplexity(math.nan) is None
