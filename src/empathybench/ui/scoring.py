"""The Score tab's logic without gradio: score one text, flag it, say what went wrong.

The scorer loads lazily (the bundled encoder takes seconds on a CPU) so the app starts fast,
and a lock lets one request at a time use it: on a small machine parallel torch calls only
compete for the same cores, and the first requests would otherwise each load the model.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from empathybench.errors import UserError
from empathybench.scorer import EmpathyScorer, EmpathyScores, load_empathy_scorer, score_responses
from empathybench.scorer.empathy_scorer import BUNDLED_EMPATHY_HEAD
from empathybench.ui.flagging import FlagLog

SCORE_FIELDS: tuple[tuple[str, str], ...] = (
    ("cognitive", "Cognitive empathy"),
    ("emotional", "Emotional empathy"),
    ("behavioral", "Behavioral empathy"),
    ("empathy", "Overall empathy"),
)
"""(EmpathyScores field, label) in display order."""


@dataclass(frozen=True)
class ScoredText:
    """The last text a visitor scored, with its scores: what Flag saves."""

    text: str
    scores: EmpathyScores


def score_cells(scores: EmpathyScores) -> list[str]:
    """The four scores as shown: two decimals, in ``SCORE_FIELDS`` order."""
    return [f"{getattr(scores, field):.2f}" for field, _ in SCORE_FIELDS]


class ScoreService:
    """The offline scorer (bundled, or a trained head) behind one lock."""

    def __init__(self, head_dir: Path | None = None) -> None:
        self.head_dir = head_dir
        self._scorer: EmpathyScorer | None = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        """How flags record the scorer: the head folder, or the bundled head's name."""
        return (
            str(self.head_dir) if self.head_dir is not None else f"bundled:{BUNDLED_EMPATHY_HEAD}"
        )

    def score(self, text: str) -> ScoredText:
        if not text.strip():
            raise UserError("Type or paste a reply first: there is nothing to score.")
        with self._lock:
            if self.head_dir is None:
                [scores] = score_responses([text])
            else:
                if self._scorer is None:
                    self._scorer = load_empathy_scorer(self.head_dir)
                [scores] = score_responses([text], scorer=self._scorer)
        return ScoredText(text=text, scores=scores)


def flag(flags: FlagLog, scored: ScoredText | None, scorer: str) -> None:
    """Save ``scored`` to the flag file; a UserError when nothing was scored yet."""
    if scored is None:
        raise UserError("Score a text first (Submit), then flag it.")
    flags.append(scored.text, scored.scores, scorer)
