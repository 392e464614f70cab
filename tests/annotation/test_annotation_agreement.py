"""Agreement with the key per item, the 80% flag, too few raters, kappa and per-rater accuracy."""

from __future__ import annotations

from pathlib import Path

import pytest

from empathybench.annotation.agreement import agreement_report, item_agreement
from empathybench.annotation.kappa import fleiss_kappa
from empathybench.annotation.records import KeyItem
from empathybench.annotation.report import RESULTS_CSV, results_markdown, write_report
from empathybench.annotation.session import AnnotationSession
from empathybench.annotation.study import load_key, load_study
from empathybench.errors import UserError
from empathybench.records import LETTERS
from tests.annotation.annotation_helpers import answer_like_key, key_answers, wrong_letter


def _other_person(session: AnnotationSession, item: KeyItem) -> str:
    return next(name for name in session.item(item.item_id).who_choices if name != item.who)


def _four_raters(study_dir: Path) -> list[KeyItem]:
    """ann, bob and cem answer like the key; dan misses emotion on item 0, help on item 1
    and who on the first group item."""
    key = load_key(study_dir).items
    group = next(item for item in key if item.who is not None and item not in key[:2])
    with AnnotationSession.open(study_dir) as session:
        for rater in ("ann", "bob", "cem"):
            answer_like_key(session, load_key(study_dir), rater)
        for item in key:
            emotion, help_, who = key_answers(
                item, frozenset({key[0].item_id}), frozenset({key[1].item_id})
            )
            if item == group:
                who = _other_person(session, item)
            session.answer("dan", item.item_id, emotion, help_, who)
    return [key[0], key[1], group]


def test_items_under_80_percent_are_flagged_with_the_reason(study_dir: Path) -> None:
    missed_emotion, missed_help, missed_who = _four_raters(study_dir)
    report = item_agreement(study_dir)
    assert (report.answers, report.raters, report.rated_items) == (24, 4, 6)
    assert report.flagged == [
        item.item_id
        for item in report.items
        if item.item_id in {missed_emotion.item_id, missed_help.item_id, missed_who.item_id}
    ]
    items = {item.item_id: item for item in report.items}
    first = items[missed_emotion.item_id]
    assert first.raters == 4 and first.emotion_agreement == 0.75 and first.help_agreement == 1.0
    assert first.status == "flagged" and first.reasons == ["emotion 0.75 < 0.80"]
    assert first.emotion_majority == missed_emotion.correct_letter
    assert first.emotion_counts[missed_emotion.correct_letter] == 3
    assert items[missed_help.item_id].reasons == ["help 0.75 < 0.80"]
    assert items[missed_who.item_id].reasons == ["who 0.75 < 0.80"]
    assert items[missed_who.item_id].who_majority == missed_who.who
    passed = [item for item in report.items if item.item_id not in report.flagged]
    assert passed and all(item.status == "ok" and item.reasons == [] for item in passed)
    lenient = item_agreement(study_dir, min_agreement=0.75)
    assert lenient.flagged == []


def test_kappa_and_per_rater_accuracy(study_dir: Path) -> None:
    missed_emotion, missed_help, _ = _four_raters(study_dir)
    report = item_agreement(study_dir)
    key = load_key(study_dir).items
    emotion_table = []
    for item in key:
        row = [4 if letter == item.correct_letter else 0 for letter in LETTERS]
        if item == missed_emotion:
            row[LETTERS.index(item.correct_letter)] -= 1
            row[LETTERS.index(wrong_letter(item.correct_letter))] += 1
        emotion_table.append(row)
    assert report.kappa_emotion.kappa == pytest.approx(fleiss_kappa(emotion_table))
    assert (report.kappa_emotion.items, report.kappa_emotion.ratings) == (6, 24)
    assert report.kappa_emotion.kappa is not None and 0.8 < report.kappa_emotion.kappa < 1.0
    # every help key in the tiny suite is "yes"; dan's one "no" is the only disagreement
    help_table = [[4, 0] if item != missed_help else [3, 1] for item in key]
    assert all(item.help_needed for item in key)
    assert report.kappa_help.kappa == pytest.approx(fleiss_kappa(help_table))
    accuracy = {rater.rater_id: rater for rater in report.rater_accuracy}
    assert sorted(accuracy) == ["ann", "bob", "cem", "dan"]
    assert accuracy["ann"].emotion_accuracy == 1.0 and accuracy["ann"].who_accuracy == 1.0
    dan = accuracy["dan"]
    assert (dan.answers, dan.emotion_accuracy, dan.help_accuracy) == (6, 5 / 6, 5 / 6)
    assert (dan.who_answers, dan.who_accuracy) == (3, 2 / 3)


def test_items_with_one_rater_are_too_few_not_flagged(study_dir: Path) -> None:
    key = load_key(study_dir).items
    with AnnotationSession.open(study_dir) as session:
        emotion, help_, who = key_answers(key[0], frozenset({key[0].item_id}))
        session.answer("ann", key[0].item_id, emotion, help_, who)  # wrong, but alone
        for rater, letter in (("ann", "A"), ("bob", "B")):
            emotion, help_, who = key_answers(key[1])
            session.answer(rater, key[1].item_id, letter, help_, who)
    report = item_agreement(study_dir)
    items = {item.item_id: item for item in report.items}
    assert items[key[0].item_id].status == "too few raters"
    assert items[key[0].item_id].emotion_agreement == 0.0
    assert items[key[2].item_id].raters == 0 and items[key[2].item_id].emotion_agreement is None
    assert report.too_few_raters == [k.item_id for k in key if k != key[1]]
    assert items[key[1].item_id].emotion_majority is None  # a tie: A once, B once
    assert report.kappa_emotion.items == 1 and report.answered_items == 2


def test_kappa_is_undefined_when_too_few_raters_or_all_agree(study_dir: Path) -> None:
    key = load_key(study_dir)
    with AnnotationSession.open(study_dir) as session:
        answer_like_key(session, key, "ann")
    report = item_agreement(study_dir)
    assert report.kappa_emotion.kappa is None
    assert report.kappa_emotion.note == "no item has 2 or more raters"
    with AnnotationSession.open(study_dir) as session:
        answer_like_key(session, key, "bob")
    help_kappa = item_agreement(study_dir).kappa_help
    assert help_kappa.kappa is None and "every answer is the same" in (help_kappa.note or "")


def test_no_answers_and_bad_thresholds_are_user_errors(study_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(UserError, match="has no answers yet"):
        item_agreement(study_dir)
    with pytest.raises(UserError, match="no such study directory"):
        item_agreement(tmp_path / "nowhere")
    for bad in (0.0, 1.5, -0.1):
        with pytest.raises(UserError, match="min_agreement"):
            item_agreement(study_dir, min_agreement=bad)


def test_answers_of_another_study_are_left_out(study_dir: Path) -> None:
    study, key = load_study(study_dir), load_key(study_dir)
    with AnnotationSession.open(study_dir) as session:
        answer_like_key(session, key, "ann")
        answers = session.store.answers(study.study_id)
    foreign = [answer.model_copy(update={"study_id": "other"}) for answer in answers]
    report = agreement_report(study, key, answers + foreign)
    assert report.answers == len(answers)


def test_the_report_files(study_dir: Path, tmp_path: Path) -> None:
    _four_raters(study_dir)
    with AnnotationSession.open(study_dir) as session:
        item = next(i for i in session.form.items if not i.is_group)
        session.answer("<b>=evil|", item.item_id, "A", "yes")
    report = item_agreement(study_dir)
    paths = write_report(tmp_path / "out", report)
    assert [path.name for path in paths] == ["results.json", "results.csv", "results.md"]
    markdown = results_markdown(report)
    assert "Fleiss' kappa, emotion: 0." in markdown and "Flagged (under 80% agreement" in markdown
    assert "&lt;b&gt;=evil\\|" in markdown and "<b>" not in markdown
    csv_text = (tmp_path / "out" / RESULTS_CSV).read_text(encoding="utf-8")
    assert csv_text.splitlines()[0].startswith("item_id,kind,raters,status,emotion_key")
    assert len(csv_text.splitlines()) == 1 + len(report.items)
