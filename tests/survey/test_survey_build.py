"""Building a blind survey: seeded and stable pick and letters, eligibility, blind form file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from empathybench.errors import UserError
from empathybench.survey.build import (
    SourceAnswers,
    build_survey,
    load_form,
    load_key,
    write_survey,
)
from empathybench.survey.records import FORM_FILE, KEY_FILE, SURVEY_LETTERS, SurveyForm, SurveyKey
from empathybench.survey.session import SurveySession
from tests.survey.survey_helpers import (
    CREATED_AT,
    QUESTIONS,
    SOURCES,
    letter_of,
    make_sources,
    make_survey,
)


def _picked(form: SurveyForm) -> list[str]:
    return [item.question_id for item in form.items]


def _order(key: SurveyKey, question_id: str) -> list[str]:
    entries = sorted(
        (e for e in key.entries if e.question_id == question_id), key=lambda e: e.letter
    )
    return [entry.source for entry in entries]


def _build(
    sources: list[SourceAnswers], *, k: int = 3, seed: int = 7
) -> tuple[SurveyForm, SurveyKey]:
    return build_survey(QUESTIONS, sources, k=k, seed=seed, title="t", created_at=CREATED_AT)


def test_same_seed_writes_identical_bytes(tmp_path: Path) -> None:
    for name in ("one", "two"):
        write_survey(tmp_path / name, *make_survey(k=3, seed=11))
    for file in (FORM_FILE, KEY_FILE):
        assert (tmp_path / "one" / file).read_bytes() == (tmp_path / "two" / file).read_bytes()


def test_different_seeds_change_the_pick_or_the_letters() -> None:
    surveys = [make_survey(k=3, seed=seed) for seed in range(6)]
    layouts = {
        (tuple(_picked(form)), tuple(tuple(_order(key, q)) for q in _picked(form)))
        for form, key in surveys
    }
    assert len(layouts) == 6
    assert len({tuple(_picked(form)) for form, _ in surveys}) > 1
    assert len({form.survey_id for form, _ in surveys}) == 6


def test_picked_questions_keep_dataset_order_and_letters_are_a_permutation() -> None:
    form, key = make_survey(k=4, seed=3)
    dataset_order = [question_id for question_id, _ in QUESTIONS]
    assert _picked(form) == sorted(_picked(form), key=dataset_order.index)
    for item in form.items:
        assert [answer.letter for answer in item.answers] == list(SURVEY_LETTERS[: len(SOURCES)])
        assert sorted(_order(key, item.question_id)) == sorted(SOURCES)
        for answer in item.answers:
            source = _order(key, item.question_id)[SURVEY_LETTERS.index(answer.letter)]
            index = SOURCES.index(source)
            assert answer.text == f"answer {index}-{item.question_id}"


def test_letters_differ_between_questions_for_some_seed() -> None:
    form, key = make_survey(k=6, seed=5)
    assert len({tuple(_order(key, item.question_id)) for item in form.items}) > 1


def test_a_question_keeps_its_letters_when_the_pick_grows() -> None:
    small_form, small_key = _build(make_sources(), k=2)
    large_form, large_key = _build(make_sources(), k=4)
    assert set(_picked(small_form)) < set(_picked(large_form))
    for question_id in _picked(small_form):
        assert _order(small_key, question_id) == _order(large_key, question_id)


def test_adding_a_full_source_keeps_the_pick_and_the_relative_letter_order() -> None:
    form, key = _build(make_sources())
    wider_form, wider_key = _build(make_sources((*SOURCES, "SRC_MODEL_NEW")))
    assert _picked(wider_form) == _picked(form)
    for question_id in _picked(form):
        kept = [s for s in _order(wider_key, question_id) if s != "SRC_MODEL_NEW"]
        assert kept == _order(key, question_id)


def test_only_questions_every_source_answered_are_eligible() -> None:
    sources = make_sources()
    partial = dict(sources[1].answers)
    partial["q2"] = "   "
    del partial["q5"]
    sources[1] = SourceAnswers(source=sources[1].source, answers=partial)
    form, _ = _build(sources, k=4)
    assert _picked(form) == ["q1", "q3", "q4", "q6"]
    with pytest.raises(UserError, match=r"only 4 question\(s\) are answered by every source"):
        _build(sources, k=5)


@pytest.mark.parametrize(
    ("names", "k", "message"),
    [
        (SOURCES[:1], 2, "needs 2 to 5 answer sources"),
        ((*SOURCES, "s4", "s5", "s6"), 2, r"needs 2 to 5 answer sources .*, got 6;"),
        ((SOURCES[0], SOURCES[0]), 2, "is given twice"),
        ((SOURCES[0], " "), 2, "blank name"),
        (SOURCES, 0, "at least 1 question"),
    ],
)
def test_bad_inputs_are_one_clear_error(names: tuple[str, ...], k: int, message: str) -> None:
    with pytest.raises(UserError, match=message) as caught:
        _build(make_sources(names), k=k)
    assert "\n" not in str(caught.value)


def test_duplicate_question_ids_are_refused() -> None:
    with pytest.raises(UserError, match="appears twice"):
        build_survey([*QUESTIONS, QUESTIONS[0]], make_sources(), k=1, seed=0, title="t")


def test_form_file_names_no_source_and_key_file_names_them_all(
    survey: tuple[Path, SurveyForm, SurveyKey],
) -> None:
    directory, form, key = survey
    form_text = (directory / FORM_FILE).read_text(encoding="utf-8")
    for name in SOURCES:
        assert name not in form_text
    key_text = (directory / KEY_FILE).read_text(encoding="utf-8")
    assert all(name in key_text for name in SOURCES)
    assert load_form(directory) == form and load_key(directory) == key
    assert json.loads(form_text)["survey_id"] == key.survey_id


def test_survey_id_follows_content_not_title_or_time() -> None:
    form, _ = make_survey()
    retitled, _ = build_survey(QUESTIONS, make_sources(), k=2, seed=7, title="Other")
    assert retitled.survey_id == form.survey_id and len(form.survey_id) == 12
    sources = make_sources()
    picked = form.items[0].question_id
    changed = {**sources[0].answers, picked: "a different answer"}
    sources[0] = SourceAnswers(source=sources[0].source, answers=changed)
    edited, _ = build_survey(QUESTIONS, sources, k=2, seed=7, title="Tiny survey")
    assert edited.survey_id != form.survey_id


def test_write_refuses_another_survey_unless_forced(
    survey: tuple[Path, SurveyForm, SurveyKey],
) -> None:
    directory, form, key = survey
    write_survey(directory, form, key)  # the same survey again is harmless
    other_form, other_key = make_survey(seed=99)
    with pytest.raises(UserError, match="already holds a different survey"):
        write_survey(directory, other_form, other_key)
    write_survey(directory, other_form, other_key, force=True)
    assert load_form(directory).survey_id == other_form.survey_id


def test_write_refuses_a_survey_with_votes_and_force_keeps_the_votes(
    survey: tuple[Path, SurveyForm, SurveyKey],
) -> None:
    directory, form, key = survey
    question = form.items[0].question_id
    with SurveySession.open(directory) as session:
        session.vote(
            "ann",
            question,
            letter_of(key, question, SOURCES[0]),
            letter_of(key, question, SOURCES[1]),
        )
    with pytest.raises(UserError, match="with 1 vote"):
        write_survey(directory, form, key)
    other_form, other_key = make_survey(seed=99)
    write_survey(directory, other_form, other_key, force=True)
    with SurveySession.open(directory) as session:
        assert session.store.count(form.survey_id) == 1
        assert session.progress("ann") == (0, len(other_form.items))


def test_write_refuses_mismatched_form_and_key(tmp_path: Path) -> None:
    form, _ = make_survey(seed=1)
    _, key = make_survey(seed=2)
    with pytest.raises(UserError, match="different surveys"):
        write_survey(tmp_path / "s", form, key)


def test_loading_a_directory_that_is_not_a_survey_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(UserError) as caught:
        load_form(tmp_path)
    assert str(caught.value) == (
        f"{tmp_path}: not a survey directory (no form.json); run empathybench survey build"
    )
    with pytest.raises(UserError, match=r"no key\.json"):
        load_key(tmp_path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "expected a JSON object"),
        (b"\xff\xfe", "not UTF-8"),
    ],
)
def test_a_broken_form_file_is_one_user_error(tmp_path: Path, content: bytes, message: str) -> None:
    (tmp_path / FORM_FILE).write_bytes(content)
    with pytest.raises(UserError, match=message):
        load_form(tmp_path)
