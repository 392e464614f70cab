"""A tiny blind survey for the survey tests: three sources, six questions."""

from __future__ import annotations

from empathybench.survey.build import SourceAnswers, build_survey
from empathybench.survey.records import SurveyForm, SurveyKey

CREATED_AT = "2025-01-02T03:04:05+00:00"
# Source names that no answer or question text contains, so "not in form.json" means blind.
SOURCES = ("SRC_HUMAN_PSY", "SRC_MODEL_ONE", "SRC_MODEL_TWO")
QUESTIONS = [
    (f"q{number}", f"Question {number}: I feel stuck, what can I do?") for number in range(1, 7)
]


def make_sources(names: tuple[str, ...] = SOURCES) -> list[SourceAnswers]:
    return [
        SourceAnswers(
            source=name,
            answers={question_id: f"answer {index}-{question_id}" for question_id, _ in QUESTIONS},
        )
        for index, name in enumerate(names)
    ]


def make_survey(*, k: int = 2, seed: int = 7) -> tuple[SurveyForm, SurveyKey]:
    return build_survey(
        QUESTIONS, make_sources(), k=k, seed=seed, title="Tiny survey", created_at=CREATED_AT
    )


def letter_of(key: SurveyKey, question_id: str, source: str) -> str:
    """The letter ``source`` got on ``question_id`` (tests vote by source, not by letter)."""
    return next(
        entry.letter
        for entry in key.entries
        if entry.question_id == question_id and entry.source == source
    )
