"""The dimensions scored without a judge: Emotion Recognition and Assistance Needed.

An answer the parser cannot read scores 0 on that dimension (the model failed to answer)
and is counted as a parse failure; a response that is an error is not scored at all.
"""

from __future__ import annotations

from dataclasses import dataclass

from empathybench.judging.answer_parser import ParsedAnswer, parse_answer
from empathybench.types import Response, Scenario


@dataclass(frozen=True)
class DeterministicScore:
    scenario_id: str
    epoch: int
    emotion_recognition: float
    assistance_needed: float
    emotion_parsed: bool
    help_parsed: bool
    person_correct: bool | None
    """Group items only: did the model name the person who needs help?"""


def score_deterministic(scenario: Scenario, response: Response) -> DeterministicScore | None:
    if not response.ok or response.text is None:
        return None
    parsed: ParsedAnswer = parse_answer(response.text, scenario.options)
    person_correct = None
    if scenario.kind == "group":
        person_correct = bool(parsed.person) and (
            scenario.focus_person.lower() in (parsed.person or "").lower()
        )
    return DeterministicScore(
        scenario_id=scenario.id,
        epoch=response.epoch,
        emotion_recognition=float(parsed.letter == scenario.correct_letter),
        assistance_needed=float(parsed.needs_help == scenario.expected.help_needed),
        emotion_parsed=parsed.letter is not None,
        help_parsed=parsed.needs_help is not None,
        person_correct=person_correct,
    )
