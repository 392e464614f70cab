"""A blind survey's inputs from a therapy study: its questions and each source's answers.

Only the first answer (epoch 0) of each source is used, as raters compare one answer per
source. Sources default to the study's: ``human`` (when the questions carry reference
answers) and every model, at most five.
"""

from __future__ import annotations

from empathybench.errors import ParameterError
from empathybench.survey.build import SourceAnswers
from empathybench.survey.records import MAX_SOURCES
from empathybench.therapy.study import Study


def study_survey_inputs(
    study: Study, sources: list[str] | None = None
) -> tuple[list[tuple[str, str]], list[SourceAnswers]]:
    """``(questions in study order, answers per source)`` for ``build_survey``."""
    chosen = sources or study.require().sources()
    if not sources and len(chosen) > MAX_SOURCES:
        raise ParameterError(
            f"{study.directory} has {len(chosen)} sources ({', '.join(chosen)}); a survey "
            f"shows at most {MAX_SOURCES}: choose them with sources",
            parameters=["sources"],
        )
    answers = study.answers(chosen)
    questions = [(q.id, q.question) for q in study.question_set().questions]
    return questions, [
        SourceAnswers(
            source=source,
            answers={key[0]: answer.text for key, answer in by_key.items() if key[1] == 0},
        )
        for source, by_key in answers.items()
    ]
