"""The no-reply rule: what fires, what never does, and that no judge is asked when it fires
(whole runs, their counts and old verdicts: ``test_no_reply_in_runs``)."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator

import pytest

from empathybench.judging.calibration import (
    BUNDLED_LABEL_FILES,
    LabelledResponse,
    labels_path,
    load_labels,
)
from empathybench.judging.judge_prompt import judged_dimensions
from empathybench.judging.llm_judge import JudgeSettings, judge_response
from empathybench.judging.no_reply import (
    DEGENERATE_DISTINCT_2,
    DEGENERATE_MIN_WORDS,
    NO_REPLY,
    classify_reply,
    degenerate_reason,
    scene_numbers,
)
from empathybench.judging.rubric import TEXT_DIMENSIONS
from empathybench.models.openai_compatible import OpenAICompatibleModel
from empathybench.models.registry import parse_model_id
from empathybench.records import Scenario, Verdict
from empathybench.scenarios.suites import load_suite
from tests.fakes.fake_llm_server import FakeLLMServer, ok
from tests.fakes.non_replies import non_replies

DELIBERATE_STYLES = ("no_reply", "repeated", "wrong_language")
"""judge-labels-v2 writes non-replies, loops and replies in another language on purpose (its
``style`` says which) so the offline judge learns them; every other bundled labelled reply is
real English text. (A reply entirely in a script the prompt does not use scores 0 by rule,
``other_script``, as its labels do.)"""


def _styles() -> dict[str, str]:
    path = labels_path("judge-labels-v2")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return {row["id"]: row.get("style", "") for row in rows}


def deliberate_replies() -> list[LabelledResponse]:
    styles = _styles()
    return [
        r
        for r in load_labels("judge-labels-v2")
        if styles.get(r.id, "").startswith(DELIBERATE_STYLES)
    ]


INDEPENDENT = ("judge-labels-w1", "judge-labels-w2")
"""Batches by labellers who worked from the guide alone, not written with the rule in mind."""
ALL_REPLIES = ("judge-labels-w3", "judge-labels-w4")
"""Independent batches whose labellers were asked for a reply in every output (each has a
REPLY, some degenerate: other languages, cut off, one sentence repeated)."""


def real_replies() -> list[LabelledResponse]:
    """Every labelled benchmark reply bundled with the package, less the deliberate ones."""
    deliberate = {r.id for r in deliberate_replies()}
    return [
        r
        for name in BUNDLED_LABEL_FILES
        if name not in INDEPENDENT + ALL_REPLIES  # independent labellers' batches: below
        for r in load_labels(name)
        if not (name == "judge-labels-v2" and r.id in deliberate)
    ]


@pytest.fixture(scope="module")
def one_item_per_kind() -> list[Scenario]:
    chosen: dict[str, Scenario] = {}
    for scenario in load_suite("standard-v1").scenarios:
        chosen.setdefault(scenario.kind, scenario)
    return list(chosen.values())


@pytest.fixture(scope="module")
def constructed(one_item_per_kind: list[Scenario]) -> list[tuple[Scenario, str]]:
    return [(s, text) for s in one_item_per_kind for text in non_replies(s)]


def test_no_real_reply_is_caught() -> None:
    records = real_replies()
    # 560 judge-labels-v1 + 72 calibration + judge-labels-v2's 414 less its deliberate ones
    assert len(records) == 632 + 414 - len(deliberate_replies()) >= 960
    caught = [r.response for r in records if classify_reply(r.response, r.scenario) is not None]
    assert caught == []


@pytest.mark.parametrize("name", INDEPENDENT)
def test_the_rule_agrees_with_independent_labellers(name: str) -> None:
    """Independent labellers' batches (not written for the rule) have a few outputs with no
    reply in them: the rule catches those, and every one it catches is labelled 0 on every
    dimension."""
    records = load_labels(name)
    caught = [r for r in records if classify_reply(r.response, r.scenario) is not None]
    assert 0 < len(caught) < len(records) / 10
    assert all(set(r.labels.values()) == {0.0} for r in caught), [
        (r.id, r.labels) for r in caught if set(r.labels.values()) != {0.0}
    ]


@pytest.mark.parametrize("name", ALL_REPLIES)
def test_the_rule_catches_nothing_where_every_output_has_a_reply(name: str) -> None:
    records = load_labels(name)
    assert len(records) >= 450
    caught = [r.id for r in records if classify_reply(r.response, r.scenario) is not None]
    assert caught == []


def test_the_deliberate_non_replies_in_the_labels_are_caught() -> None:
    styles = _styles()
    non_replies_ = [r for r in deliberate_replies() if styles[r.id].startswith("no_reply")]
    assert len(non_replies_) == 76
    missed = [r.response for r in non_replies_ if classify_reply(r.response, r.scenario) is None]
    assert missed == []


def test_every_constructed_non_reply_is_caught(constructed: list[tuple[Scenario, str]]) -> None:
    assert len(constructed) >= 170
    missed = [text for scenario, text in constructed if classify_reply(text, scenario) is None]
    assert missed == []


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("", "empty"),
        ("EMOTION: B\nNEEDS_HELP: yes", "answer_lines_only"),
        ("The answer is B", "answer_lines_only"),
        ("EMOTION: B\nNEEDS_HELP: yes\nREPLY:", "empty_reply"),
        ("EMOTION: B\nREPLY: <what you would say or do>", "placeholder"),
        ("EMOTION: B\nREPLY: [your reply]", "placeholder"),
        ("EMOTION: B\nREPLY: N/A", "placeholder"),
        ("A) overwhelmed\nB) lonely\nC) optimistic", "options_only"),
        ("D) ashamed", "options_only"),
        ("B) deeply ashamed", "options_only"),  # a label and two words: still an option
        ("D) no, no, no", "options_only"),  # any length when every word is a label word
        ("EMOTION: B\nREPLY: anxious", "labels_only"),  # an emotion word is a label
        ("EMOTION: B\nREPLY: yes", "labels_only"),
        ("EMOTION: B, NEEDS_HELP: yes, REPLY: ...", "empty_reply"),
    ],
)
def test_what_fires(text: str, kind: str, one_item_per_kind: list[Scenario]) -> None:
    no_reply = classify_reply(text, one_item_per_kind[0])
    assert no_reply is not None and no_reply.kind == kind


@pytest.mark.parametrize(
    "text",
    [
        "Congratulations.",  # one word is enough when it is not a label word
        "EMOTION: B\nREPLY: Well done!",
        "EMOTION: B\nNEEDS_HELP: yes\nI'm so sorry.",  # prose without a REPLY label
        "I'm so sorry.\nEMOTION: B\nNEEDS_HELP: yes\nREPLY:",  # the prose came first
        "EMOTION: B, NEEDS_HELP: yes, REPLY: I'm here with you.",  # one line
        "b) Call a friend tonight",  # a lettered list item of three words is prose
        "B) You seem anxious; want to talk?",
        "Hi [name], I'm sorry to hear that.",  # a placeholder inside a reply
        "I'm here. Anxious or not, you can talk to me.",
    ],
)
def test_what_does_not_fire(text: str, one_item_per_kind: list[Scenario]) -> None:
    assert classify_reply(text, one_item_per_kind[0]) is None


@pytest.mark.parametrize(
    "text",
    [
        "很抱歉你今天心情不好。如果你想聊聊，我在这里。",  # jl2-0270, labelled 0 everywhere
        "REPLY: 很抱歉，{name}。",  # the person's name is a label word, not a reply
        "EMOTION: A\nNEEDS_HELP: yes\nREPLY: Мне очень жаль.",
    ],
)
def test_a_reply_in_a_script_the_prompt_does_not_use_is_not_a_reply(
    text: str, one_item_per_kind: list[Scenario]
) -> None:
    scenario = one_item_per_kind[0]
    no_reply = classify_reply(text.replace("{name}", scenario.focus_person), scenario)
    assert no_reply is not None and no_reply.kind == "other_script"
    # Mixed with words in the prompt's script, or in another Latin-script language, it is a
    # reply (the judges score a reply in another language).
    assert classify_reply("我很抱歉。 I'm here for you.", scenario) is None
    assert classify_reply("REPLY: Lo siento mucho.", scenario) is None
    # Latin in other forms is Latin; a token with no letter counts neither way.
    assert (
        classify_reply(
            "REPLY: \U0001d5dc'\U0001d5fa \U0001d600\U0001d5fc\U0001d5ff\U0001d5ff\U0001d606",
            scenario,
        )
        is None
    )
    assert classify_reply("REPLY: ＩＭ ＳＯＲＲＹ", scenario) is None
    assert classify_reply("REPLY: ½ of it is done, well done!", scenario) is None


def test_a_suite_in_another_script_is_answered_in_that_script(
    one_item_per_kind: list[Scenario],
) -> None:
    english = one_item_per_kind[0]
    russian = english.model_copy(
        update={
            "messages": [
                english.messages[0],
                english.messages[-1].model_copy(
                    update={"content": "Мария: «Я сегодня потеряла работу.» Что вы скажете?"}
                ),
            ]
        }
    )
    assert classify_reply("REPLY: Мне очень жаль, Мария. Чем я могу помочь?", russian) is None
    no_reply = classify_reply("REPLY: 很抱歉。", russian)
    assert no_reply is not None and no_reply.kind == "other_script"


def test_copied_scene_lines_are_not_a_reply(one_item_per_kind: list[Scenario]) -> None:
    scenario = next(s for s in one_item_per_kind if s.kind == "emotion_support")
    spoken = next(t for t in scenario.dialogue if t.speaker != "narration")
    copied = f'{spoken.speaker}: "{spoken.text}"'
    assert classify_reply(copied, scenario) is not None
    assert classify_reply(f"A: {spoken.text}", scenario) is not None  # mostly copied
    # New words put in the person's mouth are not said to the person either.
    invented = f'{spoken.speaker}: "Honestly I never thought it would turn out like this."'
    assert classify_reply(invented, scenario) is not None
    assert classify_reply(f"{invented}\nThat sounds so hard.", scenario) is None
    # A reply quoting a few of the person's words is a reply (real replies: at most 40% of
    # a line's trigrams come from the prompt; the rule needs 70%).
    quote = " ".join(spoken.text.split()[:3])
    assert classify_reply(f'"{quote}" — that sounds so hard, I am here.', scenario) is None


def test_a_short_scene_line_said_back_is_not_a_reply() -> None:
    """v5 people say only their number ("I'm 412."): two words have no trigram, so the
    whole quoted line is matched instead; part of one, or other short words, are replies."""
    scenario, spoken = next(
        (s, t)
        for s in load_suite("standard-v5").scenarios
        for t in s.dialogue
        if t.speaker != "narration" and len(t.text.split()) == 2
    )
    assert classify_reply(f'REPLY: "{spoken.text}"', scenario) is not None
    assert classify_reply(f"REPLY: {spoken.text.upper()}", scenario) is not None
    number = spoken.text.split()[-1].strip(".")
    assert classify_reply(f'REPLY: "Hi {number}."', scenario) is None
    assert classify_reply('REPLY: "Thank you."', scenario) is None
    # Saying whom the line is for does not make it a reply; a reply that names them is one.
    name = next(p.name for p in scenario.participants if p.name != spoken.speaker)
    assert classify_reply(f'REPLY: "{name}, {spoken.text}"', scenario) is not None
    assert classify_reply(f'REPLY: "{name}, thank you for waiting."', scenario) is None
    assert classify_reply(f'REPLY: "Zebedee, {spoken.text}"', scenario) is None  # not in the scene
    # Only a line with a number counts: "Thank you." said in a scene is still a reply.
    thanks = scenario.model_copy(
        update={
            "messages": [
                *scenario.messages[:-1],
                scenario.messages[-1].model_copy(
                    update={"content": scenario.messages[-1].content + '\nAnn: "Thank you."'}
                ),
            ]
        }
    )
    assert classify_reply('REPLY: "Thank you."', thanks) is None


def test_a_reply_that_gives_a_persons_number_as_its_own_speaks_as_them() -> None:
    """SmolLM2 often answers as a person of the scene ("I'm 945. The polytunnel group would be
    new to me…"); blind readers call that no reply. The rule needs a number someone in the
    scene gave, or a made-up one of the same length ending a clause; the helper talking
    about a number, or other numbers, is still a reply."""
    scenario = next(s for s in load_suite("standard-v6").scenarios if s.kind == "emotion_support")
    numbers = sorted(scene_numbers(scenario))
    assert len(numbers) == 3 and all(len(n) == 3 for n in numbers)
    own, other = numbers[0], next(str(n) for n in range(100, 1000) if str(n) not in numbers)
    name = scenario.participants[0].name
    for text in (
        f"I'm {own}. The allotment would be new to me.",
        f"I’m {own}, and I need a locker.",
        f"Mine's {own}, and I need help.",
        f"{own} is mine, thanks.",
        f"That's me, number {own}.",
        f"I'm down as {own}. You're a new apprentice.",
        f"{name}, I'm {own}. See you later.",
        f"That's me, number {own}.\nThe allotment would be new to me.",  # the scene's words
        f"I'm {other}. The Airport Express is a pleasure.",  # made up, same length
    ):
        verdict = classify_reply(f'REPLY: "{text}"', scenario)
        assert verdict is not None and verdict.kind == "as_participant", text
    for text in (
        f"You're {own}: you start on Monday.",
        f"Number {own}, your booking is ready.",
        f"I'm {other} metres away from the desk.",  # not a number given as one's own
        "I'm 25 and I work here, how can I help?",
        f"It's {own}'s turn next, please wait.",
        "I'm 100% sure we can sort this out today.",
        f"I'm glad you're here. I'm {own} too, by the way.",  # not how the reply opens
        f"Number {own} is mine to sort out, {name}: I'll book it for you.",
        f'"Mine\'s {own}" Got it, {name}, I will book the locker.',  # quoting the person
        f"'Mine's {own}.' Got it, {name}, I will book the locker.",
        f'"Mine\'s {own}. The allotment is new to me." Got it, {name}: a new plot.',
        f"I'm {own} percent behind you, {name}; let's sort it.",  # a number the scene gave
    ):
        assert classify_reply(f'REPLY: "{text}"', scenario) is None, text


@pytest.mark.parametrize(
    ("reply", "fires"),
    [
        ("1.", True),  # SmolLM2 with no opening quote starts a numbered list
        ("785", True),
        ("1) 2)", True),
        ('"I would say: A"', True),
        ("I'd pick B.", True),
        ("I would say: Amelia, take a seat.", False),
        ("Room 12 is free, go ahead.", False),
        ("I'd say a walk would help.", False),
    ],
)
def test_numbers_and_said_letters_are_not_replies(
    reply: str, fires: bool, one_item_per_kind: list[Scenario]
) -> None:
    scenario = next(s for s in one_item_per_kind if s.kind == "emotion_support")
    output = f"EMOTION: A\nNEEDS_HELP: yes\nREPLY: {reply}"
    caught = classify_reply(output, scenario)
    assert (caught is not None) == fires
    if caught is not None and "say" in reply:
        assert caught.kind == "answer_lines_only"  # the REPLY field was not empty


@pytest.mark.parametrize(
    ("answer", "fires"),
    [
        ("", True),
        ("   \n", True),
        ("...", True),
        ("?!", True),
        ("[your answer]", True),
        ("<what you would say>", True),
        ("N/A", True),
        ("Study.", False),  # a one-word reference answer is an answer
        ("No.", False),
        ("I hear you.", False),
        ("我明白你的感受。", False),  # no question given: any words are an answer
        ("。。。", True),
    ],
)
def test_therapy_answers(answer: str, fires: bool) -> None:
    assert (classify_reply(answer, None) is not None) == fires


def test_a_therapy_answer_in_a_script_the_question_does_not_use() -> None:
    question = "How do I stop feeling so anxious before exams?"
    chinese = classify_reply("我明白你的感受。", None, question=question)
    assert chinese is not None and chinese.kind == "other_script"
    assert classify_reply("Breathe slowly; 加油!", None, question=question) is None
    assert classify_reply("我明白你的感受。", None, question="我考试前很焦虑，怎么办？") is None


def test_degenerate_loops_are_flagged_at_the_thresholds() -> None:
    assert degenerate_reason("I'm so sorry for your loss. " * 3) is not None
    assert degenerate_reason("I'm so sorry for your loss. " * 2) is None
    assert degenerate_reason("Sorry. " * 5) is None  # short sentences do not count
    # distinct-2 below the limit, over at least DEGENERATE_MIN_WORDS words
    loop = ("and then you can talk to someone " * 10).split()
    assert degenerate_reason(" ".join(loop[:DEGENERATE_MIN_WORDS])) is not None
    assert degenerate_reason(" ".join(loop[: DEGENERATE_MIN_WORDS - 1])) is None
    varied = " ".join(f"word{i}" for i in range(DEGENERATE_MIN_WORDS))
    assert degenerate_reason(varied) is None
    assert 0.3 <= DEGENERATE_DISTINCT_2 <= 0.6


def test_real_text_is_never_flagged_as_a_loop() -> None:
    from empathybench.therapy.questions import load_questions

    references = [q.reference or "" for q in load_questions("sample-v1").questions]
    replies = [r.response for r in real_replies()]
    assert [t for t in references + replies if degenerate_reason(t)] == []


def test_in_independent_batches_only_one_sentence_said_over_and_over_is_a_loop() -> None:
    """The independent labellers wrote a few replies that repeat one sentence (asked for as
    degenerate outputs); the loop flag marks exactly those and nothing else of theirs."""
    flagged, repeats = set(), set()
    for name in INDEPENDENT + ALL_REPLIES:
        for record in load_labels(name):
            reply = record.response.split("REPLY:", 1)[-1]
            sentences = [s.strip(" .!").lower() for s in re.split(r"[.!?]", reply) if s.strip()]
            if len(sentences) >= 4 and len(set(sentences)) == 1:
                repeats.add(record.id)
            if degenerate_reason(record.response):
                flagged.add(record.id)
    assert len(repeats) >= 10
    assert flagged == repeats


# --- no judge is asked -----------------------------------------------------------------


@pytest.fixture
def judge_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeLLMServer(default=ok("{}")) as server:
        yield server


def test_a_scripted_llm_judge_receives_no_request_for_non_replies(
    constructed: list[tuple[Scenario, str]], judge_server: FakeLLMServer
) -> None:
    spec = parse_model_id("openai/judge-test", base_url=judge_server.openai_base_url)

    async def judge_all() -> list[Verdict]:
        judge = OpenAICompatibleModel(spec)
        try:
            return [
                await judge_response(
                    judge, scenario, text, run_id="r", epoch=0, settings=JudgeSettings()
                )
                for scenario, text in constructed
            ]
        finally:
            await judge.aclose()

    verdicts = asyncio.run(judge_all())
    assert judge_server.requests == []
    for (scenario, _), verdict in zip(constructed, verdicts, strict=True):
        assert verdict.no_reply is not None and verdict.raw_outputs == []
        for dimension in TEXT_DIMENSIONS:
            score = verdict.scores[dimension]
            if dimension in judged_dimensions(scenario):
                assert (score.status, score.value, score.reason) == ("scored", 0.0, NO_REPLY)
            else:
                assert score.status == "na"
        if scenario.expected.crisis_resources_expected:
            assert verdict.crisis_referral is False
