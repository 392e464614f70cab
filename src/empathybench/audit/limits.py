"""The audit's defaults and pass thresholds (light to import: the CLI reads them)."""

DEFAULT_TRAIN_N = 3000
DEFAULT_TRAIN_SEED = 424242
"""Fixed so audits repeat; no bundled suite uses it (standard-v1 uses 1729, standard-v2 2718,
standard-v3 1618)."""
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
