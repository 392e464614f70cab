"""A small therapy study answered by mock models (no network, no weights)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from empathybench.models.base import ModelRequest
from empathybench.models.mock import MockModel
from empathybench.models.registry import parse_model_id
from empathybench.runner import RunOptions, execute_run
from empathybench.therapy.questions import QuestionSet, TherapyQuestion
from empathybench.therapy.study import QUESTIONS_FILE, Study

QUESTIONS = (
    TherapyQuestion(id="q1", question="I can't stop worrying about my exams.", reference="Study."),
    TherapyQuestion(id="q2", question="My dog died last week.", reference="Get a new dog."),
    TherapyQuestion(id="q3", question="I feel alone since I moved.", reference="Join a club."),
)


def make_study(
    directory: Path,
    models: tuple[str, ...] = ("mock/alpha",),
    answers: dict[str, dict[str, str]] | None = None,
) -> Study:
    """A study of three questions with references, answered by ``models`` and by scripted
    mock models that give ``answers[model][question id]``."""
    study = Study.create_or_open(directory, QuestionSet("tiny", "tiny", QUESTIONS))
    scripted = {name: _scripted(name, by_id) for name, by_id in (answers or {}).items()}
    for model in (*models, *scripted):
        spec = parse_model_id(model)
        asyncio.run(
            execute_run(
                RunOptions(
                    suite=study.question_set(),
                    suite_source=str(directory / QUESTIONS_FILE),
                    spec=spec,
                    run_dir=study.run_dir(spec.id),
                ),
                scripted.get(model),
            )
        )
    return study


def _scripted(model: str, by_id: dict[str, str]) -> MockModel:
    by_question = {q.question: by_id[q.id] for q in QUESTIONS}

    def script(request: ModelRequest, attempt: int) -> str:
        return next(
            text
            for question, text in by_question.items()
            if question in request.messages[-1].content
        )

    return MockModel(parse_model_id(model), script=script)
