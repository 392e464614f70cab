"""How much the scorer moves when a reply's surface changes but its meaning does not.

``robustness_table`` is the seed study's table for one text: the original and each perturbed
version with its four scores and their change. ``robustness_summary`` does the same over many
texts (the test split) and reports, per perturbation and component, the mean absolute change,
the mean signed change and how often the rounded 1–3 level flips.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from empathybench.records import Record
from empathybench.scorer.empathy_scorer import EmpathyScorer, EmpathyScores
from empathybench.scorer.perturbations import PERTURBATIONS, perturb

SCORE_FIELDS = ("cognitive", "emotional", "behavioral", "empathy")

EXAMPLE_TEXT = (
    "I can hear how worn down you are by the arguments at home, and it makes sense that you "
    "feel torn between your parents. It is hard to keep going when the people you love keep "
    "clashing, and feeling stressed about it is completely understandable. Would it help to "
    "plan what you want to say to your mum this weekend, or to find a counsellor you could "
    "talk to about it?"
)
"""The project's own example reply for the one-text table (the seed's text is not reused)."""


class PerturbationRow(Record):
    perturbation: str
    description: str
    text: str
    scores: EmpathyScores
    change: dict[str, float]
    """Score minus the original's score, per field (0 for the original row)."""


def robustness_table(scorer: EmpathyScorer, text: str, *, seed: int = 0) -> list[PerturbationRow]:
    names = list(PERTURBATIONS)
    texts = [text, *(perturb(text, name, seed=seed) for name in names)]
    scores = scorer.score(texts)
    original = scores[0].model_dump()
    rows = [
        PerturbationRow(
            perturbation="original",
            description="None (original text)",
            text=text,
            scores=scores[0],
            change=dict.fromkeys(SCORE_FIELDS, 0.0),
        )
    ]
    for name, modified, score in zip(names, texts[1:], scores[1:], strict=True):
        values = score.model_dump()
        rows.append(
            PerturbationRow(
                perturbation=name,
                description=PERTURBATIONS[name][0],
                text=modified,
                scores=score,
                change={f: round(values[f] - original[f], 4) for f in SCORE_FIELDS},
            )
        )
    return rows


class PerturbationEffect(Record):
    perturbation: str
    description: str
    mean_abs_change: dict[str, float]
    mean_change: dict[str, float]
    level_flip_rate: dict[str, float]
    """Share of texts whose score, rounded to the 1–3 level, changed."""


class RobustnessSummary(Record):
    texts: int
    seed: int
    effects: list[PerturbationEffect]
    mean_abs_change_all: float
    """Mean absolute change over every perturbation, text and field."""


def _matrix(scores: list[EmpathyScores]) -> np.ndarray:
    return np.array([[getattr(s, f) for f in SCORE_FIELDS] for s in scores], dtype=np.float64)


def robustness_summary(
    scorer: EmpathyScorer, texts: Sequence[str], *, seed: int = 0
) -> RobustnessSummary:
    original = _matrix(scorer.score(texts))
    effects = []
    all_changes = []
    for name, (description, _) in PERTURBATIONS.items():
        perturbed = _matrix(scorer.score([perturb(t, name, seed=seed) for t in texts]))
        change = perturbed - original
        all_changes.append(np.abs(change))
        flips = np.rint(perturbed) != np.rint(original)
        effects.append(
            PerturbationEffect(
                perturbation=name,
                description=description,
                mean_abs_change={
                    f: round(float(np.abs(change[:, i]).mean()), 4)
                    for i, f in enumerate(SCORE_FIELDS)
                },
                mean_change={
                    f: round(float(change[:, i].mean()), 4) for i, f in enumerate(SCORE_FIELDS)
                },
                level_flip_rate={
                    f: round(float(flips[:, i].mean()), 4) for i, f in enumerate(SCORE_FIELDS)
                },
            )
        )
    return RobustnessSummary(
        texts=len(texts),
        seed=seed,
        effects=effects,
        mean_abs_change_all=round(float(np.mean(all_changes)), 4),
    )
