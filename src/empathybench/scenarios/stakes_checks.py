"""The static rules every stakes template version (v6 on) must pass.

``check_stakes_templates`` is their single source: the test-suite runs it, and content
writers run it through ``python -m empathybench.scenarios.stakes_templates``. What only a
reader can judge (a want that is a preference, not a need; a value many people can share;
a dread that is a cost, not a fear) is in the writing guide,
benchmarks/prototypes/v6_stakes/round3/WRITING_GUIDE.md, and was checked by blind readings.
"""

from __future__ import annotations

import re
from collections import Counter

from empathybench.scenarios.episode_rules import MAX_LINE_WORDS
from empathybench.scenarios.episode_versions import ARRIVAL_RADIX, CHOICE_RADIX
from empathybench.scenarios.stakes_models import (
    ATTITUDES,
    STAKES_OPTIONS,
    StakesFamily,
    StakesTemplateSet,
)
from empathybench.scenarios.templates import emotion_word_pattern

_BRACES = re.compile(r"\{[^{}]*\}")
MAX_NOTE_SENTENCE_WORDS = 25
"""Each sentence of a note (want, dread, unknown) stays short: a note holds four of them."""
MAX_NEED_WORDS = 30


def _slots(text: str) -> Counter[str]:
    return Counter(_BRACES.findall(text))


class _Checker:
    def __init__(self, templates: StakesTemplateSet) -> None:
        self.templates = templates
        self.problems: list[str] = []
        self.emotion_form = emotion_word_pattern(
            form for emotion in templates.emotions for form in emotion.forms
        )

    def text(self, where: str, text: str, slots: tuple[str, ...] = (), words: int = 0) -> None:
        found = _slots(text)
        if found != Counter(slots):
            wanted = ", ".join(slots) or "none"
            self.problems.append(f"{where}: slots {sorted(found)} (wanted: {wanted}): {text!r}")
        if '"' in text:
            self.problems.append(f"{where}: double quote inside a line: {text!r}")
        match = self.emotion_form.search(text)
        if match:
            self.problems.append(f"{where}: names an emotion ({match.group(0)!r}): {text!r}")
        if text != text.strip() or "  " in text or not text:
            self.problems.append(f"{where}: empty or stray whitespace: {text!r}")
        if words and len(text.split()) > words:
            self.problems.append(f"{where}: over {words} words: {text!r}")

    def choices(self, where: str, count: int, radix: int = CHOICE_RADIX) -> None:
        if radix % count:
            self.problems.append(
                f"{where}: {count} choices; the count must divide {radix} so each is drawn "
                "equally often"
            )

    def family(self, family: StakesFamily) -> None:
        where = f"family {family.id}"
        self.text(f"{where} scene", family.scene)
        if family.scene.endswith("."):
            self.problems.append(f"{where}: the scene ends with a period")
        self.text(f"{where} helper_role", family.helper_role)
        for name, lines, slots in (
            ("intro", family.intros, ("{names}",)),
            ("header", family.headers, ()),
            ("board", family.boards, ("{entries}",)),
        ):
            self.choices(f"{where} {name}s", len(lines))
            for text in lines:
                self.text(f"{where} {name}", text, slots, MAX_LINE_WORDS)
        self.text(f"{where} entry", family.entry, ("{ref}", "{v}", "{p}"))
        boards = [value.board for value in family.values]
        if len(set(boards)) != len(boards):
            self.problems.append(f"{where}: two values share a board name")
        places = family.places
        if len({p.say for p in places}) != 2 or len({p.board for p in places}) != 2:
            self.problems.append(f"{where}: the two places share a name")
        for place in places:
            self.text(f"{where} place", place.say)
            self.text(f"{where} place", place.board)
        for value in family.values:
            self.text(f"{where} value", value.board)
            for attitude in ATTITUDES:
                phrasings = value.phrasings(attitude)
                self.choices(f"{where} {value.board} {attitude}", len(phrasings))
                if len(set(phrasings)) != len(phrasings):
                    self.problems.append(f"{where} {value.board} {attitude}: a repeated phrasing")
                for text in phrasings:
                    self.text(
                        f"{where} {value.board} {attitude}", text, (), MAX_NOTE_SENTENCE_WORDS
                    )
        self.choices(f"{where} need", len(family.need))
        for text in family.need:
            self.text(f"{where} need", text, ("{p}",), MAX_NEED_WORDS)

    def run(self) -> list[str]:
        templates = self.templates
        ids = Counter(family.id for family in templates.families)
        self.problems += [f"family id {i!r} is used {n} times" for i, n in ids.items() if n > 1]
        for family in templates.families:
            self.family(family)
        self.choices("arrivals", len(templates.arrivals), ARRIVAL_RADIX)
        self.choices("free", len(templates.free))
        for text in templates.free:
            self.text("free", text, ("{q}",), MAX_NEED_WORDS)
        for text in templates.arrivals:
            self.text("arrival", text, ("{ref}",))
        for name in STAKES_OPTIONS:
            if name not in templates.emotion_words:
                self.problems.append(f"the key {name!r} is not in the emotion bank")
        known = {belief.category for belief in templates.beliefs}
        for category in templates.belief_categories:
            if category not in known:
                self.problems.append(f"unknown belief category {category!r}")
        return self.problems


def check_stakes_templates(templates: StakesTemplateSet) -> list[str]:
    """Every rule broken by a stakes template set (empty when it passes)."""
    return _Checker(templates).run()
