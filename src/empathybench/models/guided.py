"""Guided answers: the engine fills the answer format, the model only chooses and replies.

A weak model asked for ``EMOTION: <A, B or C>`` often writes an option list, a bare
"D) ashamed" or nothing but fields, so it would be measured on format-following rather than
empathy. In guided mode the request carries an ``AnswerGuide``: the fields to fill in order
(each with its allowed values) and the label of the free reply. A model adapter that can
constrain its output fills each field with one allowed value (the local engine by option
likelihood, an OpenAI-compatible server by a JSON schema), then lets the model write the
reply, and hands back exactly the text the answer parser reads::

    PERSON: Palesa
    EMOTION: B
    NEEDS_HELP: yes
    REPLY: ...

A guide with no fields (the therapy prompt) only asks for a free answer that ends on its own.
This module needs no torch: it holds the guide, the reply's stopping rule and the JSON
schema round trip.
"""

from __future__ import annotations

import re
from typing import Any, Literal, get_args

from pydantic import Field

from empathybench.jsonl import RecordFormatError, parse_json
from empathybench.records import Record

AnswerMode = Literal["guided", "free"]
ANSWER_MODES: tuple[AnswerMode, ...] = get_args(AnswerMode)
GUIDED_VERSION = "guided-v3"
"""Part of every guided cache key: bump it when guided decoding changes its answers (v2: the
reply opened with the person's name and kept it; v3: the name is fed but not kept)."""
PERSON_LABEL = "PERSON"
NOBODY = "nobody"


class GuidedField(Record):
    """One field the engine fills: ``label`` (``EMOTION``) and the values it may take."""

    label: str
    choices: list[str] = Field(min_length=1)
    """The values written (``A``, ``B``, ``C``)."""
    scored: list[str] | None = None
    """What the model is scored on per value, when not the value itself (``B) sad``)."""

    @property
    def scored_texts(self) -> list[str]:
        return self.scored if self.scored is not None else self.choices


class AnswerGuide(Record):
    fields: list[GuidedField] = Field(default_factory=list)
    """Filled in this order, each on its own ``LABEL: value`` line."""
    reply_label: str | None = None
    """The free reply's label (``REPLY``); None: the whole answer is the free reply."""
    stop_labels: list[str] = Field(default_factory=list)
    """A reply line that starts with one of these, then ':', ends the reply (a new field, or
    another speaker's turn such as ``Patient:``)."""
    addressee: str | None = None
    """The person the prompt asks the reply to be written to ("… your actual words to
    Budi."); None when it names nobody (a group item: then the ``PERSON`` field's value)."""

    def addressed_to(self, chosen: list[str]) -> str | None:
        """Whom the reply is for: the prompt's named person, else the person the answer chose
        in its ``PERSON`` field (None for ``nobody`` or no such field)."""
        if self.addressee is not None:
            return self.addressee
        for field, value in zip(self.fields, chosen, strict=False):
            if field.label == PERSON_LABEL and value.lower() != NOBODY:
                return value
        return None


def render_answer(guide: AnswerGuide, chosen: list[str], reply: str) -> str:
    """The answer text the parser reads: one ``LABEL: value`` line per field, then the reply."""
    lines = [f"{field.label}: {value}" for field, value in zip(guide.fields, chosen, strict=True)]
    reply = reply.strip()
    if guide.reply_label is not None:
        lines.append(f"{guide.reply_label}: {reply}".rstrip())
    elif reply:
        lines.append(reply)
    return "\n".join(lines)


_OPTION_LIST = re.compile(r"\n[ \t]*\n[ \t]*[\(\[]?[A-Ea-e][\)\].:](?:\s|$)")
"""A blank line, then a line that opens like a lettered option ("A) …", "(b) …", "D. …")."""


def reply_stop(text: str, stop_labels: list[str]) -> int | None:
    """Where a generated reply should end (an index into ``text``), or None to go on.

    A reply ends before a later line that starts a new field or speaker turn (``EMOTION:``,
    ``Patient:``; a field label in capitals needs no colon), and before a blank line followed
    by a lettered option list ("A) …", "(b) …").
    The first line with text never stops: the reply has to begin somewhere.
    """
    start = len(text) - len(text.lstrip())
    patterns = [_OPTION_LIST]
    if stop_labels:
        labels = "|".join(re.escape(label) for label in stop_labels)
        patterns.append(re.compile(rf"\n[ \t*_#>]*(?:{labels})[ \t*_]*:", re.IGNORECASE))
    fields = "|".join(re.escape(label) for label in stop_labels if label.isupper())
    if fields:  # a field label in capitals opens a line even without its colon ("PERSON'S")
        patterns.append(re.compile(rf"\n[ \t*_#>]*(?:{fields})\b"))
    cuts = [found.start() for pattern in patterns if (found := pattern.search(text, start))]
    return min(cuts) if cuts else None


def cut_reply(text: str, stop_labels: list[str]) -> str:
    """``text`` up to its stop (see ``reply_stop``), without trailing space."""
    stop = reply_stop(text, stop_labels)
    return (text if stop is None else text[:stop]).rstrip()


# -- structured output (OpenAI-compatible servers) --------------------------------------------
def json_key(label: str) -> str:
    return label.lower()


def answer_schema(guide: AnswerGuide) -> dict[str, Any]:
    """A strict JSON schema: one enum per field, in order, then the reply as a string."""
    properties: dict[str, Any] = {
        json_key(field.label): {"type": "string", "enum": list(field.choices)}
        for field in guide.fields
    }
    properties[json_key(guide.reply_label or "reply")] = {"type": "string"}
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def answer_from_json(guide: AnswerGuide, text: str) -> str:
    """A structured answer (JSON per ``answer_schema``) as answer text; ValueError if invalid."""
    try:
        data = parse_json(text, "the structured answer")
    except RecordFormatError as error:
        raise ValueError(str(error)) from None
    if not isinstance(data, dict):
        raise ValueError("the structured answer is not a JSON object")
    chosen: list[str] = []
    for field in guide.fields:
        value = data.get(json_key(field.label))
        matches = [
            c for c in field.choices if isinstance(value, str) and c.lower() == value.lower()
        ]
        if not matches:
            raise ValueError(f"{field.label} {value!r} is not one of {field.choices}")
        chosen.append(matches[0])
    reply = data.get(json_key(guide.reply_label or "reply"))
    if not isinstance(reply, str):
        raise ValueError("the structured answer has no reply text")
    return render_answer(guide, chosen, cut_reply(reply, guide.stop_labels))
