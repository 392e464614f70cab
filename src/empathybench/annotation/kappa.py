"""Fleiss' kappa: how much raters agree with each other beyond what chance would give.

For items i with n_i ratings each, n_ij of them in category j:

- observed agreement on an item, P_i = (Σ_j n_ij² − n_i) / (n_i (n_i − 1)): the share of
  ordered pairs of its ratings that agree;
- P̄ = the mean of P_i over the items;
- p_j = Σ_i n_ij / Σ_i n_i, the share of all ratings in category j, and
  P_e = Σ_j p_j², the agreement two ratings drawn at random would have;
- κ = (P̄ − P_e) / (1 − P_e).

Fleiss (1971) has the same number of raters on every item; with varying numbers this is the
usual generalisation (each item's P_i from its own n_i, items weighted equally), and it is
exactly Fleiss' kappa when every item has the same number of ratings. Items with fewer than
two ratings have no pairs and are left out. κ is undefined (None) when no item has two
ratings or when every rating falls in one category (P_e = 1).

Written out here (a dozen lines) rather than taken from statsmodels, which the project does
not otherwise need and which assumes equal rater counts.
"""

from __future__ import annotations

from collections.abc import Sequence

_EPSILON = 1e-12


def fleiss_kappa(counts: Sequence[Sequence[int]]) -> float | None:
    """κ for a table of ``counts[item][category]`` (see the module notes); None if undefined."""
    rows = [list(row) for row in counts if sum(row) >= 2]
    if not rows:
        return None
    widths = {len(row) for row in rows}
    if len(widths) != 1:
        raise ValueError("every item needs a count for every category (rows of equal length)")
    if any(value < 0 for row in rows for value in row):
        raise ValueError("counts must not be negative")
    agreement = [
        (sum(value * value for value in row) - sum(row)) / (sum(row) * (sum(row) - 1))
        for row in rows
    ]
    observed = sum(agreement) / len(agreement)
    total = sum(sum(row) for row in rows)
    shares = [sum(row[j] for row in rows) / total for j in range(widths.pop())]
    expected = sum(share * share for share in shares)
    if 1.0 - expected < _EPSILON:
        return None
    return (observed - expected) / (1.0 - expected)
