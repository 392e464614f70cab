"""The labelled responses the empathy scorer learns from (cognitive / emotional / behavioral).

The bundled sets were written and labelled by the project following
docs/scorer-labelling-guide.md: replies to help-seeking messages, each rated 1–3 on the three
components. ``empathy-labels-v2`` holds every ``empathy-labels-v1`` record unchanged plus
replies in the casual peer-support register; ``empathy-labels-v3`` holds v2 unchanged plus
batch ``w2``, written and labelled by a second, independent hand (casual forum register,
length decorrelated from empathy; half its messages are test); ``empathy-labels-v4`` (the
default) holds v3 unchanged plus batches ``w3`` and ``w4`` from two more independent hands
(forum, friend, volunteer, assistant and therapist replies; half their messages are test, salt
``w34-half``); ``empathy-labels-v5`` holds v4 unchanged plus batches ``w5``
(workplace, course, hobby and neighbourhood chats) and ``w6`` (helplines, listener apps and
AI assistants) from two more independent hands, written with lengths as they come (salt
``w56-half``); ``empathy-labels-v6`` holds v5 unchanged plus batches ``w7`` and ``w8``
(peer-support forums, threads and group chats) from two more independent hands (salt
``w78-half``). Each record names
its writing ``batch``. Every record carries a fixed ``split``, assigned by prompt, so no
prompt appears in both the training and the test split.
"""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from empathybench.errors import UserError
from empathybench.jsonl import read_records

COMPONENTS = ("cognitive", "emotional", "behavioral")
BUNDLED_EMPATHY_LABELS = "empathy-labels-v4"
BUNDLED_LABEL_SETS = (
    "empathy-labels-v1",
    "empathy-labels-v2",
    "empathy-labels-v3",
    "empathy-labels-v4",
    "empathy-labels-v5",
    "empathy-labels-v6",
)
"""v1: the first 432 replies; v2: v1 plus 241 replies in the peer-support register; v3: v2
plus the second labeller's batch w2; v4: v3 plus batches w3 and w4 of two more labellers;
v5: v4 plus batches w5 and w6 of two more; v6: v5 plus batches w7 and w8 of two more
(scripts/build_empathy_labels.py)."""
TEST_FRACTION = 0.2
Split = Literal["train", "test"]


class EmpathyLabel(BaseModel):
    """One labelled reply to a help-seeking message."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    id: str
    prompt_id: str
    prompt: str
    response: str
    labels: dict[str, int]
    split: Split = "train"
    topic: str | None = None
    style: str | None = None
    batch: str | None = None
    """The writing batch (v1, v2-a …): cross-validation can hold a whole batch out."""

    @field_validator("labels")
    @classmethod
    def _three_components(cls, labels: dict[str, int]) -> dict[str, int]:
        if set(labels) != set(COMPONENTS) or any(v not in (1, 2, 3) for v in labels.values()):
            raise ValueError("labels must rate cognitive, emotional and behavioral 1, 2 or 3")
        return labels

    @property
    def empathy(self) -> float:
        return sum(self.labels.values()) / len(COMPONENTS)


class LabelSet(BaseModel):
    name: str
    sha256: str
    records: list[EmpathyLabel] = Field(repr=False)

    def part(self, split: str) -> list[EmpathyLabel]:
        return [r for r in self.records if r.split == split]


def bundled_data_path(file_name: str) -> Path:
    return Path(str(resources.files("empathybench") / "data" / "scorer" / file_name))


def load_empathy_labels(path_or_name: str = BUNDLED_EMPATHY_LABELS) -> LabelSet:
    """Read a labels JSONL file (or the bundled set by name); one error line if it is bad."""
    bundled = path_or_name in BUNDLED_LABEL_SETS
    path = bundled_data_path(f"{path_or_name}.jsonl") if bundled else Path(path_or_name)
    if not path.is_file():
        raise UserError(
            f"{path_or_name}: no such labels file (or use {' or '.join(BUNDLED_LABEL_SETS)})"
        )
    records = list(read_records(path, EmpathyLabel))
    data = path.read_bytes()  # the checked file, for its hash
    if not records:
        raise UserError(f"{path}: no labelled responses")
    leaked = {r.prompt_id for r in records if r.split == "test"} & {
        r.prompt_id for r in records if r.split == "train"
    }
    if leaked:
        raise UserError(f"{path}: prompts in both splits: {', '.join(sorted(leaked)[:5])}")
    name = path_or_name if bundled else path.name
    return LabelSet(name=name, sha256=hashlib.sha256(data).hexdigest(), records=records)


def split_for(group: str, *, test_fraction: float = TEST_FRACTION, salt: str = "split-v1") -> Split:
    """``train`` or ``test`` for a group id (a prompt or a scenario), fixed by a hash."""
    digest = hashlib.sha256(f"{salt}:{group}".encode()).digest()
    return "test" if int.from_bytes(digest[:8], "big") / 2**64 < test_fraction else "train"
