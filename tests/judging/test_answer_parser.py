import pytest

from empathybench.judging.answer_parser import parse_answer

OPTIONS = ["curious", "ashamed", "hopeful"]


@pytest.mark.parametrize(
    ("text", "letter"),
    [
        ("EMOTION: B\nNEEDS_HELP: yes\nREPLY: hi", "B"),
        ("**Emotion:** (c) hopeful", "C"),
        ("emotion - ashamed", "B"),
        ("1. Emotion: [A]", "A"),
        ("The answer is C.", "C"),
        ("A) curious", "A"),  # SmolLM2's habit: only the option line
        ("(b)", "B"),
        ("C. hopeful\nThey seem upbeat.", "C"),
        ("I think they feel ashamed.", "B"),
        ("D) ashamed", "B"),  # an invalid letter, but it names one option
        ("EMOTION: a bit ashamed", "B"),  # 'a' here is an article, not a letter
    ],
)
def test_the_chosen_emotion_is_read_in_common_forms(text: str, letter: str) -> None:
    assert parse_answer(text, OPTIONS).letter == letter


@pytest.mark.parametrize(
    "text", ["", "Hard to say.", "EMOTION: nope", "It is curious or hopeful, maybe ashamed."]
)
def test_unreadable_or_ambiguous_choices_are_parse_failures(text: str) -> None:
    parsed = parse_answer(text, OPTIONS)
    assert parsed.letter is None
    assert "emotion choice not found" in parsed.problems


def test_fields_and_a_multiline_reply() -> None:
    parsed = parse_answer(
        "PERSON: Amara.\nEMOTION: A\nNEEDS_HELP: No\nREPLY: Congratulations!\nEnjoy it.", OPTIONS
    )
    assert parsed.person == "Amara"
    assert parsed.needs_help is False
    assert parsed.reply == "Congratulations!\nEnjoy it."
    assert parsed.problems == []


def test_reasoning_before_the_answer_does_not_confuse_it() -> None:
    text = "REASONING: they could be hopeful.\nEMOTION: B\nNEEDS_HELP: yes\nREPLY: I'm here."
    parsed = parse_answer(text, OPTIONS)
    assert (parsed.letter, parsed.needs_help, parsed.reply) == ("B", True, "I'm here.")


def test_the_person_line_may_come_first_or_third() -> None:
    """Template v1 asked for PERSON first, v2 on ask for it third; labellers and models use
    both, and both read the same."""
    options = ["nervous", "excited", "guilty"]
    reply = "REPLY: Palesa, your bag 797 is out and ready to sign for."
    third = parse_answer(f"EMOTION: B\nNEEDS_HELP: yes\nPERSON: Palesa\n{reply}", options)
    first = parse_answer(f"PERSON: Palesa\nEMOTION: B\nNEEDS_HELP: yes\n{reply}", options)
    assert third == first
    assert (first.letter, first.needs_help, first.person) == ("B", True, "Palesa")
    assert (
        first.reply == "Palesa, your bag 797 is out and ready to sign for." and not first.problems
    )
