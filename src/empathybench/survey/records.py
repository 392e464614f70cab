"""What a blind survey writes to disk.

A survey directory holds ``form.json`` (everything a rater sees: questions and lettered
answers, never where an answer came from), ``key.json`` (which source wrote each letter, kept
apart so the app that serves raters never needs it) and ``votes.sqlite`` (the votes).
"""

from __future__ import annotations

from pydantic import Field

from empathybench.records import SCHEMA_VERSION, Record

SURVEY_LETTERS: tuple[str, ...] = ("A", "B", "C", "D", "E")
MAX_SOURCES = len(SURVEY_LETTERS)
FORM_FILE = "form.json"
KEY_FILE = "key.json"
VOTES_FILE = "votes.sqlite"


class SurveyAnswer(Record):
    letter: str
    text: str


class SurveyItem(Record):
    """One question as raters see it: the question and its answers in lettered order."""

    question_id: str
    question: str
    answers: list[SurveyAnswer] = Field(min_length=2)


class SurveyForm(Record):
    """``form.json``: the survey as raters see it (no sources)."""

    schema_version: int = SCHEMA_VERSION
    survey_id: str
    title: str
    created_at: str
    items: list[SurveyItem] = Field(min_length=1)


class KeyEntry(Record):
    question_id: str
    letter: str
    source: str


class SurveyKey(Record):
    """``key.json``: which source wrote each lettered answer."""

    schema_version: int = SCHEMA_VERSION
    survey_id: str
    seed: int
    sources: list[str] = Field(min_length=2)
    origin: str | None = None
    """Where the answers came from (a therapy study directory), for the record."""
    entries: list[KeyEntry] = Field(min_length=1)


class Vote(Record):
    """One rater's choice on one question: the most and least empathetic answer, and why."""

    survey_id: str
    rater_id: str
    question_id: str
    most: str
    least: str
    reason: str = ""
    voted_at: str
