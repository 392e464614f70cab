"""Raters answering: rater ids, checks against the form, one answer per item, resume."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from empathybench.annotation.records import Annotation
from empathybench.annotation.session import AnnotationSession, canonical_rater_id
from empathybench.annotation.store import AnnotationStore, DuplicateAnswerError
from empathybench.annotation.study import load_key
from empathybench.errors import UserError


def _group_and_single(session: AnnotationSession) -> tuple[str, str]:
    group = next(item for item in session.form.items if item.is_group)
    single = next(item for item in session.form.items if not item.is_group)
    return group.item_id, single.item_id


@pytest.mark.parametrize("spelling", ["alice", "Alice", "  ALICE ", "ａｌｉｃｅ", "Ａｌｉｃｅ"])
def test_rater_ids_are_one_rater_whatever_the_case_or_width(spelling: str) -> None:
    assert canonical_rater_id(spelling) == "alice"


@pytest.mark.parametrize("bad", ["", "   ", "a" * 65, "tab\there", "line\nbreak", "\x00"])
def test_bad_rater_ids_are_refused(bad: str) -> None:
    with pytest.raises(UserError, match="rater id must be 1 to 64 printable characters"):
        canonical_rater_id(bad)


def test_answers_are_stored_and_the_rater_resumes_at_the_next_item(study_dir: Path) -> None:
    with AnnotationSession.open(study_dir) as session:
        items = session.form.items
        assert session.next_item("Alice") == items[0]
        first = items[0]
        who = first.who_choices[1] if first.is_group else None
        stored = session.answer("Alice", first.item_id, "b", " YES ", who)
        assert (stored.rater_id, stored.emotion, stored.help, stored.who) == (
            "alice",
            "B",
            "yes",
            who,
        )
    with AnnotationSession.open(study_dir) as reopened:
        assert reopened.next_item("ａｌｉｃｅ") == items[1]
        assert reopened.progress("ALICE") == (1, len(items))
        assert reopened.next_item("bob") == items[0]
        assert reopened.store.answers(reopened.study_id) == [stored]


def test_a_second_answer_by_the_same_rater_is_refused(study_dir: Path) -> None:
    with AnnotationSession.open(study_dir) as session:
        _, single = _group_and_single(session)
        session.answer("alice", single, "A", "yes")
        with pytest.raises(
            DuplicateAnswerError, match=f"rater alice already answered item {single}"
        ):
            session.answer("Ａｌｉｃｅ", single, "C", "no")
        assert [a.emotion for a in session.store.answers(session.study_id)] == ["A"]


def test_answers_are_checked_against_the_form(study_dir: Path) -> None:
    with AnnotationSession.open(study_dir) as session:
        group, single = _group_and_single(session)
        names = session.item(group).who_choices
        cases = [
            ((single, "D", "yes", None), "emotion must be one of A, B, C"),
            ((single, "A", "maybe", None), "help must be yes or no"),
            ((single, "A", "yes", names[0]), "does not ask who needs help"),
            ((group, "A", "yes", None), "who needs help must be one of"),
            ((group, "A", "yes", "Somebody Else"), "who needs help must be one of"),
            (("no-such-item", "A", "yes", None), "is not in study"),
        ]
        for arguments, message in cases:
            with pytest.raises(UserError, match=message):
                session.answer("alice", *arguments)
        with pytest.raises(UserError, match="answered_at 'yesterday' is not an ISO 8601"):
            session.answer("alice", single, "A", "yes", answered_at="yesterday")
        assert session.store.count() == 0
        stored = session.answer("alice", group, "a", "no", names[0].upper())
        assert stored.who == names[0]  # stored in the form's spelling


def test_a_v1_group_item_offers_no_nobody(study_dir: Path) -> None:
    with AnnotationSession.open(study_dir) as session:
        group, _ = _group_and_single(session)
        assert "nobody" not in session.item(group).who_choices
        with pytest.raises(UserError, match="who needs help must be one of"):
            session.answer("alice", group, "A", "no", "nobody")


def test_the_session_never_reads_the_key(study_dir: Path) -> None:
    (study_dir / "key.json").unlink()
    with AnnotationSession.open(study_dir) as session:
        _, single = _group_and_single(session)
        session.answer("alice", single, "A", "yes")
        assert session.progress("alice")[0] == 1


def _answer(rater: str = "ann", item: str = "i1", emotion: str = "A") -> Annotation:
    return Annotation.model_validate(
        {
            "study_id": "s1",
            "rater_id": rater,
            "item_id": item,
            "emotion": emotion,
            "help": "yes",
            "answered_at": "2025-01-01T00:00:00+00:00",
        }
    )


def test_threads_racing_on_one_answer_store_it_once(tmp_path: Path) -> None:
    stores = [AnnotationStore(tmp_path / "annotations.sqlite") for _ in range(4)]
    barrier = threading.Barrier(8)
    outcomes: list[str] = []

    def add(store: AnnotationStore, emotion: str) -> None:
        barrier.wait()
        try:
            store.add(_answer(emotion=emotion))
            outcomes.append("stored")
        except DuplicateAnswerError:
            outcomes.append("refused")

    threads = [threading.Thread(target=add, args=(stores[i % 4], "ABC"[i % 3])) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    try:
        assert sorted(outcomes) == ["refused"] * 7 + ["stored"]
        assert stores[0].count("s1") == 1 and stores[0].count("other") == 0
    finally:
        for store in stores:
            store.close()


def test_a_file_that_is_not_a_database_is_one_user_error(tmp_path: Path) -> None:
    path = tmp_path / "annotations.sqlite"
    path.write_text("not answers\n" * 100)
    with pytest.raises(UserError, match="not a usable annotations database"):
        AnnotationStore(path)


def test_key_answers_round_trip(study_dir: Path) -> None:
    """The key's own answers pass the form's checks (the key and the form agree)."""
    key = load_key(study_dir)
    with AnnotationSession.open(study_dir) as session:
        for item in key.items:
            session.answer(
                "keeper",
                item.item_id,
                item.correct_letter,
                "yes" if item.help_needed else "no",
                item.who,
            )
        assert session.next_item("keeper") is None
