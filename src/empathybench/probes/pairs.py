"""Contrastive pairs: one prompt, an empathic and a non-empathic completion.

The bundled set (``contrastive-pairs-v1``) was written for this project: 64 pairs in 8
scenarios where a helper meets a person in need (a courier on a tight route, a listener on a
support forum, a manager whose colleague missed a deadline, ...). The non-empathic side is not
rude: it is task-focused, procedural, self-focused or politely dismissive, so a probe cannot
win by detecting politeness words. Splits are grouped by scenario, so no scenario is seen in
both training and testing.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import Field

from empathybench.errors import UserError
from empathybench.jsonl import read_records
from empathybench.records import Record

BUNDLED_PAIRS = "contrastive-pairs-v1"
DEFAULT_TEST_SCENARIOS = ("support_forum", "clinic_front_desk", "travel_desk")
Contrast = Literal["task_focused", "procedural", "self_focused", "dismissive"]
Side = Literal["empathic", "non_empathic"]

# Words that mark empathy on the surface. Removed from *both* completions of a pair, so a probe
# that still separates the ablated texts is not reading these words.
EMPATHY_KEYWORDS = (
    r"sorry",
    r"feel\w*",
    r"felt",
    r"understand\w*",
    r"hear\w*",
    r"car(?:e|es|ing)",
    r"support\w*",
    r"listen\w*",
    r"sounds?",
    r"courage\w*",
    r"glad",
    r"worr\w*",
    r"hard",
    r"difficult\w*",
    r"exhaust\w*",
    r"lonel\w*",
    r"loss",
    r"grie\w*",
    r"comfort\w*",
    r"sympath\w*",
    r"empath\w*",
    r"safe",
    r"alone",
    r"scar(?:ed|y)",
    r"frighten\w*",
    r"upset\w*",
    r"kind",
    r"thank(?:s| you)",
)
_KEYWORDS = re.compile(r"\b(?:" + "|".join(EMPATHY_KEYWORDS) + r")\b", re.IGNORECASE)


class ContrastivePair(Record):
    id: str = Field(min_length=1)
    scenario: str = Field(min_length=1)
    contrast: Contrast
    """How the non-empathic completion falls short (it is never simply rude)."""
    prompt: str = Field(min_length=1)
    empathic: str = Field(min_length=1)
    non_empathic: str = Field(min_length=1)

    def text_id(self, side: Side) -> str:
        """The id of one completion (``PAIR_ID:empathic``), used to join external scores."""
        return f"{self.id}:{side}"


@dataclass(frozen=True)
class PairSet:
    name: str
    sha256: str
    pairs: tuple[ContrastivePair, ...]

    @property
    def scenarios(self) -> list[str]:
        return sorted({p.scenario for p in self.pairs})


@dataclass(frozen=True)
class Split:
    train: tuple[ContrastivePair, ...]
    test: tuple[ContrastivePair, ...]
    test_scenarios: tuple[str, ...]


def bundled_pairs_path() -> Path:
    return Path(str(resources.files("empathybench") / "data" / "probes" / f"{BUNDLED_PAIRS}.jsonl"))


def load_pairs(source: str | Path | None = None) -> PairSet:
    """The bundled pairs (``None`` or its name) or a JSONL file of ``ContrastivePair``."""
    if source is None or str(source) == BUNDLED_PAIRS:
        path, name = bundled_pairs_path(), BUNDLED_PAIRS
    else:
        path, name = Path(source), str(source)
    pairs = tuple(read_records(path, ContrastivePair))
    ids = [p.id for p in pairs]
    if len(set(ids)) != len(ids):
        raise UserError(f"{path}: pair ids must be unique")
    if len({p.scenario for p in pairs}) < 2:
        raise UserError(f"{path}: need pairs from at least two scenarios to split by scenario")
    return PairSet(name=name, sha256=hashlib.sha256(path.read_bytes()).hexdigest(), pairs=pairs)


def split_by_scenario(pairs: PairSet, test_scenarios: Sequence[str] | None = None) -> Split:
    """Hold out whole scenarios (default: the bundled set's three test scenarios)."""
    known = pairs.scenarios
    chosen = tuple(test_scenarios) if test_scenarios else DEFAULT_TEST_SCENARIOS
    if not test_scenarios and not set(chosen) <= set(known):
        chosen = tuple(known[-max(1, len(known) // 4) :])  # another pair file: its last quarter
    unknown = sorted(set(chosen) - set(known))
    if unknown:
        raise UserError(f"unknown test scenario(s) {', '.join(unknown)}; known: {', '.join(known)}")
    test = tuple(p for p in pairs.pairs if p.scenario in chosen)
    train = tuple(p for p in pairs.pairs if p.scenario not in chosen)
    if not train:
        raise UserError("the split leaves no training pairs: hold out fewer scenarios")
    return Split(train=train, test=test, test_scenarios=tuple(sorted(chosen)))


def scenario_folds(scenarios: Sequence[str]) -> list[tuple[list[int], list[int], str]]:
    """Leave-one-scenario-out folds over rows labelled with ``scenarios``: (train, test, name)."""
    folds = []
    for name in sorted(set(scenarios)):
        test = [i for i, s in enumerate(scenarios) if s == name]
        train = [i for i, s in enumerate(scenarios) if s != name]
        folds.append((train, test, name))
    return folds


def ablate_keywords(text: str) -> str:
    """``text`` without the empathy keywords (whole words), whitespace tidied."""
    stripped = _KEYWORDS.sub("", text)
    stripped = re.sub(r"\s+([,.;:!?])", r"\1", stripped)
    return re.sub(r"\s{2,}", " ", stripped).strip()
