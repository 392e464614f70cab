"""A tiny suite and study for the annotation tests: three single-person and three group items."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from empathybench.annotation.records import AnnotationKey, KeyItem
from empathybench.annotation.session import AnnotationSession
from empathybench.records import LETTERS, Scenario
from empathybench.scenarios.generator import generate
from empathybench.scenarios.suites import write_scenarios

GOAL_CANARY = "KEYCANARY-GOAL"
"""The hidden goal of every test item: in key.json, never in form.json or on a page."""


@lru_cache(maxsize=1)
def _generated() -> tuple[Scenario, ...]:
    return tuple(
        generate(6, seed=5, mix={"emotion_support": 0.5, "group": 0.5}, template_version="v1")
    )


def scenarios(template_version: str = "v1") -> list[Scenario]:
    """Six items (3 emotion_support, 3 group) with a canary goal, of ``template_version``."""
    return [
        item.model_copy(update={"goal": GOAL_CANARY, "template_version": template_version})
        for item in _generated()
    ]


def write_suite(path: Path, items: list[Scenario] | None = None) -> Path:
    write_scenarios(path, scenarios() if items is None else items)
    return path


def wrong_letter(letter: str) -> str:
    return next(other for other in LETTERS if other != letter)


def answer_like_key(
    session: AnnotationSession,
    key: AnnotationKey,
    rater: str,
    *,
    wrong_emotion: frozenset[str] = frozenset(),
    wrong_help: frozenset[str] = frozenset(),
) -> None:
    """``rater`` answers every item as the key does, except the items named as wrong."""
    for item in key.items:
        session.answer(rater, item.item_id, *key_answers(item, wrong_emotion, wrong_help))


def key_answers(
    item: KeyItem,
    wrong_emotion: frozenset[str] = frozenset(),
    wrong_help: frozenset[str] = frozenset(),
) -> tuple[str, str, str | None]:
    """(emotion, help, who) as the key has them, flipped for the items named as wrong."""
    emotion: str = item.correct_letter
    if item.item_id in wrong_emotion:
        emotion = wrong_letter(emotion)
    help_needed = item.help_needed != (item.item_id in wrong_help)
    help_ = "yes" if help_needed else "no"
    return emotion, help_, item.who
