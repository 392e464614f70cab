"""Turn answers from several sources into a blind survey: ``form.json`` and ``key.json``.

Randomness comes from SHA-256 of the seed and stable names, not from a random number
generator: the same inputs give the same survey on every platform and every Python or numpy
version, and each decision depends only on what it is about.

- Question pick: the eligible questions (answered by every source) are ranked by
  ``sha256("pick", seed, question_id)`` and the first ``k`` are kept, shown in dataset order.
  Adding a source that answers every question therefore leaves the pick unchanged; adding a
  question changes it only if the new question ranks among the first ``k``.
- Letters: on each question the sources are ordered by ``sha256("letter", seed, question_id,
  source)`` and take A, B, C… in that order. A question's letters depend on the seed, that
  question and the sources, never on the other questions, so growing or trimming the pick
  does not reshuffle the questions that stay.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from empathybench.errors import ParameterError, UserError
from empathybench.jsonl import atomic_write_text, canonical_digest, pretty_json, read_json_record
from empathybench.runtime.directory_lock import hold_directory
from empathybench.runtime.output_guard import check_output_directory
from empathybench.runtime.provenance import now_iso
from empathybench.survey.records import (
    FORM_FILE,
    KEY_FILE,
    MAX_SOURCES,
    SURVEY_LETTERS,
    VOTES_FILE,
    KeyEntry,
    SurveyAnswer,
    SurveyForm,
    SurveyItem,
    SurveyKey,
)

ModelT = TypeVar("ModelT", bound=BaseModel)
SURVEY_ID_LENGTH = 12


@dataclass(frozen=True)
class SourceAnswers:
    """Everything one source (a model, or the human psychologist) answered."""

    source: str
    answers: Mapping[str, str]
    """Question id → answer text."""


def _check_sources(sources: Sequence[SourceAnswers]) -> list[str]:
    names = [source.source for source in sources]
    if not 2 <= len(names) <= MAX_SOURCES:
        raise UserError(
            f"a survey needs 2 to {MAX_SOURCES} answer sources (letters "
            f"{SURVEY_LETTERS[0]}–{SURVEY_LETTERS[-1]}), got {len(names)}; "
            "pick which sources to compare"
        )
    for name in names:
        if not name.strip():
            raise UserError("a source has a blank name; give every source a name")
        if names.count(name) > 1:
            raise UserError(f"source {name!r} is given twice; source names must be unique")
    return names


def eligible_questions(
    questions: Sequence[tuple[str, str]], sources: Sequence[SourceAnswers]
) -> list[tuple[str, str]]:
    """The questions every source answered with non-blank text, in dataset order."""
    seen: set[str] = set()
    for question_id, _ in questions:
        if question_id in seen:
            raise UserError(f"question id {question_id!r} appears twice; ids must be unique")
        seen.add(question_id)
    return [
        (question_id, text)
        for question_id, text in questions
        if all(source.answers.get(question_id, "").strip() for source in sources)
    ]


def pick_questions(
    eligible: Sequence[tuple[str, str]], *, k: int, seed: int
) -> list[tuple[str, str]]:
    """``k`` of ``eligible`` by seeded hash rank, returned in their original order."""
    if k < 1:
        raise UserError(f"the survey needs at least 1 question, got k={k}")
    if len(eligible) < k:
        raise UserError(
            f"only {len(eligible)} question(s) are answered by every source, "
            f"fewer than the {k} asked for; lower k or fill in the missing answers"
        )
    ranked = sorted(
        eligible, key=lambda question: (canonical_digest("pick", seed, question[0]), question)
    )
    chosen = {question_id for question_id, _ in ranked[:k]}
    return [question for question in eligible if question[0] in chosen]


def letter_order(sources: Sequence[str], *, seed: int, question_id: str) -> list[str]:
    """The sources in the order they take letters A, B, C… on one question."""
    return sorted(
        sources, key=lambda source: (canonical_digest("letter", seed, question_id, source), source)
    )


def build_survey(
    questions: Sequence[tuple[str, str]],
    sources: Sequence[SourceAnswers],
    *,
    k: int,
    seed: int,
    title: str,
    origin: str | None = None,
    created_at: str | None = None,
) -> tuple[SurveyForm, SurveyKey]:
    """The form raters see and the key that un-blinds it (see the module notes on seeding).

    ``questions`` are ``(question_id, question text)`` in dataset order. ``created_at``
    defaults to now; pass it to rebuild a survey byte for byte.
    """
    names = _check_sources(sources)
    picked = pick_questions(eligible_questions(questions, sources), k=k, seed=seed)
    by_name = {source.source: source for source in sources}
    items: list[SurveyItem] = []
    entries: list[KeyEntry] = []
    for question_id, text in picked:
        order = letter_order(names, seed=seed, question_id=question_id)
        answers = []
        for letter, name in zip(SURVEY_LETTERS, order, strict=False):
            answers.append(SurveyAnswer(letter=letter, text=by_name[name].answers[question_id]))
            entries.append(KeyEntry(question_id=question_id, letter=letter, source=name))
        items.append(SurveyItem(question_id=question_id, question=text, answers=answers))
    survey_id = canonical_digest(
        "survey",
        seed,
        names,
        [
            [question_id, text, [by_name[n].answers[question_id] for n in names]]
            for question_id, text in picked
        ],
    )[:SURVEY_ID_LENGTH]
    form = SurveyForm(
        survey_id=survey_id,
        title=title,
        created_at=created_at if created_at is not None else now_iso(),
        items=items,
    )
    key = SurveyKey(survey_id=survey_id, seed=seed, sources=names, origin=origin, entries=entries)
    return form, key


def _survey_file(directory: Path, name: str) -> Path:
    path = directory / name
    if not path.is_file():
        raise UserError(
            f"{directory}: not a survey directory (no {name}); run empathybench survey build"
        )
    return path


def load_form(directory: Path) -> SurveyForm:
    """``form.json``: all the app that serves raters may read."""
    return read_json_record(_survey_file(directory, FORM_FILE), SurveyForm)


def load_key(directory: Path) -> SurveyKey:
    """``key.json``: which source wrote each letter (for results, never for the rater app)."""
    return read_json_record(_survey_file(directory, KEY_FILE), SurveyKey)


def _existing_survey_id(directory: Path) -> str | None:
    """The id of the survey already in ``directory``; "?" when its files are unreadable."""
    present = [name for name in (FORM_FILE, KEY_FILE) if (directory / name).exists()]
    if not present:
        return None
    try:
        return (
            load_form(directory).survey_id
            if FORM_FILE in present
            else load_key(directory).survey_id
        )
    except UserError:
        return "?"


def _vote_count(directory: Path, survey_id: str) -> int:
    from empathybench.survey.store import VoteStore

    if not (directory / VOTES_FILE).exists():
        return 0
    with VoteStore(directory / VOTES_FILE) as store:
        return store.count(None if survey_id == "?" else survey_id)


def write_survey(
    directory: Path, form: SurveyForm, key: SurveyKey, *, force: bool = False
) -> list[Path]:
    """Write ``form.json`` and ``key.json`` into ``directory``; the paths written.

    Refuses, unless ``force``, to replace a survey that already has votes (they would no
    longer match the letters raters saw) or a different survey's files. With ``force`` the
    old votes stay in ``votes.sqlite`` under their own survey id; they are never deleted.
    """
    if form.survey_id != key.survey_id:
        raise UserError(
            f"form ({form.survey_id}) and key ({key.survey_id}) are from different surveys"
        )
    if directory.exists() and not directory.is_dir():
        raise UserError(f"{directory}: exists and is not a directory")
    check_output_directory(directory, kind="survey", markers=(FORM_FILE,), force=force)
    with hold_directory(directory):
        return _write_survey(directory, form, key, force=force)


def _write_survey(directory: Path, form: SurveyForm, key: SurveyKey, *, force: bool) -> list[Path]:
    existing = _existing_survey_id(directory)
    if existing is not None and not force:
        votes = _vote_count(directory, existing)
        if votes:
            raise ParameterError(
                f"{directory} already holds survey {existing} with {votes} vote(s); "
                "use another directory, or force=True to replace it (votes are kept)",
                parameters=["force"],
            )
        if existing != form.survey_id:
            raise ParameterError(
                f"{directory} already holds a different survey ({existing}); "
                "use another directory, or force=True to replace it",
                parameters=["force"],
            )
    paths = [directory / FORM_FILE, directory / KEY_FILE]
    atomic_write_text(paths[0], pretty_json(form))
    atomic_write_text(paths[1], pretty_json(key))
    return paths
