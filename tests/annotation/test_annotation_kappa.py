"""Fleiss' kappa against the textbook example and small tables worked out by hand."""

from __future__ import annotations

import pytest

from empathybench.annotation.kappa import fleiss_kappa

# Fleiss (1971)-style worked example as printed in most textbooks and on Wikipedia's
# "Fleiss' kappa" page: 10 subjects, 14 raters each, 5 categories.
# There P̄ = 0.378, P_e = 0.213 and κ = 0.210.
TEXTBOOK = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def test_the_textbook_example() -> None:
    kappa = fleiss_kappa(TEXTBOOK)
    assert kappa is not None
    assert round(kappa, 3) == 0.210


def test_a_small_table_worked_by_hand() -> None:
    # Three items, three raters, yes/no: P_i = 1, 1/3, 1 → P̄ = 7/9; p = 5/9, 4/9 →
    # P_e = 41/81; κ = (7/9 − 41/81) / (1 − 41/81) = 22/40.
    assert fleiss_kappa([[3, 0], [2, 1], [0, 3]]) == pytest.approx(22 / 40)


def test_varying_rater_counts_weight_items_equally() -> None:
    # [2, 0]: P = 1; [1, 2]: P = (1 + 4 − 3) / 6 = 1/3 → P̄ = 2/3; p = 3/5, 2/5 → P_e = 13/25;
    # κ = (2/3 − 13/25) / (12/25) = 11/36. A lone rating ([0, 1]) has no pair and is left out.
    assert fleiss_kappa([[2, 0], [1, 2], [0, 1]]) == pytest.approx(11 / 36)


def test_perfect_and_chance_and_undefined() -> None:
    assert fleiss_kappa([[3, 0, 0], [0, 3, 0], [0, 0, 3]]) == pytest.approx(1.0)
    # every pair disagrees as often as random picks would: below zero
    kappa = fleiss_kappa([[1, 1], [1, 1]])
    assert kappa is not None and kappa < 0
    assert fleiss_kappa([[2, 0], [3, 0]]) is None  # one category only: P_e = 1
    assert fleiss_kappa([[1, 0], [0, 1]]) is None  # no item with two ratings
    assert fleiss_kappa([]) is None


def test_a_ragged_or_negative_table_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="equal length"):
        fleiss_kappa([[2, 0], [1, 1, 0]])
    with pytest.raises(ValueError, match="negative"):
        fleiss_kappa([[3, -1]])
