"""The labelled benchmark responses the offline judge is trained and tested on.

The bundled set (``judge-labels-v1``) holds replies to generated benchmark items of every kind
(seed 5150, none from the standard suite), written and labelled by the project with
docs/labelling-guide.md — the same format as the calibration set, plus a ``split`` fixed by
scenario so no scenario is in both the training and the test split.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from empathybench.errors import UserError
from empathybench.judging.calibration import (
    BUNDLED_LABEL_FILES,
    LabelledResponse,
    labels_path,
    load_labels,
)

BUNDLED_JUDGE_LABELS = "judge-labels-v1"


@dataclass(frozen=True)
class JudgeLabelSet:
    name: str
    sha256: str
    records: list[LabelledResponse]


def load_judge_labels(path_or_name: str | None = None) -> JudgeLabelSet:
    name = path_or_name or BUNDLED_JUDGE_LABELS
    path = labels_path(name)
    records = load_labels(name)
    if not any(r.split for r in records):
        raise UserError(f"{name}: records need a 'split' (train/test, fixed by scenario)")
    train = {r.scenario.id for r in records if r.split == "train"}
    leaked = train & {r.scenario.id for r in records if r.split == "test"}
    if leaked:
        raise UserError(f"{name}: scenarios in both splits: {', '.join(sorted(leaked)[:5])}")
    return JudgeLabelSet(
        name=name if name in BUNDLED_LABEL_FILES else path.name,
        sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
        records=records,
    )
