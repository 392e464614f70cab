"""The audit's defaults and pass thresholds (light to import: the CLI reads them)."""

DEFAULT_TRAIN_N = 3000
DEFAULT_TRAIN_SEED = 424242
"""Fixed so audits repeat; no bundled suite uses it (standard-v1 uses 1729, standard-v2 2718,
standard-v3 1618, standard-v4 1414, standard-v5 5151, standard-v6 6161)."""
MAX_TRAIN_N = 200_000
CONFIDENCE = 0.95
"""Of the Wilson score intervals."""

EMOTION_MAX_ACCURACY = 0.43
"""Emotion: the best baseline may reach at most 43% (chance is 1/3)."""
HELP_MAX_MARGIN = 0.05
"""Help: the best baseline may beat the audited suite's majority rate by 5 points at most..."""
HELP_MAX_MAJORITY = 0.60
"""... and that majority rate itself may be at most 60% (yes/no roughly balanced)."""
WHO_MAX_MARGIN = 0.10
"""Who: the best baseline may beat chance (1 / candidates, averaged) by 10 points at most."""

FALSE_FAIL_RATE = 0.05
"""A verdict from the point estimate needs enough items that a baseline truly at the chance
level (the majority rate for help) crosses the limit by sampling alone about this often."""


def min_items(level: float, limit: float) -> int:
    """The fewest items on which the best baseline's point estimate can be judged against
    ``limit``: a baseline that truly sits at ``level`` exceeds the limit by sampling alone
    with probability about ``FALSE_FAIL_RATE`` (one-sided, normal approximation; the exact
    binomial at these counts is 6.4%, 6.6% and 5.5%). That is for one baseline: the best of
    six or seven crosses more often, so the count is a floor. Emotion (1/3 vs 43%): 65
    items; who (1/4 vs 35%): 51; help (majority 57% vs 62%): 266."""
    from math import ceil, sqrt
    from statistics import NormalDist

    margin = limit - level
    if margin <= 0 or not 0 < level < 1:
        return 1
    z = NormalDist().inv_cdf(1 - FALSE_FAIL_RATE)
    return ceil((z * sqrt(level * (1 - level)) / margin) ** 2)
