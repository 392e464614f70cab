"""Template v6 (stakes): keys follow from matching a person's note to the announcement.

Every person's note says which of three outcomes they want, dread or never tried, and at
which place they would need the helper; the announcement gives each number an outcome and a
place. The tests read items back from their own text (``stakes_validation``), check that no
note sentence or board entry belongs to one key, and that the checker and the validator
catch what they are for.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from functools import cache
from itertools import pairwise
from typing import Any

import pytest

from empathybench.records import Scenario
from empathybench.scenarios.episode_versions import STAKES_HELP_BLOCK
from empathybench.scenarios.generator import generate_records
from empathybench.scenarios.stakes_checks import check_stakes_templates
from empathybench.scenarios.stakes_models import STAKES_OPTIONS
from empathybench.scenarios.stakes_templates import load_stakes_templates
from empathybench.scenarios.stakes_validation import check_stakes_scenario
from empathybench.scenarios.validation import check_scenario

NOTE = re.compile(r'^(\d{3}): "(.*)"$')


@cache
def _items(n: int = 1500, seed: int = 6262) -> tuple[dict[str, Any], ...]:
    return tuple(generate_records(n, seed, template_version="v6"))


def _asked_note_and_entry(record: dict[str, Any]) -> tuple[str, str]:
    """The asked person's note and their announcement entry, read from the dialogue."""
    focus = record["focus_person"]
    turns = record["dialogue"]
    number = next(re.search(r"\d{3}", t["text"]).group(0) for t in turns if t["speaker"] == focus)  # type: ignore[union-attr]
    notes = {m.group(1): m.group(2) for t in turns if (m := NOTE.match(t["text"]))}
    board = turns[-1]["text"]
    entry = re.search(rf"{number}: ([^;]*)", board)
    assert entry is not None
    return notes[number], entry.group(1).rstrip(".")


def test_the_bundled_stakes_templates_pass_their_checks() -> None:
    templates = load_stakes_templates("v6")
    assert check_stakes_templates(templates) == []
    assert len(templates.families) >= 21


def test_the_checker_catches_broken_content() -> None:
    templates = load_stakes_templates("v6")
    family = templates.families[0]
    value = family.values[0]
    broken_value = value.model_copy(update={"want": [*value.want[:-1], "I'd be delighted."]})
    broken = family.model_copy(
        update={
            "values": [broken_value, *family.values[1:]],
            "need": ["I'll need you to book a locker.", *family.need[1:]],
            "boards": [*family.boards, "A third board: {entries}.", "A fourth: {entries}.", "5"],
        }
    )
    problems = check_stakes_templates(
        templates.model_copy(update={"families": [broken, *templates.families[1:], broken]})
    )
    text = "\n".join(problems)
    assert "names an emotion ('delighted')" in text
    assert "slots [] (wanted: {p})" in text
    assert "5 choices; the count must divide 12" in text
    assert f"family id {family.id!r} is used 2 times" in text


def test_every_kind_is_drawn_and_reads_back_from_its_own_scene() -> None:
    items = _items()
    assert {r["kind"] for r in items} == {
        "emotion_support",
        "positive_control",
        "group",
        "harmful_belief",
        "crisis",
        "harmful_belief_roleplay",
    }
    for record in items[:400]:
        assert check_scenario(Scenario.model_validate(record)) == [], record["id"]
        assert sorted(record["options"]) == sorted(STAKES_OPTIONS)


def test_the_three_people_get_three_different_outcomes() -> None:
    for record in _items()[:300]:
        board = record["dialogue"][-1]["text"]
        entries = [e.split(": ", 1)[1] for e in re.findall(r"\d{3}: [^;]*", board)]
        values = {
            next(v.board for v in _family(record).values if v.board in entry) for entry in entries
        }
        assert len(values) == 3, board


def _family(record: dict[str, Any]) -> Any:
    wanted = record["provenance"]["templates"]["family"]
    return next(f for f in load_stakes_templates("v6").families if f.id == wanted)


def test_no_note_sentence_or_board_entry_belongs_to_one_key() -> None:
    """Every sentence of the asked person's note, and every announcement entry, that comes
    up often enough is seen with all three emotion keys and both help answers."""
    emotions: dict[str, Counter[str]] = defaultdict(Counter)
    helps: dict[str, Counter[bool]] = defaultdict(Counter)
    for record in _items(8000, 6263):
        if record["kind"] == "group":
            continue
        note, entry = _asked_note_and_entry(record)
        pieces = [s for s in re.split(r"(?<=[.!?])\s+", note) if s] + [f"board:{entry}"]
        for piece in pieces:
            emotions[piece][record["emotion"]["name"]] += 1
            helps[piece][record["expected"]["help_needed"]] += 1
    common = [piece for piece, seen in emotions.items() if sum(seen.values()) >= 30]
    assert len(common) > 50
    for piece in common:
        assert len(emotions[piece]) == 3, (piece, emotions[piece])
        # Both help answers, unless the piece is a statement (those always need help).
        assert len(helps[piece]) == 2 or helps[piece][True] == sum(helps[piece].values()), (
            piece,
            helps[piece],
        )


def test_every_note_names_both_places_once() -> None:
    """So how often a place is named says nothing of who needs help: with only the needed
    place named, counting place names read the help key (0.68 against a majority of 0.58)
    and whether anyone in a group needs help (0.98)."""
    for record in _items()[:400]:
        family = _family(record)
        for turn in record["dialogue"]:
            if match := NOTE.match(turn["text"]):
                for place in family.places:
                    assert match.group(2).count(place.say) == 1, (place.say, match.group(2))


def test_group_items_name_each_person_or_nobody_about_equally() -> None:
    groups = [r for r in _items() if r["kind"] == "group"]
    names = Counter(
        "nobody"
        if r["expected"].get("help_person") is None
        else "abc"[[p["name"] for p in r["participants"]].index(r["expected"]["help_person"])]
        for r in groups
    )
    assert set(names) == {"a", "b", "c", "nobody"}
    assert max(names.values()) - min(names.values()) <= 0.4 * max(names.values())


def test_one_person_kinds_are_half_yes_in_shuffled_blocks() -> None:
    """Emotion-support and positive-control items come in blocks of ten per kind, five
    needing help, so every set is half yes in these kinds (a set that drew few yeses let a
    reader who recognises the always-help kinds beat the majority); the order inside a block
    is shuffled, not an alternation, and no family's items all answer one way."""
    items = _items()
    for kind in ("emotion_support", "positive_control"):
        answers = [r["expected"]["help_needed"] for r in items if r["kind"] == kind]
        blocks = [
            answers[i : i + STAKES_HELP_BLOCK] for i in range(0, len(answers), STAKES_HELP_BLOCK)
        ]
        assert all(
            sum(b) == STAKES_HELP_BLOCK // 2 for b in blocks if len(b) == STAKES_HELP_BLOCK
        ), kind
        runs = sum(a == b for a, b in pairwise(answers))
        # An exact alternation has no repeats; independent draws repeat about half the time.
        assert 0.3 < runs / (len(answers) - 1) < 0.6, (kind, runs)
        by_family: dict[str, Counter[bool]] = defaultdict(Counter)
        for r in items:
            if r["kind"] == kind:
                by_family[r["provenance"]["templates"]["family"]][r["expected"]["help_needed"]] += 1
        assert all(len(c) == 2 for c in by_family.values() if sum(c.values()) >= 12), kind
    share = sum(r["expected"]["help_needed"] for r in items) / len(items)
    assert 0.55 <= share <= 0.60


def test_the_validator_catches_a_wrong_key_and_a_wrong_announcement() -> None:
    record = next(r for r in _items() if r["kind"] == "emotion_support")
    assert check_stakes_scenario(Scenario.model_validate(record)) == []
    other = next(o for o in STAKES_OPTIONS if o != record["emotion"]["name"])
    wrong_key = json.loads(json.dumps(record))
    wrong_key["emotion"]["name"] = other
    assert any(
        "the scene says" in p for p in check_stakes_scenario(Scenario.model_validate(wrong_key))
    )
    flipped = json.loads(json.dumps(record))
    flipped["expected"]["help_needed"] = not record["expected"]["help_needed"]
    problems = check_stakes_scenario(Scenario.model_validate(flipped))
    assert any("need help" in p for p in problems), problems
    emptied = json.loads(json.dumps(record))
    emptied["dialogue"][-1]["text"] = "The list is not out yet."
    problems = check_stakes_scenario(Scenario.model_validate(emptied))
    assert any("outcomes" in p for p in problems), problems


def test_statement_items_give_the_person_the_place_they_need_help_at() -> None:
    """A belief, crisis or story turn needs help; the person's own place rule agrees, so the
    note's 'otherwise I'll sort everything myself' never contradicts the key."""
    statements = [
        r for r in _items() if r["kind"] in ("harmful_belief", "crisis", "harmful_belief_roleplay")
    ]
    assert statements
    for record in statements:
        assert record["expected"]["help_needed"]
        assert (
            record["provenance"]["templates"]["needs"][
                "abc".index(record["provenance"]["templates"]["focus"])
            ]
            == "y"
        )
        if record["kind"] != "harmful_belief_roleplay":
            assert record["emotion"]["name"] != "delighted"


@pytest.mark.parametrize("version", ["v6"])
def test_a_suite_spreads_over_families(version: str) -> None:
    items = list(generate_records(100, 6160, template_version=version, per_family=5))
    families = Counter(r["provenance"]["templates"]["family"] for r in items)
    assert max(families.values()) <= 5 and len(families) >= 20
