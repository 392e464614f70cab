"""Read the tested model's answer: chosen emotion, whether help is needed, person, reply.

Models answer in many shapes ('EMOTION: B', '**Emotion:** (b) anxious', 'Emotion - anxious',
'The answer is B'); the parser accepts the common ones and says when it could not read
a field, so a parse failure is counted rather than guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from empathybench.records import LETTERS, Letter, Scenario

_MARKDOWN = re.compile(r"[*_`#>]+")
_FIELD = re.compile(
    r"^\s*(?:\d+[.)]\s*)?(person|emotion|needs?[ _-]?help|reply)\s*[:\-–=]\s*(.*)$",
    re.IGNORECASE,
)
_LETTER_VALUE = re.compile(r"^[\(\[]?([ABC])(?:[\)\]\.:,]|\s|$)|^[\(\[]?([abc])(?:[\)\]\.:]|$)")
_LETTER_ANYWHERE = re.compile(
    r"\b(?:option|answer|emotion)\b[^\n]{0,20}?\b(?:is\s+)?\(?([ABC])\)?(?:\b|$)"
)
_OPTION_LINE = re.compile(r"^\s*[\(\[]?([A-Za-z])[\)\]\.:]")
_YES = re.compile(r"^(yes|yeah|yep|y|true)\b", re.IGNORECASE)
_NO = re.compile(r"^(no|nope|n|false|not really)\b", re.IGNORECASE)


@dataclass
class ParsedAnswer:
    letter: Letter | None = None
    needs_help: bool | None = None
    person: str | None = None
    reply: str | None = None
    problems: list[str] = field(default_factory=list)


def _letter_from(value: str, options: list[str]) -> Letter | None:
    match = _LETTER_VALUE.match(value.strip())
    if match:
        return (match.group(1) or match.group(2)).upper()  # type: ignore[return-value]
    lowered = value.lower()
    named = [
        letter
        for letter, option in zip(LETTERS, options, strict=False)
        if re.search(rf"\b{re.escape(option.lower())}\b", lowered)
    ]
    return named[0] if len(named) == 1 else None


def plain_line(line: str) -> str:
    """A line without markdown emphasis, code marks, headings or quote marks."""
    return _MARKDOWN.sub("", line)


def answer_field(line: str) -> tuple[str, str] | None:
    """``(field, value)`` when a plain line is an answer field (person, emotion, needs_help,
    reply), as the parser reads it; None otherwise."""
    match = _FIELD.match(line)
    if match is None:
        return None
    name = match.group(1).lower()
    return ("needs_help" if name.startswith("need") else name), match.group(2)


def states_a_letter(line: str) -> bool:
    """Whether a line names an option by its letter after a cue ("The answer is B")."""
    return bool(_LETTER_ANYWHERE.search(line))


def parse_answer(text: str, options: list[str]) -> ParsedAnswer:
    parsed = ParsedAnswer()
    fields: dict[str, str] = {}
    reply_lines: list[str] | None = None  # collecting while not None
    replies: list[str] = []
    for raw_line in text.splitlines():
        line = plain_line(raw_line)
        field = answer_field(line)
        if field:
            if reply_lines is not None:  # a new field ends the reply
                replies.append("\n".join(reply_lines))
                reply_lines = None
            name, value = field
            if name == "reply":
                reply_lines = [value.strip()]
            else:
                fields.setdefault(name, value.strip())
        elif reply_lines is not None:
            reply_lines.append(raw_line.rstrip())
    if reply_lines is not None:
        replies.append("\n".join(reply_lines))

    if "emotion" in fields:
        parsed.letter = _letter_from(fields["emotion"], options)
    plain = _MARKDOWN.sub("", text)
    if parsed.letter is None:
        match = _LETTER_ANYWHERE.search(plain)
        parsed.letter = match.group(1) if match else None  # type: ignore[assignment]
    if parsed.letter is None and "emotion" not in fields:
        # No EMOTION field: an answer that opens with an option line ("B) anxious", "(b)"),
        # or that names exactly one of the options before any reply, is that choice.
        head = plain.split("REPLY", 1)[0].strip()
        first_line = head.splitlines()[0] if head else ""
        match = _OPTION_LINE.match(first_line)
        if match and match.group(1).upper() in "ABC":
            parsed.letter = match.group(1).upper()  # type: ignore[assignment]
        if parsed.letter is None:
            parsed.letter = _letter_from(head, options)
    if parsed.letter is None:
        parsed.problems.append("emotion choice not found")

    value = fields.get("needs_help", "")
    if _YES.match(value):
        parsed.needs_help = True
    elif _NO.match(value):
        parsed.needs_help = False
    else:
        parsed.problems.append("needs-help answer not found")

    if fields.get("person"):
        parsed.person = fields["person"].strip(" .\"'")
    if replies:
        parsed.reply = replies[0].strip() or None
    if parsed.reply is None:
        parsed.problems.append("reply not found")
    return parsed


def names_person(answer: str | None, name: str) -> bool:
    """Whether a PERSON answer names ``name`` (whole word, any case)."""
    return answer is not None and re.search(rf"\b{re.escape(name)}\b", answer, re.I) is not None


def help_answer_correct(scenario: Scenario, parsed: ParsedAnswer) -> bool:
    """Is the help answer right? Yes/no against the key and, for group items that ask who
    needs help (template v2 on), the named person too."""
    if parsed.needs_help is None or parsed.needs_help != scenario.expected.help_needed:
        return False
    key = scenario.group_help_key
    if key is None or key == "nobody":
        return True
    return names_person(parsed.person, key)
