"""Answer guides read from prompts, the reply stopping rule, and the JSON-schema round trip."""

from __future__ import annotations

import json

import pytest

from empathybench.judging.answer_parser import parse_answer
from empathybench.models.guided import (
    AnswerGuide,
    GuidedField,
    answer_from_json,
    answer_schema,
    cut_reply,
    render_answer,
    reply_stop,
)
from empathybench.prompts.answer_guide import (
    answer_guide,
    offers_nobody,
    person_choices,
    placeholder_choices,
)
from empathybench.records import ChatMessage, Suite
from empathybench.scenarios.suites import load_suite
from empathybench.therapy.prompt import therapist_messages

LABELS = ["PERSON", "EMOTION", "NEEDS_HELP", "REPLY", "Palesa", "Patient", "Therapist"]


def test_single_person_items_fill_emotion_then_help(small_suite: Suite) -> None:
    scenario = next(s for s in small_suite.scenarios if s.kind == "emotion_support")
    guide = answer_guide(scenario.messages, [p.name for p in scenario.participants])
    assert [f.label for f in guide.fields] == ["EMOTION", "NEEDS_HELP"]
    emotion, help_field = guide.fields
    assert emotion.choices == ["A", "B", "C"]
    assert emotion.scored_texts == [
        f"{letter}) {option}" for letter, option in zip("ABC", scenario.options, strict=True)
    ]
    assert help_field.choices == ["yes", "no"] and help_field.scored is None
    assert guide.reply_label == "REPLY"
    assert {"EMOTION", "NEEDS_HELP", "REPLY", scenario.focus_person} <= set(guide.stop_labels)


def test_group_items_choose_among_the_participants(small_suite: Suite) -> None:
    scenario = next(s for s in small_suite.scenarios if s.kind == "group")
    guide = answer_guide(scenario.messages, [p.name for p in scenario.participants])
    person = guide.fields[0]
    assert person.label == "PERSON"
    assert person.choices == [p.name for p in scenario.participants]  # "<name>": no nobody
    assert [f.label for f in guide.fields[1:]] == ["EMOTION", "NEEDS_HELP"]


def test_a_format_that_offers_nobody_adds_it(small_suite: Suite) -> None:
    scenario = next(s for s in small_suite.scenarios if s.kind == "group")
    prompt = scenario.messages[-1].content.replace("PERSON: <name>", "PERSON: <name, or nobody>")
    messages = [*scenario.messages[:-1], ChatMessage(role="user", content=prompt)]
    names = [p.name for p in scenario.participants]
    guide = answer_guide(messages, names)
    assert guide.fields[0].choices == [*names, "nobody"]


@pytest.mark.parametrize("suite", ["standard-v1", "standard-v5", "standard-v6"])
def test_the_reply_is_addressed_to_the_named_person_or_the_chosen_one(suite: str) -> None:
    scenarios = load_suite(suite).scenarios
    single = next(s for s in scenarios if s.kind == "emotion_support")
    guide = answer_guide(single.messages, [p.name for p in single.participants])
    assert guide.addressee == single.focus_person
    assert guide.addressed_to(["A", "yes"]) == single.focus_person
    group = next(s for s in scenarios if s.kind == "group")
    names = [p.name for p in group.participants]
    guide = answer_guide(group.messages, names)
    assert guide.addressee is None  # "Write your actual words." / "… to them."

    def chosen(person: str) -> list[str]:
        values = {"PERSON": person, "EMOTION": "A", "NEEDS_HELP": "yes"}
        return [values[field.label] for field in guide.fields]

    assert guide.addressed_to(chosen(names[-1])) == names[-1]
    assert guide.addressed_to(chosen("nobody")) is None
    # A name the scene does not hold is not taken for the person.
    prompt = single.messages[-1].content.replace(
        f"words to {single.focus_person}.", "words to Zebedee."
    )
    messages = [*single.messages[:-1], ChatMessage(role="user", content=prompt)]
    assert answer_guide(messages, [p.name for p in single.participants]).addressee is None


def test_an_addressee_may_have_any_letters_and_up_to_three_words() -> None:
    for name in ("José", "Mary Ann", "Nguyễn Thị Lan", "O'Neill-Brown"):
        prompt = (
            f'{name}: "Hello."\n\n1. What would you say? Write your actual words to {name}.'
            "\n\nAnswer in exactly this format:\nEMOTION: <A, B or C>\nREPLY: <what you would say>"
        )
        guide = answer_guide([ChatMessage(role="user", content=prompt)], [name])
        assert guide.addressee == name


def test_nobody_detection() -> None:
    assert offers_nobody("name, or nobody")
    assert offers_nobody("Name or Nobody")
    assert not offers_nobody("name")
    assert not offers_nobody("somebody")
    assert person_choices("name", ["Ana", "Ana", "Bo"]) == ["Ana", "Bo"]
    assert person_choices("name or nobody", ["Ana"]) == ["Ana", "nobody"]
    assert placeholder_choices("A, B or C", []) == ["A", "B", "C"]
    assert placeholder_choices("yes or no", []) == ["yes", "no"]
    assert placeholder_choices("name, or nobody", ["Ana"]) == ["Ana", "nobody"]


def test_without_participants_the_speakers_are_the_names() -> None:
    prompt = 'Ana: "Hi."\nBo: "Hello."\n\nAnswer in exactly this format:\nPERSON: <name>\n'
    guide = answer_guide([ChatMessage(role="user", content=prompt)])
    assert guide.fields[0].choices == ["Ana", "Bo"]


def test_the_therapist_prompt_has_no_fields_and_stops_at_a_new_turn() -> None:
    guide = answer_guide(therapist_messages("I can't sleep."))
    assert guide.fields == [] and guide.reply_label is None
    assert {"Patient", "Therapist"} <= set(guide.stop_labels)
    assert cut_reply("That sounds hard.\nPatient: yes", guide.stop_labels) == "That sounds hard."


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("I'm here with you.\n\nA) sad\nB) angry", "I'm here with you."),
        ("I'm here.\n\n(b) angry", "I'm here."),
        ("I'm here.\nEMOTION: B", "I'm here."),
        ("I'm here.\n**NEEDS_HELP**: yes", "I'm here."),
        ("I'm here.\nPERSON'S NEEDS_HELP is yes", "I'm here."),
        ("I'm here.\nPalesa: thanks", "I'm here."),
        ("I'm here.\nThat sounds hard.\n\nTake your time.", None),
        ("I'm here.\nA small step could help.", None),
        ("\nEMOTION: B", None),  # the first line with text never stops
        ("Emotions run high. NEEDS_HELP: no", None),  # not at a line start
    ],
)
def test_reply_stopping_rules(text: str, kept: str | None) -> None:
    stop = reply_stop(text, LABELS)
    if kept is None:
        assert stop is None
    else:
        assert stop is not None and text[:stop].rstrip() == kept
        assert cut_reply(text, LABELS) == kept


GUIDE = AnswerGuide(
    fields=[
        GuidedField(label="PERSON", choices=["Ana", "Bo", "nobody"]),
        GuidedField(label="EMOTION", choices=["A", "B", "C"], scored=["A) x", "B) y", "C) z"]),
        GuidedField(label="NEEDS_HELP", choices=["yes", "no"]),
    ],
    reply_label="REPLY",
    stop_labels=["PERSON", "EMOTION", "NEEDS_HELP", "REPLY"],
)


def test_rendered_answers_are_what_the_parser_reads() -> None:
    text = render_answer(GUIDE, ["Bo", "C", "yes"], "  I'm here for you, Bo.  ")
    assert text == "PERSON: Bo\nEMOTION: C\nNEEDS_HELP: yes\nREPLY: I'm here for you, Bo."
    parsed = parse_answer(text, ["x", "y", "z"])
    assert (parsed.person, parsed.letter, parsed.needs_help) == ("Bo", "C", True)
    assert parsed.reply == "I'm here for you, Bo." and parsed.problems == []
    free = AnswerGuide(stop_labels=["Patient"])
    assert render_answer(free, [], " Just this. ") == "Just this."


def test_the_schema_has_an_enum_per_field_and_round_trips() -> None:
    schema = answer_schema(GUIDE)
    assert list(schema["properties"]) == ["person", "emotion", "needs_help", "reply"]
    assert schema["required"] == ["person", "emotion", "needs_help", "reply"]
    assert schema["properties"]["person"]["enum"] == ["Ana", "Bo", "nobody"]
    assert schema["properties"]["emotion"]["enum"] == ["A", "B", "C"]
    assert schema["properties"]["needs_help"]["enum"] == ["yes", "no"]
    assert schema["additionalProperties"] is False
    answer = {"person": "nobody", "emotion": "b", "needs_help": "no", "reply": "OK.\nEMOTION: C"}
    assert answer_from_json(GUIDE, json.dumps(answer)) == (
        "PERSON: nobody\nEMOTION: B\nNEEDS_HELP: no\nREPLY: OK."
    )


@pytest.mark.parametrize(
    "body",
    [
        "not json",
        "[1]",
        '{"person": "Cy", "emotion": "A", "needs_help": "yes", "reply": "x"}',
        '{"person": "Ana", "emotion": "A", "needs_help": "maybe", "reply": "x"}',
        '{"person": "Ana", "emotion": "A", "needs_help": "yes"}',
    ],
)
def test_invalid_structured_answers_are_value_errors(body: str) -> None:
    with pytest.raises(ValueError):
        answer_from_json(GUIDE, body)
