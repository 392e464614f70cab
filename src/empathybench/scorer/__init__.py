"""The offline empathy scorer: a frozen sentence encoder with trained regression heads.

``score_responses`` rates replies for cognitive, emotional and behavioral empathy (1–3) and
their mean, in batches; it is usable as a reward function. See docs/scorer.md.
"""

from empathybench.scorer.empathy_scorer import (
    EmpathyScorer,
    EmpathyScores,
    load_empathy_scorer,
    score_responses,
)

__all__ = ["EmpathyScorer", "EmpathyScores", "load_empathy_scorer", "score_responses"]
