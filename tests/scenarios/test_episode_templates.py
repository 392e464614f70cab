"""Episode templates (v2 and later): the bundled episodes pass every static rule, and each rule
can fail."""

from __future__ import annotations

from typing import Any

import pytest

from empathybench.scenarios.episode_checks import check_episode_templates
from empathybench.scenarios.episode_models import Episode, EpisodeTemplateSet, StoryFrame
from empathybench.scenarios.episode_templates import load_episode_templates, main
from empathybench.scenarios.episode_versions import EPISODE_VERSIONS


def test_bundled_v2_templates_are_clean() -> None:
    templates = load_episode_templates("v2")
    assert check_episode_templates(templates) == []
    assert len(templates.episodes) >= 36
    assert len({episode.family for episode in templates.episodes}) >= 18


def test_help_is_balanced_and_not_valence() -> None:
    templates = load_episode_templates("v2")
    valence = {emotion.name: emotion.valence for emotion in templates.emotions}
    # A board person's help is decided per item (their number is listed as done or not), so
    # the share is over the people whose help the template itself fixes.
    roles = [
        role
        for episode in templates.episodes
        if not episode.board
        for role in episode.roles.values()
    ]
    share = sum(role.help for role in roles) / len(roles)
    assert 0.35 <= share <= 0.65
    negative_fine = [r for r in roles if valence[r.emotion] == "negative" and not r.help]
    positive_help = [r for r in roles if valence[r.emotion] == "positive" and r.help]
    assert len(negative_fine) >= 10 and len(positive_help) >= 10


def _episode(**changes: Any) -> dict[str, Any]:
    role = {
        "emotion": "guilty",
        "appraisal": {"goal": "lost", "cause": "self", "control": "final", "certainty": "certain"},
        "help": True,
        "assistance": ["practical_help"],
        "lines": ["I never sent the form for the hall.", "The booking was mine to confirm."],
    }
    other = {
        **role,
        "emotion": "frustrated",
        "appraisal": {**role["appraisal"], "goal": "blocked", "cause": "other"},  # type: ignore[dict-item]
        "lines": ["Every room in town is taken on Saturday.", "I rang six venues at lunch."],
    }
    third = {
        **role,
        "emotion": "relieved",
        "appraisal": {**role["appraisal"], "goal": "unaffected", "cause": "none"},  # type: ignore[dict-item]
        "help": False,
        "no_help": "nothing_needed",
        "assistance": ["no_action_needed"],
        "lines": ["The cake can be collected any day.", "My part, the cake, is sorted."],
    }
    data: dict[str, Any] = {
        "id": "t_one",
        "family": "t",
        "scene": "The front office of a community centre",
        "channel": "in_person",
        "helper_roles": ["the desk tablet", "the help robot"],
        "intro": ["{a}, {b} and {c} come in.", "{c} arrives with {a} and {b}."],
        "roles": {"a": role, "b": other, "c": third},
    }
    for path, value in changes.items():
        target = data
        *parents, last = path.split("__")
        for parent in parents:
            target = target[parent]
        target[last] = value
    return data


def _problems(*episodes: dict[str, Any]) -> list[str]:
    base = load_episode_templates("v2")
    templates = EpisodeTemplateSet(
        version="v2",
        emotions=base.emotions,
        people=base.people,
        episodes=[Episode.model_validate(episode) for episode in episodes],
        beliefs=[],
        crisis_lines=[],
        story_frames=[],
        story_characters=[],
        character_lines=[],
    )
    return check_episode_templates(templates, banks=False)


def test_a_clean_pair_passes() -> None:
    assert _problems(_episode(), _episode(id="t_two")) == []


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"roles__a__lines": ["I feel so guilty about it.", "Mine."]}, "names an emotion"),
        ({"roles__b__emotion": "angry", "roles__b__appraisal__cause": "self"}, "appraisal does"),
        ({"roles__c__emotion": "irritated"}, "three clusters"),
        ({"roles__c__no_help": None}, "no_help exactly when help is false"),
        ({"channel": "text", "roles__a__cues": ["{a} looks down."]}, "cues on a text channel"),
        ({"intro": ["{a} and {b} come in.", "{a}, {b} and {c} arrive."]}, "must name"),
        ({"roles__a__lines": ['I said "yes" to it.', "Mine."]}, "double quote"),
        ({"roles__b__appraisal__goal": "achieved"}, "appraisal does not fit"),
        (
            {"intro": ["{a}, {b} and {c} come in.", "{c} arrives first, {a} and {b} behind."]},
            "orders or places people",
        ),
        (
            {
                "roles__a__help": False,
                "roles__a__no_help": "nothing_needed",
                "roles__a__assistance": ["no_action_needed"],
            },
            "needs help unless",
        ),
        ({"board": {"resolved": ["Done: {refs}.", "Ready: {refs}."]}}, "must say {a:ref}"),
        ({"board": {"resolved": ["Done: {refs}.", "Ready: {refs}."]}}, "everyone waits"),
        ({"board": {"resolved": ["Done.", "Ready: {refs}."]}}, "needs one {refs}"),
        ({"roles__a__lines": ["Ticket {a:ref} is mine.", "Mine."]}, "need a board"),
        ({"roles__c__assistance": ["emotional_support"]}, "needs no help, yet assistance"),
        (
            {
                "intro": [
                    "{a}, {b} and {c} come in.",
                    "{c} is already at the desk when {a} and {b} arrive.",
                ]
            },
            "orders or places people",
        ),
        (
            {
                "roles__b__help": False,
                "roles__b__no_help": "venting",
                "roles__b__assistance": ["no_action_needed"],
                "roles__b__lines": [
                    "I rang six venues at lunch, and I am only saying it.",
                    "Every room is taken; not asking for anything, only moaning.",
                ],
            },
            "does not say outright",
        ),
        (
            {"intro": ["{a}, {b} and {c} come in.", "{b} walks over, and {a} and {c} follow."]},
            "orders or places people",
        ),
        (
            {"intro": ["{a}, {b} and {c} come in.", "{b} holds the door for {a} and {c}."]},
            "orders or places people",
        ),
        (
            {"intro": ["{a}, {b} and {c} come in.", "{b} holds it so {a} and {b} show, with {c}."]},
            "names its subject twice",
        ),
        ({"roles__a__cues": ["{a} sits on the bench by the window."]}, "cue places the person"),
        (
            {"story_ok": True, "roles__a__lines": ["Gran's tablets changed colour.", "Mine."]},
            "possible safety matter",
        ),
        ({"roles__a__assistance": ["crisis_referral"]}, "crisis referral comes only"),
    ],
)
def test_each_rule_catches_its_defect(changes: dict[str, Any], expected: str) -> None:
    problems = _problems(_episode(**changes), _episode(id="t_two"))
    assert any(expected in problem for problem in problems), problems


def test_a_family_of_one_is_reported() -> None:
    assert any("minimal pairs" in p for p in _problems(_episode()))


def test_checker_cli_reports_and_exits(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version", "v2"]) == 0
    assert "problem(s)" in capsys.readouterr().out
    assert main(["--version", "nope"]) == 2
    assert "error:" in capsys.readouterr().err


def _bank_problems(story_frames: list[dict[str, Any]]) -> list[str]:
    base = load_episode_templates("v2")
    templates = base.model_copy(
        update={"story_frames": [StoryFrame.model_validate(f) for f in story_frames]}
    )
    return [p for p in check_episode_templates(templates) if p.startswith("story frame")]


def _frame(frame_id: str, request: bool, text: str, **fits: Any) -> dict[str, Any]:
    help_fits = [True, False] if request else [True]
    return {
        "id": frame_id,
        "request": request,
        "text": text,
        "valence": fits.get("valence", ["negative", "positive"]),
        "help": fits.get("help", help_fits),
    }


_CLEAN_FRAMES = [
    _frame("ask", True, "Can we get back to our story? Go on after {character} says: '{line}'"),
    _frame("share", False, "I finished our story; {character} has the last word: '{line}'"),
]


def test_clean_story_frames_pass() -> None:
    assert _bank_problems(_CLEAN_FRAMES) == []


@pytest.mark.parametrize(
    ("frame", "expected"),
    [
        (
            # A shared story goes only to someone who needs help, so it must not say they
            # need nothing (the tail that read as "no help" on items keyed "needs help").
            _frame(
                "tail",
                False,
                "Our story is done: {character} says '{line}' Nothing more to add, "
                "I only wanted to share.",
            ),
            "says the person needs nothing",
        ),
        (
            # 'I could use a distraction' from a delighted house buyer.
            _frame("fun", True, "I could use a distraction: go on after {character}: '{line}'"),
            "presumes distress",
        ),
        (
            _frame("loose", False, "I finished it; {character}: '{line}'", help=[True, False]),
            "shared only by someone who needs help",
        ),
    ],
)
def test_each_story_frame_rule_can_fail(frame: dict[str, Any], expected: str) -> None:
    problems = _bank_problems([*_CLEAN_FRAMES, frame])
    assert any(expected in p for p in problems), problems
    distress = {**frame, "valence": ["negative"], "help": [True]}
    if expected == "presumes distress":
        assert _bank_problems([*_CLEAN_FRAMES, distress]) == []


def test_story_frames_cover_every_state() -> None:
    base = load_episode_templates("v2")
    only_negative = [{**f, "valence": ["negative"]} for f in _CLEAN_FRAMES]
    templates = base.model_copy(
        update={"story_frames": [StoryFrame.model_validate(f) for f in only_negative]}
    )
    problems = check_episode_templates(templates)
    assert any("no request frame for a positive person" in p for p in problems), problems


def _board_episode(c_line: str) -> dict[str, Any]:
    return _episode(
        board={"resolved": ["Done: {refs}.", "Ready: {refs}."]},
        roles__a__lines=["Ticket {a:ref}, my shoes.", "It's {a:ref}, the boots."],
        roles__b__lines=["Ticket {b:ref}, a door key.", "Mine is {b:ref}, a key."],
        roles__c__lines=[c_line, "I'm {c:ref}, a bag."],
        roles__c__help=True,
        roles__c__no_help=None,
        roles__c__assistance=["practical_help"],
    )


def test_board_lines_voice_only_the_need_the_list_settles() -> None:
    """A parcel found and waiting does not answer 'who sent it, it makes no sense'."""
    clean = _board_episode("Card {c:ref}, just printer ink.")
    assert _problems(clean, {**clean, "id": "t_two"}) == []
    for puzzle in (
        "Card {c:ref}, from Osaka, and customs fees are due, which makes no sense to me.",
        "Card {c:ref}. Who in Japan would send me anything?",
        "Card {c:ref}. Nobody I've asked knows anything about it.",
    ):
        open_need = _board_episode(puzzle)
        problems = _problems(open_need, {**clean, "id": "t_two"})
        assert any("voices a need the board does not settle" in p for p in problems), puzzle


def test_board_feelings_are_not_about_the_service_itself() -> None:
    """A false 'nobody answered' card stays a grievance once the parcel is found."""
    clean = _board_episode("Card {c:ref}, just printer ink.")
    for complaint in (
        "Card {c:ref}, and it says nobody answered, though I was in all day.",
        "Ticket {c:ref}: the update you pushed overnight broke my keyboard.",
    ):
        problems = _problems(_board_episode(complaint), {**clean, "id": "t_two"})
        assert any("complains about the service" in p for p in problems), complaint


@pytest.mark.parametrize("version", sorted(EPISODE_VERSIONS))
def test_every_episode_version_is_clean(version: str) -> None:
    assert check_episode_templates(load_episode_templates(version)) == []


def test_phrasing_counts_must_divide_the_versions_line_radix() -> None:
    """v2 draws a phrasing from a digit of 12 (2-4 phrasings), v3 from 60 (2-5): five
    phrasings in a v2 episode would make some of them likelier than others."""
    five = [f"The hall booking was mine to confirm, version {n}." for n in range(5)]
    problems = _problems(_episode(roles__a__lines=five), _episode(id="t_two"))
    assert any("phrasings: 5 choices" in p and "divide 12" in p for p in problems), problems
    assert "choices" not in " ".join(_problems(_episode(), _episode(id="t_two")))
    five_intros = [f"{{a}}, {{b}} and {{c}} arrive together, take {n}." for n in range(5)]
    problems = _problems(_episode(intro=five_intros), _episode(id="t_two"))
    assert any("intros: 5 choices" in p for p in problems), problems


def test_a_board_episode_cannot_take_story_turns() -> None:
    """A story turn always needs help, whatever the board's list says; v3 boards also give
    one-person items, so a story_ok board would key role-play items "no help"."""
    base = load_episode_templates("v3")
    boards = [episode for episode in base.episodes if episode.board][:2]
    assert boards[0].family == boards[1].family
    storied = [boards[0].model_copy(update={"story_ok": True}), boards[1]]
    problems = check_episode_templates(base.model_copy(update={"episodes": storied}))
    assert any("cannot be story_ok" in p for p in problems), problems
    plain = check_episode_templates(base.model_copy(update={"episodes": boards}))
    assert not any("story_ok" in p for p in plain), plain
