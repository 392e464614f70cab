"""The audit end to end (in process): the known v1 flaw, chance on re-keyed items, the
training set kept apart from the suite, keys, the visible view and input errors."""

from __future__ import annotations

import pytest

from empathybench.audit import audit_suite
from empathybench.audit.keys import NOBODY, GeneratedKeys, Question, group_help_key
from empathybench.audit.limits import DEFAULT_TRAIN_SEED, EMOTION_MAX_ACCURACY
from empathybench.audit.results import AuditReport
from empathybench.audit.visible import visible_item
from empathybench.errors import UserError
from empathybench.jsonl import pretty_json
from empathybench.records import Scenario, Suite
from empathybench.scenarios.generator import DEFAULT_MIX, generate
from tests.fakes.audit_items import shuffled_keys


def _suite(items: list[Scenario], name: str = "test") -> Suite:
    return Suite(name=name, sha256="0" * 64, scenarios=tuple(items))


def _accuracy(report: AuditReport, question: str, baseline: str) -> float:
    found = next(q for q in report.questions if q.question == question)
    value = next(b for b in found.baselines if b.name == baseline).overall.accuracy
    assert value is not None
    return value


@pytest.fixture(scope="module")
def v1_report() -> AuditReport:
    return audit_suite(_suite(list(generate(300, seed=7, template_version="v1"))), train_n=1500)


def test_ngram_answers_v1_emotion_from_surface_words(v1_report: AuditReport) -> None:
    """Replicates the known flaw of v1: proof that the baseline works."""
    assert _accuracy(v1_report, "emotion", "ngram") > 0.9
    assert _accuracy(v1_report, "help", "ngram") > 0.9
    assert _accuracy(v1_report, "who", "first-speaker") == 1.0  # only the focus person speaks
    assert v1_report.status == "fail" and all(q.status == "fail" for q in v1_report.questions)
    emotion = v1_report.questions[0]
    assert emotion.chance == pytest.approx(1 / 3) and emotion.limit == EMOTION_MAX_ACCURACY
    ngram = emotion.baselines[0].overall
    assert ngram.low is not None and ngram.high is not None
    assert ngram.low < (ngram.accuracy or 0) < ngram.high
    assert set(emotion.kind_chance) == set(v1_report.kinds) == set(emotion.baselines[0].kinds)
    help_question = v1_report.questions[1]
    yes_share = (
        sum(s.expected.help_needed for s in generate(300, seed=7, template_version="v1")) / 300
    )
    assert help_question.chance == pytest.approx(max(yes_share, 1 - yes_share))
    assert v1_report.training.used == 1500 and v1_report.training.dropped == 0


@pytest.fixture(scope="module")
def shuffled_report() -> AuditReport:
    mix = {**DEFAULT_MIX, "group": 40.0}
    items = shuffled_keys(list(generate(360, seed=8, mix=mix, template_version="v1")), seed=1)
    return audit_suite(_suite(items), train_n=400)


def test_baselines_sit_near_chance_when_keys_do_not_follow_the_text(
    shuffled_report: AuditReport,
) -> None:
    """Every baseline can fail: on re-keyed items each one is near chance."""
    assert [q.question for q in shuffled_report.questions] == ["emotion", "help", "who"]
    for question in shuffled_report.questions:
        margin = 0.15 if question.question == "who" else 0.1
        for baseline in question.baselines:
            accuracy = baseline.overall.accuracy or 0.0
            assert abs(accuracy - question.chance) < margin, (question.question, baseline.name)
    assert shuffled_report.questions[2].n > 100


def test_training_items_that_the_suite_holds_are_dropped() -> None:
    twins = [
        s.model_copy(update={"provenance": s.provenance.model_copy(update={"seed": 5})})
        for s in generate(40, seed=DEFAULT_TRAIN_SEED, template_version="v1")
    ]
    report = audit_suite(_suite(twins), train_n=60)
    assert report.training.generated == 60
    assert report.training.dropped == 40 and report.training.used == 20


def test_the_audit_is_deterministic_and_keys_are_pluggable() -> None:
    suite = _suite(list(generate(40, seed=9, template_version="v1")))
    first = audit_suite(suite, train_n=80)
    assert pretty_json(first) == pretty_json(audit_suite(suite, train_n=80))

    class NoGroupKeys(GeneratedKeys):
        def key(self, item: Scenario, question: Question) -> str | None:
            return None if question == "who" else super().key(item, question)

    report = audit_suite(suite, train_n=80, keys=NoGroupKeys())
    assert [q.question for q in report.questions] == ["emotion", "help"]
    assert "who" in report.not_audited


def test_group_help_key_contract() -> None:
    group = next(
        s for s in generate(40, seed=3, template_version="v1") if s.kind == "group"
    )  # a v1 group item

    def item(**expected: object) -> Scenario:
        return group.model_copy(
            update={"focus_person": "Ana", "expected": group.expected.model_copy(update=expected)}
        )

    assert group_help_key(item(help_needed=True)) == "Ana"  # v1: no help person named
    assert group_help_key(item(help_needed=True, help_person="Ben")) == "Ben"
    assert group_help_key(item(help_needed=False, help_person=None)) == NOBODY


def test_the_visible_item_ignores_every_hidden_field() -> None:
    item = next(s for s in generate(20, seed=3, template_version="v1") if s.kind == "group")
    other = next(p.name for p in item.participants if p.name != item.focus_person)
    hidden = item.model_copy(
        update={
            "id": "gr-0",
            "focus_person": other,
            "goal": "something else",
            "emotion": item.emotion.model_copy(update={"name": "x", "valence": "negative"}),
            "correct_letter": "C" if item.correct_letter != "C" else "A",
            "expected": item.expected.model_copy(update={"help_needed": False}),
            "provenance": item.provenance.model_copy(update={"seed": 99, "templates": {}}),
            "participants": list(reversed(item.participants)),
        }
    )
    assert visible_item(hidden) == visible_item(item)
    view = visible_item(item)
    assert view.names[0] in view.lines[1].text  # names follow the scene, not the record
    assert all(name not in view.masked_prompt for name in view.names)


def test_the_asked_person_is_read_from_the_prompt_only() -> None:
    """v2 and later name the person the questions ask about; v1 group items do not (the
    reader must find them), so the view names nobody there, whatever the record holds."""
    from empathybench.audit.visible import asked_person

    for item in generate(60, seed=3, template_version="v4"):
        assert visible_item(item).asked == item.focus_person
    v1_group = next(s for s in generate(20, seed=3, template_version="v1") if s.kind == "group")
    assert visible_item(v1_group).asked is None
    prompt = "1. Which emotion is Anna most likely feeling right now?"
    assert asked_person(prompt, ("Ann", "Anna")) == "Anna"
    assert asked_person(prompt.replace("Anna", "Ann"), ("Anna", "Ann")) == "Ann"
    assert asked_person(prompt, ("Ben",)) is None
    quoted = 'Ben: "Which emotion is Ben meant to show?"\n\n' + prompt
    assert asked_person(quoted, ("Anna", "Ben")) == "Anna"  # the question, not the dialogue


def test_the_asked_person_ignores_the_records_focus_person() -> None:
    """On v2 and later the prompt names the asked person: a record whose hidden focus
    person says otherwise gives the same view, so no baseline can read the hidden field."""
    item = next(s for s in generate(20, seed=3, template_version="v4") if s.kind == "group")
    other = next(p.name for p in item.participants if p.name != item.focus_person)
    hidden = item.model_copy(update={"focus_person": other, "id": "gr-0"})
    assert visible_item(hidden) == visible_item(item)
    assert visible_item(hidden).asked == item.focus_person != other


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"train_n": 0}, "^train_n"),
        ({"train_n": -5}, "^train_n"),
        ({"train_n": 10**9}, "200,000"),
        ({"train_seed": 7}, "^train_seed"),
        ({"train_seed": -1}, "^train_seed"),
    ],
)
def test_bad_training_options_are_user_errors(change: dict[str, int], fragment: str) -> None:
    suite = _suite(list(generate(5, seed=7, template_version="v1")))
    with pytest.raises(UserError, match=fragment):
        audit_suite(suite, **change)


def test_suites_the_audit_cannot_train_for_are_user_errors() -> None:
    items = list(generate(4, seed=7, template_version="v1"))
    with pytest.raises(UserError, match="no items"):
        audit_suite(_suite([]))
    mixed = [items[0], items[1].model_copy(update={"template_version": "v2"})]
    with pytest.raises(UserError, match="mixes template versions"):
        audit_suite(_suite(mixed))
    unknown = [item.model_copy(update={"template_version": "v9"}) for item in items]
    with pytest.raises(UserError, match="cannot generate"):
        audit_suite(_suite(unknown))
