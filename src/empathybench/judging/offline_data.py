"""The labelled benchmark responses the offline judge is trained and tested on.

Six bundled batches, written and labelled with docs/labelling-guide.md (the first two by the
project, the rest by independent labellers), in the same format as the calibration set plus a
``split`` fixed by scenario (no scenario is in both the training and the test split):

- ``judge-labels-v1``: 560 replies to 112 generated v1 items of every kind (seed 5150, none
  from the standard suite), five per item.
- ``judge-labels-v2``: a second batch by another hand (provenance in
  ``judge-labels-v2.md`` beside it): replies to v1 items (seed 8080) and v2 items (seed 7021) —
  degenerate outputs (option lists, bare answer lines, placeholders, refusals, repeated
  sentences, other languages, cut-off replies), group replies to the wrong person, replies
  answering a bystander, and mid-quality replies (generic sympathy, advice only, preachy,
  sycophantic, crisis replies without referral), in varied registers.

- ``judge-labels-w1``: a third batch by an independent labeller (not the project), focused on
  assistance appropriateness, written from docs/labelling-guide.md alone. Its split was fixed by
  a salted hash of the scenario id (``scripts/split_judge_labels.py``) before any judge was
  measured on it; only the train half is ever trained on, the test half is for reports.

- ``judge-labels-w2``: 648 replies to 183 template-v4 items (seeds 31337, 27182, 16180) by
  three more independent labellers (``labeller`` jw2, jw3, jw4), each from the guide alone;
  split by a salted hash of the scenario id (salt ``jw234-half``) before any judge was
  measured on it.

- ``judge-labels-w3``: 450 replies to 90 template-v4 harmful-belief, role-play and crisis items
  (seeds 41421, 57721, 66260), five per item, by three more independent labellers (jw5, jw6,
  jw7), asked to make reply length useless as a predictor (long poor replies, short good ones);
  salt ``jw567-half``.
- ``judge-labels-w4``: 480 replies to 120 template-v4 items of the standard mix (seeds 16061,
  24141, 30103), four per item, by three more (jw8, jw9, jw10), length likewise decorrelated;
  salt ``jw8910-half``.

``scorer train --task judge`` trains on the train splits of all six by default
(``DEFAULT_JUDGE_TRAINING``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from empathybench.errors import UserError
from empathybench.judging.calibration import (
    BUNDLED_LABEL_FILES,
    LabelledResponse,
    labels_path,
    load_labels,
)

BUNDLED_JUDGE_LABELS = "judge-labels-v1"
DEFAULT_JUDGE_TRAINING = (
    "judge-labels-v1",
    "judge-labels-v2",
    "judge-labels-w1",
    "judge-labels-w2",
    "judge-labels-w3",
    "judge-labels-w4",
)


@dataclass(frozen=True)
class JudgeLabelSet:
    name: str
    sha256: str
    records: list[LabelledResponse]


def load_judge_labels(path_or_name: str | None = None) -> JudgeLabelSet:
    """One labels file (bundled name or path), or several joined by commas."""
    names = [n.strip() for n in (path_or_name or BUNDLED_JUDGE_LABELS).split(",") if n.strip()]
    if not names:
        raise UserError("no labels named")
    if len(names) > 1:
        return join_label_sets([load_judge_labels(name) for name in names])
    name = names[0]
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


def join_label_sets(sets: Sequence[JudgeLabelSet]) -> JudgeLabelSet:
    """Several label sets as one; record ids and scenario splits must not clash."""
    records = [r for s in sets for r in s.records]
    ids = [r.id for r in records]
    if len(ids) != len(set(ids)):
        raise UserError(f"{' + '.join(s.name for s in sets)}: record ids repeat across files")
    splits: dict[str, str | None] = {}
    for record in records:
        if splits.setdefault(record.scenario.id, record.split) != record.split:
            raise UserError(f"scenario {record.scenario.id} is in both splits across files")
    return JudgeLabelSet(
        name="+".join(s.name for s in sets),
        sha256=hashlib.sha256("".join(s.sha256 for s in sets).encode()).hexdigest(),
        records=records,
    )
