"""Each baseline on items designed around its one cue: it follows the cue, and the expected
answers sit at different option positions, so a baseline that ignored its cue (or always
answered one position) would fail here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from empathybench.audit.baseline import Baseline
from empathybench.audit.keys import NO, NOBODY, YES
from empathybench.audit.ngram import (
    NgramAsked,
    NgramChoice,
    NgramLinkedBoard,
    NgramLinkedNote,
    NgramLinkedNoteBoard,
    NgramWho,
    WordCounts,
)
from empathybench.audit.rules import (
    AlwaysYes,
    CueLines,
    CueLinesWho,
    FirstNamed,
    FirstSpeaker,
    LastSpeaker,
    LongestOption,
    MajorityKey,
    MajorityLetter,
    MostWords,
    ShortestOption,
    ValenceEmotion,
    ValenceHelp,
)
from empathybench.audit.scene_lookup import SceneLookup
from empathybench.audit.suite_audit import make_baselines
from empathybench.audit.visible import VisibleItem
from empathybench.records import Scenario
from tests.fakes.audit_items import scene, view, who_view

ORDERS = [("joy", "fear", "anger"), ("anger", "joy", "fear"), ("fear", "anger", "joy")]
NAMES = ["Ana", "Ben", "Cyd", "Dee"]
EMOTION_CUES = {
    "joy": "We won the cup and everyone is cheering.",
    "fear": "There is a strange noise downstairs in the dark.",
    "anger": "Someone scratched my car on purpose again.",
}
HELP_CUES = {
    YES: "My wallet was stolen and I cannot get home tonight.",
    NO: "Everything went fine today, I am just relaxing.",
}
GLAD = "This is wonderful, I love it, best day ever!"
SAD = "This is awful, I hate it, worst day ever."
VALENCES = {"joy": "positive", "calm": "positive", "fear": "negative", "anger": "negative"}


@dataclass
class Case:
    make: Callable[[], Baseline]
    test: list[VisibleItem]
    expected: list[str]
    train: list[VisibleItem] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)


def _cue_training(
    cues: dict[str, str], candidates: tuple[str, ...] | None
) -> tuple[list[VisibleItem], list[str]]:
    train, keys = [], []
    for key, cue in cues.items():
        for i, name in enumerate(NAMES):
            item = scene([("narration", f"{name} sits down."), (name, cue)], ORDERS[i % 3])
            train.append(view(item, candidates))
            keys.append(key)
    return train, keys


def emotion_cue_case(make: Callable[[], Baseline]) -> Case:
    test = [view(scene([("Eve", EMOTION_CUES[e])], ORDERS[0])) for e in ORDERS[0]]
    return Case(make, test, list(ORDERS[0]), *_cue_training(EMOTION_CUES, None))


def help_cue_case(make: Callable[[], Baseline]) -> Case:
    test = [view(scene([("Eve", HELP_CUES[k])]), (YES, NO)) for k in (YES, NO)]
    return Case(make, test, [YES, NO], *_cue_training(HELP_CUES, (YES, NO)))


def _asked_pairs(
    cues: dict[str, str], candidates: tuple[str, ...] | None
) -> tuple[list[VisibleItem], list[str]]:
    """Two people speak, each a different cue; the key is the cue of the one asked about."""
    train, keys = [], []
    for i, (asked, other) in enumerate([("Ana", "Ben"), ("Ben", "Cyd"), ("Cyd", "Dee")]):
        for key, cue in cues.items():
            for other_key, other_cue in cues.items():
                if other_key != key:
                    lines = [(asked, cue), (other, other_cue)][:: 1 if i % 2 else -1]
                    train.append(view(scene(lines, ORDERS[i], asked=asked), candidates))
                    keys.append(key)
    return train, keys


def asked_emotion_case() -> Case:
    """Each test item holds every cue once, so only whose words they are gives the key."""
    test, expected = [], []
    for i, key in enumerate(ORDERS[0]):
        others = [e for e in ORDERS[0] if e != key]
        lines = [("Fay", EMOTION_CUES[others[0]]), ("Eve", EMOTION_CUES[key])]
        lines.append(("Gus", EMOTION_CUES[others[1]]))
        test.append(view(scene(lines, ORDERS[i], asked="Eve")))
        expected.append(key)
    return Case(NgramAsked, test, expected, *_asked_pairs(EMOTION_CUES, None))


def asked_help_case() -> Case:
    test = [
        view(scene([("Fay", HELP_CUES[NO]), ("Eve", HELP_CUES[YES])], asked="Eve"), (YES, NO)),
        view(scene([("Eve", HELP_CUES[NO]), ("Fay", HELP_CUES[YES])], asked="Eve"), (YES, NO)),
    ]
    return Case(NgramAsked, test, [YES, NO], *_asked_pairs(HELP_CUES, (YES, NO)))


def _linked_scene(
    people: tuple[str, str, str], numbers: tuple[int, int, int], notes: list[str], asked: str
) -> Scenario:
    """v5's form: each person says only their number; the notes follow, by number."""
    lines = [(person, f"I'm {number}.") for person, number in zip(people, numbers, strict=True)]
    filed = sorted(zip(numbers, notes, strict=True))
    lines += [("narration", f'{number}: "{note}"') for number, note in filed]
    return scene(lines, asked=asked)


def _linked_training(
    cues: dict[str, str], candidates: tuple[str, ...] | None
) -> tuple[list[VisibleItem], list[str]]:
    train, keys = [], []
    keyed = list(cues)
    for i in range(12):
        people = ("Ana", "Ben", "Cyd")
        numbers = (100 + 37 * i, 300 + 11 * i, 700 - 13 * i)
        notes = [cues[keyed[(i + j) % len(keyed)]] for j in range(3)]
        asked = people[i % 3]
        train.append(view(_linked_scene(people, numbers, notes, asked), candidates))
        keys.append(keyed[(i + i % 3) % len(keyed)])
    return train, keys


def linked_case(cues: dict[str, str], candidates: tuple[str, ...] | None) -> Case:
    """Every note is in every test scene; only the number the asked person says picks the
    note (and so the key), whatever order people speak in."""
    test, expected = [], []
    keyed = list(cues)
    for i, key in enumerate(keyed):
        notes = [cues[key], *(cues[k] for k in keyed if k != key)][:3]
        while len(notes) < 3:
            notes.append(cues[keyed[-1 - len(notes) % len(keyed)]])
        people = ("Gus", "Eve", "Fay")[i % 3 :] + ("Gus", "Eve", "Fay")[: i % 3]
        numbers = (905 - i, 150 + i, 480 + i)
        eve = people.index("Eve")
        numbers_for_notes = (numbers[eve], *(n for j, n in enumerate(numbers) if j != eve))
        scenario = _linked_scene(
            ("Eve", *(p for p in people if p != "Eve")),  # type: ignore[arg-type]
            numbers_for_notes,  # type: ignore[arg-type]
            notes,
            asked="Eve",
        )
        test.append(view(scenario, candidates))
        expected.append(key)
    return Case(NgramLinkedNote, test, expected, *_linked_training(cues, candidates))


NEUTRAL = "I left this before the list came out."


def _board_scene(
    people: tuple[str, str, str],
    numbers: tuple[int, int, int],
    notes: list[str],
    entries: list[str],
    asked: str,
) -> Scenario:
    """v6's form: v5's notes, then a closing announcement with an entry per number."""
    lines = [(person, f"I'm {number}.") for person, number in zip(people, numbers, strict=True)]
    filed = sorted(zip(numbers, notes, entries, strict=True))
    lines += [("narration", f'{number}: "{note}"') for number, note, _ in filed]
    listed = "; ".join(f"{number}: {entry}" for number, _, entry in filed)
    lines.append(("narration", f"The list goes up: {listed}."))
    return scene(lines, asked=asked)


def _board_items(
    cues: dict[str, str], candidates: tuple[str, ...] | None, in_notes: bool, start: int
) -> tuple[list[VisibleItem], list[str]]:
    """Scenes whose cues sit in the board entries (or, ``in_notes``, in the notes, the entries
    all the same); the asked person's cue is the key, wherever they stand or speak."""
    items, keys = [], []
    keyed = list(cues)
    for i in range(start, start + 12):
        people = ("Ana", "Ben", "Cyd")[i % 3 :] + ("Ana", "Ben", "Cyd")[: i % 3]
        numbers = (100 + 37 * i, 300 + 11 * i, 700 - 13 * i)
        cued = [cues[keyed[(i + j) % len(keyed)]] for j in range(3)]
        plain = [NEUTRAL] * 3 if not in_notes else ["a place on the rota"] * 3
        notes, entries = (cued, plain) if in_notes else (plain, cued)
        asked = people[(i // 3) % 3]
        scenario = _board_scene(people, numbers, notes, entries, asked)  # type: ignore[arg-type]
        items.append(view(scenario, candidates))
        keys.append(keyed[(i + people.index(asked)) % len(keyed)])
    return items, keys


def linked_board_case(cues: dict[str, str], candidates: tuple[str, ...] | None) -> Case:
    """Every entry is in every test scene; only the number the asked person says picks it."""
    train, keys = _board_items(cues, candidates, in_notes=False, start=0)
    test, expected = _board_items(cues, candidates, in_notes=False, start=12)
    return Case(NgramLinkedBoard, test[:6], expected[:6], train, keys)


def linked_note_board_case(cues: dict[str, str], candidates: tuple[str, ...] | None) -> Case:
    """The cue sits in the asked person's note in some scenes and in their board entry in
    others: the reader follows it in both."""
    train, keys = _board_items(cues, candidates, in_notes=False, start=0)
    more, more_keys = _board_items(cues, candidates, in_notes=True, start=0)
    test, expected = _board_items(cues, candidates, in_notes=False, start=12)
    test_notes, expected_notes = _board_items(cues, candidates, in_notes=True, start=12)
    return Case(
        NgramLinkedNoteBoard,
        test[:4] + test_notes[:4],
        expected[:4] + expected_notes[:4],
        train + more,
        keys + more_keys,
    )


def word_count_case(candidates: tuple[str, ...] | None) -> Case:
    """The key follows from how often a word occurs: once keys one answer, zero or twice the
    other, the same vocabulary throughout, which one weight per word cannot express."""
    keyed = [YES, NO] if candidates else ["joy", "fear"]
    once, other = keyed[1], keyed[0]

    def item(apples: int, i: int) -> VisibleItem:
        lines = [(NAMES[i % 4], "I picked some fruit today.")]
        lines += [("narration", "There is an apple on the table.")] * apples
        lines.append(("narration", "The kettle is on." if i % 2 else "Rain taps the window."))
        return view(scene(lines, ORDERS[i % 3]), candidates)

    train, keys = [], []
    for i in range(24):
        apples = i % 3
        train.append(item(apples, i))
        keys.append(once if apples == 1 else other)
    test = [item(1, 30), item(0, 31), item(2, 32), item(1, 33)]
    return Case(WordCounts, test, [once, other, other, once], train, keys)


def _group(lines: list[tuple[str, str]], names: list[str]) -> VisibleItem:
    return who_view(scene(lines, names=names), nobody=True)


def who_cue_case(make: Callable[[], Baseline]) -> Case:
    upset, calm = "{} is crying quietly in the corner.", "{} is reading the menu."
    train, keys = [], []
    pools = [NAMES[:3], NAMES[1:], [NAMES[0], NAMES[2], NAMES[3]], NAMES[:2] + NAMES[3:]]
    for people in pools:
        for keyed in range(3):
            lines = [
                ("narration", (upset if i == keyed else calm).format(p))
                for i, p in enumerate(people)
            ]
            train.append(_group(lines, people))
            keys.append(people[keyed])
        train.append(_group([("narration", calm.format(p)) for p in people], people))
        keys.append(NOBODY)
    test_people = ["Eve", "Fay", "Gus"]
    test, expected = [], []
    for keyed in range(3):
        lines = [
            ("narration", (upset if i == keyed else calm).format(p))
            for i, p in enumerate(test_people)
        ]
        test.append(_group(lines, test_people))
        expected.append(test_people[keyed])
    test.append(_group([("narration", calm.format(p)) for p in test_people], test_people))
    expected.append(NOBODY)
    return Case(make, test, expected, train, keys)


def _speakers(first: str, second: str) -> VisibleItem:
    people = ["Eve", "Fay", "Gus"]
    opening = ("narration", "Eve, Fay and Gus are at a table.")
    return who_view(scene([opening, (first, "Hi."), (second, "Hello there.")], names=people))


def speaker_case(make: Callable[[], Baseline], last: bool) -> Case:
    pairs = [("Fay", "Gus"), ("Eve", "Fay"), ("Gus", "Eve")]
    return Case(make, [_speakers(*pair) for pair in pairs], [p[1] if last else p[0] for p in pairs])


def most_words_case() -> Case:
    people = ["Eve", "Fay", "Gus"]
    opening = ("narration", "Eve, Fay and Gus are at a table.")
    long = "I have had such a long and tiring day at work today."
    test = [
        who_view(scene([opening, (talker, long), (other, "Hi.")], names=people))
        for talker, other in [("Eve", "Gus"), ("Fay", "Eve"), ("Gus", "Fay")]
    ]
    return Case(MostWords, test, ["Eve", "Fay", "Gus"])


def first_named_case() -> Case:
    listed = ["Eve", "Fay", "Gus"]  # participants' order, which the scene may not follow
    test = [
        who_view(
            scene([("narration", f"{a} waves at {b}."), ("narration", f"{c} waits.")], names=listed)
        )
        for a, b, c in [("Gus", "Eve", "Fay"), ("Fay", "Gus", "Eve"), ("Eve", "Fay", "Gus")]
    ]
    return Case(FirstNamed, test, ["Gus", "Fay", "Eve"])


def valence_case() -> Case:
    test = [
        view(scene([("Eve", GLAD)], ("fear", "joy", "anger"))),
        view(scene([("Eve", SAD)], ("fear", "joy", "calm"))),
        view(scene([("Eve", SAD)], ("joy", "calm", "anger"))),
    ]
    return Case(lambda: ValenceEmotion(VALENCES), test, ["joy", "fear", "anger"])


def majority_letter_case() -> Case:
    train = [view(scene([("Ana", "Hi.")], order)) for order in ORDERS * 2]
    keys = [order[1] for order in ORDERS] + [ORDERS[0][0], ORDERS[1][1], ORDERS[2][2]]
    test = [view(scene([("Eve", "Hello.")], order)) for order in ORDERS]
    return Case(MajorityLetter, test, [order[1] for order in ORDERS], train, keys)


def option_length_case(longest: bool) -> Case:
    options = (
        [("joy", "terrified", "calm"), ("furious", "joy", "sad"), ("sad", "joy", "surprised")]
        if longest
        else [
            ("sad", "furious", "anxious"),
            ("terrified", "joy", "calm"),
            ("furious", "calm", "joy"),
        ]
    )
    test = [view(scene([("Eve", "Hello.")], o)) for o in options]
    expected = [max(o, key=len) if longest else min(o, key=len) for o in options]
    return Case(LongestOption if longest else ShortestOption, test, expected)


def help_rule_case(make: Callable[[], Baseline], expected: list[str]) -> Case:
    test = [view(scene([("Eve", text)]), (YES, NO)) for text in (SAD, GLAD, GLAD)]
    train = [view(scene([("Ana", "Hi.")]), (YES, NO)) for _ in range(5)]
    return Case(make, test, expected, train, [NO, NO, NO, YES, YES])


KITCHEN_LINES = ["The soup is nearly ready.", "I found the good spoons at last."]
BELIEF = "I ruin everything I touch."


def scene_lookup_case(help_question: bool) -> Case:
    """Same words in two settings: the kitchen keys joy (yes), the bus stop fear (no), and
    a kitchen line that goes on with a harsh belief keys anger (yes). Only the setting and
    whether a known line is extended tell them apart; a bag of words sees the same lines."""

    def item(setting: str, name: str, line: str, order: tuple[str, str, str]) -> VisibleItem:
        built = scene([(name, line)], order, setting=setting)
        return view(built, (YES, NO) if help_question else None)

    train, keys = [], []
    for i, name in enumerate(NAMES):
        for line in KITCHEN_LINES:
            train += [item("A kitchen", name, line, ORDERS[i % 3])]
            train += [item("A bus stop", name, line, ORDERS[(i + 1) % 3])]
            keys += [YES, NO] if help_question else ["joy", "fear"]
        train.append(item("A kitchen", name, f"{KITCHEN_LINES[i % 2]} {BELIEF}", ORDERS[i % 3]))
        keys.append(YES if help_question else "anger")
    test = [
        item("A kitchen", "Eve", KITCHEN_LINES[0], ORDERS[1]),
        item("A bus stop", "Eve", KITCHEN_LINES[1], ORDERS[2]),
        item("A kitchen", "Eve", f"{KITCHEN_LINES[1]} {BELIEF}", ORDERS[0]),
        item("A bus stop", "Eve", f"{KITCHEN_LINES[1]} {BELIEF}", ORDERS[0]),
    ]
    # At the bus stop an extended line was never seen in training: the training prior.
    expected = [YES, NO, YES, YES] if help_question else ["joy", "fear", "anger", "joy"]
    return Case(SceneLookup, test, expected, train, keys)


CASES: dict[str, Callable[[], Case]] = {
    "emotion/ngram": lambda: emotion_cue_case(NgramChoice),
    "emotion/asked-person": asked_emotion_case,
    "emotion/linked-note": lambda: linked_case(EMOTION_CUES, None),
    "emotion/linked-board": lambda: linked_board_case(EMOTION_CUES, None),
    "emotion/linked-note+board": lambda: linked_note_board_case(EMOTION_CUES, None),
    "emotion/word-counts": lambda: word_count_case(None),
    "emotion/cue-lines": lambda: emotion_cue_case(CueLines),
    "emotion/valence": valence_case,
    "emotion/scene-lookup": lambda: scene_lookup_case(help_question=False),
    "emotion/majority-letter": majority_letter_case,
    "emotion/longest-option": lambda: option_length_case(True),
    "emotion/shortest-option": lambda: option_length_case(False),
    "help/ngram": lambda: help_cue_case(NgramChoice),
    "help/asked-person": asked_help_case,
    "help/linked-note": lambda: linked_case(HELP_CUES, (YES, NO)),
    "help/linked-board": lambda: linked_board_case(HELP_CUES, (YES, NO)),
    "help/linked-note+board": lambda: linked_note_board_case(HELP_CUES, (YES, NO)),
    "help/word-counts": lambda: word_count_case((YES, NO)),
    "help/cue-lines": lambda: help_cue_case(CueLines),
    "help/scene-lookup": lambda: scene_lookup_case(help_question=True),
    "help/valence": lambda: help_rule_case(ValenceHelp, [YES, NO, NO]),
    "help/always-yes": lambda: help_rule_case(AlwaysYes, [YES, YES, YES]),
    "help/majority": lambda: help_rule_case(MajorityKey, [NO, NO, NO]),
    "who/ngram": lambda: who_cue_case(NgramWho),
    "who/cue-lines": lambda: who_cue_case(CueLinesWho),
    "who/first-speaker": lambda: speaker_case(FirstSpeaker, last=False),
    "who/last-speaker": lambda: speaker_case(LastSpeaker, last=True),
    "who/most-words": most_words_case,
    "who/first-named": first_named_case,
}


def test_every_audited_baseline_has_a_designed_case() -> None:
    audited = {
        f"{question}/{baseline.name}"
        for question in ("emotion", "help", "who")
        for baseline in make_baselines(question, {})  # type: ignore[arg-type]
    }
    assert audited == set(CASES)


@pytest.mark.parametrize("name", list(CASES))
def test_each_baseline_follows_its_cue(name: str) -> None:
    case = CASES[name]()
    baseline = case.make()
    baseline.fit(case.train, case.keys)
    assert baseline.name == name.split("/")[1]
    assert baseline.predict_many(case.test) == case.expected
    assert [baseline.predict(item) for item in case.test] == case.expected
    # The expected answers are not all one position (except where the rule is a position).
    positions = {
        item.candidates.index(answer) for item, answer in zip(case.test, case.expected, strict=True)
    }
    assert len(positions) > 1 or name in {
        "emotion/majority-letter",
        "help/always-yes",
        "help/majority",
        "who/first-named",
    }


def test_the_scene_lookup_tells_question_forms_apart_and_reads_narration_only() -> None:
    """The same setting and words, asked as a one-person question (keyed joy) or a group
    question (keyed fear): only the question form differs. An item where nobody speaks
    (narration only) is looked up like any other."""
    line = "The soup is nearly ready."
    one = [view(scene([(name, line)], ORDERS[i % 3])) for i, name in enumerate(NAMES[:3])]
    group = [
        view(scene([(name, line)], ORDERS[i % 3], names=[name, "Zed"]))
        for i, name in enumerate(NAMES)
    ]
    quiet = [("narration", "The room is quiet.")]
    silent = view(scene(quiet, ORDERS[2], setting="A library"))
    baseline = SceneLookup()
    # Fewer one-person items than group items: ignoring the form would answer fear to both.
    baseline.fit([*one, *group, silent], ["joy"] * 3 + ["fear"] * 4 + ["anger"])
    test_one = view(scene([("Eve", line)], ORDERS[1]))
    test_group = view(scene([("Eve", line)], ORDERS[2], names=["Eve", "Yan"]))
    assert baseline.predict(test_one) == "joy"
    assert baseline.predict(test_group) == "fear"
    assert baseline.predict(view(scene(quiet, ORDERS[0], setting="A library"))) == "anger"
