"""``annotate init`` as a library: the study files, the seeded order and the refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from empathybench.annotation.items import form_item, group_help_key, key_item
from empathybench.annotation.records import NOBODY
from empathybench.annotation.session import AnnotationSession
from empathybench.annotation.study import (
    build_study,
    init_study,
    load_form,
    load_key,
    load_study,
    study_order,
)
from empathybench.errors import UserError
from empathybench.records import ExpectedBehaviour, Scenario
from empathybench.scenarios.suites import load_suite
from tests.annotation.annotation_helpers import GOAL_CANARY, scenarios, write_suite


def test_init_writes_study_form_and_key_apart(study_dir: Path, suite_path: Path) -> None:
    study, form, key = load_study(study_dir), load_form(study_dir), load_key(study_dir)
    suite = load_suite(str(suite_path))
    assert study.suite_sha256 == suite.sha256 and study.template_version == "v1"
    assert sorted(study.item_ids) == sorted(item.id for item in suite.scenarios)
    assert [item.item_id for item in form.items] == study.item_ids
    assert [item.item_id for item in key.items] == study.item_ids
    by_id = {item.id: item for item in suite.scenarios}
    for shown, answer in zip(form.items, key.items, strict=True):
        item = by_id[shown.item_id]
        assert shown.scene in item.messages[-1].content  # the scene exactly as the model reads it
        assert shown.scene.startswith(f"Setting: {item.setting.scene}.")
        assert [option.text for option in shown.options] == item.options
        assert answer.correct_letter == item.correct_letter
        assert answer.help_needed == item.expected.help_needed
        if item.kind == "group":
            assert shown.who_choices == [p.name for p in item.participants]  # v1: no "nobody"
            assert shown.who_question and shown.who_question in item.messages[-1].content
            assert answer.who == item.focus_person
        else:
            assert shown.who_question is None and shown.who_choices == [] and answer.who is None
            assert shown.emotion_question in item.messages[-1].content


def test_the_form_holds_nothing_of_the_key(study_dir: Path) -> None:
    text = (study_dir / "form.json").read_text(encoding="utf-8")
    for hidden in (GOAL_CANARY, "correct", "help_needed", "emotion_support", '"kind"'):
        assert hidden not in text
    assert GOAL_CANARY in (study_dir / "key.json").read_text(encoding="utf-8")


def test_the_order_is_seeded_and_n_takes_a_prefix(suite_path: Path) -> None:
    ids = [item.id for item in load_suite(str(suite_path)).scenarios]
    first = study_order(ids, seed=3)
    assert study_order(list(reversed(ids)), seed=3) == first  # depends on ids, not file order
    assert study_order(ids, seed=4) != first
    assert study_order(ids, seed=3, n=2) == first[:2]
    with pytest.raises(UserError, match=r"^n 7: the suite has 6 items"):
        study_order(ids, seed=3, n=7)
    with pytest.raises(UserError, match=r"^n 0"):
        study_order(ids, seed=3, n=0)


def test_reinit_of_the_same_study_keeps_it_and_restores_lost_files(
    study_dir: Path, suite_path: Path
) -> None:
    before = load_study(study_dir)
    (study_dir / "key.json").unlink()
    outcome = init_study(study_dir, str(suite_path), seed=3)
    assert outcome.action == "unchanged" and load_study(study_dir) == before
    assert load_key(study_dir).study_id == before.study_id


def test_a_different_study_replaces_only_an_unanswered_one(
    study_dir: Path, suite_path: Path
) -> None:
    assert init_study(study_dir, str(suite_path), seed=9).action == "replaced"
    with AnnotationSession.open(study_dir) as session:
        item = session.form.items[0]
        who = item.who_choices[0] if item.who_choices else None
        session.answer("ann", item.item_id, "A", "yes", who)
    with pytest.raises(UserError, match=r"1 answer\(s\); use another directory"):
        init_study(study_dir, str(suite_path), seed=3)


def test_a_suite_of_another_template_version_is_refused(study_dir: Path, tmp_path: Path) -> None:
    other = write_suite(tmp_path / "v2.jsonl", scenarios("v2"))
    with pytest.raises(UserError, match=r"template version v1, but .* is template version v2"):
        init_study(study_dir, str(other))


def test_refusals_are_one_user_error(tmp_path: Path, suite_path: Path) -> None:
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    with pytest.raises(UserError, match="not empty and not an annotation study"):
        init_study(busy, str(suite_path))
    with pytest.raises(UserError, match="no such file or bundled suite"):
        init_study(tmp_path / "new", str(tmp_path / "missing.jsonl"))
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(UserError, match="has no items"):
        init_study(tmp_path / "new", str(empty))
    assert not (tmp_path / "new").exists()
    garbled = tmp_path / "garbled"
    garbled.mkdir()
    (garbled / "study.json").write_text("{not json")
    with pytest.raises(UserError, match=r"study\.json: not valid JSON"):
        init_study(garbled, str(suite_path))
    with pytest.raises(UserError, match="no such study directory"):
        load_form(tmp_path / "nowhere")


def test_a_form_that_does_not_match_the_study_is_refused(study_dir: Path) -> None:
    form = json.loads((study_dir / "form.json").read_text())
    form["items"] = form["items"][1:]
    (study_dir / "form.json").write_text(json.dumps(form))
    with pytest.raises(UserError, match=r"form\.json does not match study\.json"):
        load_form(study_dir)


class ExpectedBehaviourV2(ExpectedBehaviour):
    """What template v2 adds: who needs help in a group (None: nobody)."""

    help_person: str | None = None


def _group(template_version: str, help_person: str | None, help_needed: bool) -> Scenario:
    [item] = [s for s in scenarios(template_version) if s.kind == "group"][:1]
    expected = ExpectedBehaviourV2(
        **{**item.expected.model_dump(), "help_needed": help_needed}, help_person=help_person
    )
    return item.model_copy(update={"expected": expected})


def test_group_key_contract_v1_focus_person_v2_help_person_or_nobody() -> None:
    v1 = next(s for s in scenarios() if s.kind == "group")
    assert group_help_key(v1) == v1.focus_person
    bystander = next(p.name for p in v1.participants if p.name != v1.focus_person)
    named = _group("v2", bystander, True)
    nobody = _group("v2", None, False)
    assert group_help_key(named) == bystander
    assert key_item(named).who == bystander
    assert group_help_key(nobody) is None
    assert key_item(nobody).who == NOBODY
    assert form_item(nobody).who_choices[-1] == NOBODY
    assert "If so, who?" in (form_item(nobody).who_question or "")
    # a v1 item read by v2 code (field defaulted to None) still means the focus person
    v1_read_by_v2 = _group("v1", None, True)
    assert group_help_key(v1_read_by_v2) == v1.focus_person
    stranger = _group("v2", "Nobody Known", True)
    with pytest.raises(UserError, match="not among its participants"):
        key_item(stranger)


def test_build_study_is_reproducible(suite_path: Path) -> None:
    suite = load_suite(str(suite_path))
    first = build_study(suite, source="s", seed=1, created_at="2025-01-01T00:00:00+00:00")
    again = build_study(suite, source="s", seed=1, created_at="2025-01-01T00:00:00+00:00")
    assert first == again
    assert build_study(suite, source="s", seed=2)[0].study_id != first[0].study_id
