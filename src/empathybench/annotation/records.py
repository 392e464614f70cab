"""What an annotation study writes to disk.

A study directory holds ``study.json`` (which suite, which items in which order),
``form.json`` (everything a rater sees: the scene as the model reads it, the questions and
their choices, never the answers), ``key.json`` (the benchmark's answers, kept apart so the
app that serves raters never needs it) and ``annotations.sqlite`` (the raters' answers).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from empathybench.records import LETTERS, SCHEMA_VERSION, Letter, Record, ScenarioKind

STUDY_FILE = "study.json"
FORM_FILE = "form.json"
KEY_FILE = "key.json"
ANSWERS_FILE = "annotations.sqlite"
FORM_VERSION = "annotation-form-v1"
"""Version of the questions' wording; bump it when the texts in ``items`` change."""
NOBODY = "nobody"
"""The "who needs help" choice meaning no one here does (template versions that allow it)."""
HELP_ANSWERS: tuple[str, ...] = ("yes", "no")
EMOTION_LETTERS: tuple[Letter, ...] = LETTERS
HelpAnswer = Literal["yes", "no"]


class StudyInfo(Record):
    """``study.json``: the suite a study was drawn from and the items raters see, in order."""

    schema_version: int = SCHEMA_VERSION
    study_id: str
    suite_name: str
    suite_source: str
    """The bundled suite's name or the suite file's path, as given to ``annotate init``."""
    suite_sha256: str
    template_version: str
    seed: int
    form_version: str = FORM_VERSION
    created_at: str
    item_ids: list[str] = Field(min_length=1)
    """The items of the study in the order raters see them (seeded)."""


class EmotionOption(Record):
    letter: Letter
    text: str


class FormItem(Record):
    """One item as raters see it: no kind, no key, nothing the tested model does not see."""

    item_id: str
    scene: str
    """The setting line and the dialogue, exactly as the tested model reads them."""
    emotion_question: str
    options: list[EmotionOption] = Field(min_length=3, max_length=3)
    help_question: str
    who_question: str | None = None
    """Group items only: who needs help (the model is asked this too)."""
    who_choices: list[str] = Field(default_factory=list)
    """Group items only: the participants in scene order, then ``nobody`` where allowed."""

    @property
    def is_group(self) -> bool:
        return self.who_question is not None


class AnnotationForm(Record):
    """``form.json``: the study as raters see it."""

    schema_version: int = SCHEMA_VERSION
    study_id: str
    form_version: str = FORM_VERSION
    items: list[FormItem] = Field(min_length=1)


class KeyItem(Record):
    """The benchmark's answer to one item, with the hidden truth reviewers need."""

    item_id: str
    kind: ScenarioKind
    correct_letter: Letter
    emotion: str
    help_needed: bool
    who: str | None = None
    """Group items: the name of the person who needs help, or ``nobody``; None elsewhere."""
    goal: str | None = None
    """The person's hidden goal (for reviewing flagged items; raters never see it)."""
    guidance: str | None = None


class AnnotationKey(Record):
    """``key.json``: what raters' answers are compared with."""

    schema_version: int = SCHEMA_VERSION
    study_id: str
    items: list[KeyItem] = Field(min_length=1)


class Annotation(Record):
    """One rater's answers on one item."""

    study_id: str
    rater_id: str
    item_id: str
    emotion: Letter
    help: HelpAnswer
    who: str | None = None
    """Group items: a name from the item's choices (or ``nobody``); None elsewhere."""
    answered_at: str
