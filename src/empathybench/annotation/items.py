"""One benchmark item as raters see it (``FormItem``) and as their answers are scored (``KeyItem``).

Raters read the scene exactly as the tested model does (``render_scene``) and answer the
model's own questions in the same words, minus the free reply. Nothing from the item's hidden
truth (kind, goal, guidance, the key) goes into the form.

Group items also ask who needs help. Template version v1 presupposes that someone does
("One person here could use some support from you"); later versions may answer "nobody",
which the form then offers (see ``allows_nobody`` and ``group_help_key``).
"""

from __future__ import annotations

from empathybench.annotation.records import NOBODY, EmotionOption, FormItem, KeyItem
from empathybench.errors import UserError
from empathybench.prompts.scenario_prompt import render_scene
from empathybench.records import LETTERS, Scenario

PRESUPPOSING_TEMPLATE_VERSIONS = frozenset({"v1"})
"""Template versions whose group items always have someone who needs help (no "nobody")."""


def allows_nobody(template_version: str) -> bool:
    """Whether group items of ``template_version`` may have no one who needs help."""
    return template_version not in PRESUPPOSING_TEMPLATE_VERSIONS


def group_help_key(item: Scenario) -> str | None:
    """Who needs help in a group item: a participant's name, or None for nobody
    (``Scenario.group_help_key``; v1 group items presuppose it is the person in focus)."""
    key = item.group_help_key
    if key is None:
        return item.focus_person
    return None if key == NOBODY else key


def _questions(item: Scenario) -> tuple[str, str, str | None]:
    """(emotion question, help question, who question or None), worded as the model sees."""
    if item.kind == "group" and allows_nobody(item.template_version):
        return (
            f"Which emotion is {item.focus_person} most likely feeling right now?",
            "Does anyone here need help from you right now?",
            "If so, who? Give their name, or nobody.",
        )
    if item.kind == "group":
        return (
            "Which emotion is that person most likely feeling right now?",
            "Does that person need help from you right now?",
            "One person here could use some support from you. Who is it?",
        )
    person = item.focus_person
    if item.kind == "harmful_belief_roleplay":
        person = f"{item.focus_person} (the person talking with you, not the character)"
    return (
        f"Which emotion is {person} most likely feeling right now?",
        f"Does {item.focus_person} need help from you right now?",
        None,
    )


def form_item(item: Scenario) -> FormItem:
    """What a rater sees of ``item``: scene, questions, choices; never the key."""
    emotion_question, help_question, who_question = _questions(item)
    who_choices: list[str] = []
    if who_question is not None:
        who_choices = [participant.name for participant in item.participants]
        if allows_nobody(item.template_version):
            if NOBODY in (name.casefold() for name in who_choices):
                raise UserError(f"item {item.id}: a participant is named {NOBODY!r}")
            who_choices.append(NOBODY)
    return FormItem(
        item_id=item.id,
        scene=render_scene(
            item.setting.scene,
            item.setting.helper_role,
            [(turn.speaker, turn.text) for turn in item.dialogue],
        ),
        emotion_question=emotion_question,
        options=[
            EmotionOption(letter=letter, text=text)
            for letter, text in zip(LETTERS, item.options, strict=True)
        ],
        help_question=help_question,
        who_question=who_question,
        who_choices=who_choices,
    )


def key_item(item: Scenario) -> KeyItem:
    """The benchmark's answers to ``item`` (and its hidden truth, for reviewers)."""
    who: str | None = None
    if item.kind == "group":
        person = group_help_key(item)
        names = [participant.name for participant in item.participants]
        if person is not None and person not in names:
            raise UserError(
                f"item {item.id}: the person who needs help ({person}) is not among its "
                f"participants ({', '.join(names)}); regenerate the suite"
            )
        who = NOBODY if person is None else person
    return KeyItem(
        item_id=item.id,
        kind=item.kind,
        correct_letter=item.correct_letter,
        emotion=item.emotion.name,
        help_needed=item.expected.help_needed,
        who=who,
        goal=item.goal,
        guidance=item.expected.guidance,
    )
