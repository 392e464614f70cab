"""No reply, no score: the structural rule applied before any judge, and the degenerate-loop flag.

``classify_reply(output, scenario)`` says whether an output holds no reply to the person. When
it does, every applicable text dimension scores 0 with the reason ``no reply`` and no judge
(LLM or offline) is asked. For a benchmark item, template placeholders (``<…>``, ``[…]``,
``{…}`` spans, as in ``<what you would say or do>``) are removed, then every line is sorted:

- **answer lines** — the ``PERSON`` / ``EMOTION`` / ``NEEDS_HELP`` fields as the answer parser
  reads them (a ``REPLY:`` inside such a line starts the reply), a bare letter ("B", "(b)"),
  and lines of at most six words that state a letter ("The answer is B", "I would say: A");
- **option lines** — a letter label A–H with at most ``OPTION_WORDS`` (2) words after it, or
  only label words after it ("B) anxious", "D) ashamed": SmolLM2 invents options), and lines
  whose words are all option words, letters, "or" and "and";
- **scene lines** — a line spoken as someone in the scene (``Name: …`` with a participant's
  name), or a line copied from the prompt (at least ``ECHO_SHARE`` = 70% of its word trigrams
  occur in the prompt; in the 632 labelled replies it was set on no line exceeded 40%; in the
  2,700 real bundled labelled replies now, 17 lines reach 40% and one 94%, a story reply
  quoting its character's line; none of the real replies is caught), or a line too
  short for trigrams, holding a number, whose words are those of a whole quoted line of
  the prompt ("I'm 412." where a v5 scene has ``Dwayne: "I'm 412."``), also after a
  leading form of address ("Dwayne, I'm 412." is still the scene's line);
- **prose** — everything else (the ``REPLY:`` label itself dropped).

A reply whose first prose line opens the way a person of the scene gives their number, with
a number someone in the scene gave ("I'm 945. The polytunnel group would be new to me…",
"Mine's 183", "That's me, number 284"), is ``as_participant``: the model speaks as that
person, not to them (a helper never claims a person's request number as its own). The
scene's numbers are those its people give as their own the same way; a claim the helper
quotes (\"Mine's 491\" Got it, …) or a number with a unit ("I'm 100 percent…") is not one. Blind
readers marked such outputs "not a reply" in every reading of v5 and v6 runs; the rule
before this caught them only when the number line stood alone.

The output holds a reply when its prose holds at least one word that is not a label word or a
number ("1.", "785": a v5 person's number said back is not a reply), and at least one such
word is written in a script the prompt uses: a reply entirely in Chinese to an English scene
reaches the person as nothing (``other_script``; the labelling guide scores it 0 everywhere).
Words count in any script (``analysis.text_metrics.words``), so a suite written in Russian or
Chinese is answered in its own script; before, only ASCII letters counted, and such replies
read as empty.
Label words: the item's option words, the template version's emotion words (every form),
letters a–d, yes/no, field names, participants' names, and placeholder words ("N/A", "none",
"reply", "TBD", …). There is no minimum length: "Congratulations." is a reply (a 1-word reply
in the bundled labels, scored 0.5 by its labellers), "REPLY: sad", "N/A" and "B" are not. A
missing ``REPLY:`` field alone is not enough: prose outside the fields (some models write no
labels at all) is a reply. For a therapy answer (``scenario`` None) the whole answer must
hold a word that is not a placeholder word, outside placeholder spans: empty, placeholder
and punctuation-only answers fire.

``degenerate_reason(text)`` flags a looping reply (shown and counted, never scored down): one
sentence of at least three words said ``REPEATED_SENTENCE_TIMES`` (3) times, or at least
``DEGENERATE_MIN_WORDS`` (40) words with distinct-2 under ``DEGENERATE_DISTINCT_2`` (0.5). In
the bundled therapy references, labelled benchmark replies and empathy-scorer replies no
sentence repeats and distinct-2 is at least 0.92; SmolLM2's twelve 640-token therapy answers
measure 0.11–0.35 and repeat a sentence 7–28 times (``benchmarks/no_reply.py``).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from empathybench.analysis.text_metrics import distinct_n, words
from empathybench.judging.answer_parser import (
    answer_field,
    parse_answer,
    plain_line,
    states_a_letter,
)
from empathybench.records import DimensionScore, NoReplyKind, Scenario

NO_REPLY = "no reply"
"""The reason recorded on every text dimension the rule scores 0."""
OPTION_WORDS = 2
ECHO_SHARE = 0.7
DEGENERATE_MIN_WORDS = 40
DEGENERATE_DISTINCT_2 = 0.5
REPEATED_SENTENCE_TIMES = 3
REPEATED_SENTENCE_MIN_WORDS = 3

_OPTION_LINE = re.compile(r"^\s*[\(\[]?[A-Ha-h][\)\]\.:]\s*(.*)$")
_BARE_LETTER = re.compile(r"^\s*[\(\[]?[A-Da-d][\)\]\.:]?\s*$")
_SAYS_A_LETTER = re.compile(
    r"^[^\n]{0,40}?\b(?i:say|pick|choose|go with)\b\s*[:\-]?\s*[\(\[]?[A-D][\)\]]?[.!]?$"
)
_SPEAKER = re.compile(r"^\s*([^:\n]{1,60}):\s*\S")
_INLINE_REPLY = re.compile(r"\breply\s*[:\-–=]\s*(.*)$", re.IGNORECASE)
_PLACEHOLDER_SPAN = re.compile(r"<[^<>\n]{0,120}>|\[[^\[\]\n]{0,120}\]|\{[^{}\n]{0,120}\}")
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|(?<=[。！？])|\n+")  # CJK ends need no space
PLACEHOLDER_WORDS = frozenset(
    {"n", "a", "na", "none", "null", "nil", "tbd", "todo", "reply", "your", "answer"}
    | {"response", "text", "here", "insert", "placeholder", "xxx", "etc"}
)
_ANSWER_WORDS = frozenset(
    {"a", "b", "c", "d", "yes", "no", "y", "n", "emotion", "needs", "help", "person", "option"}
)

_DETAILS: dict[NoReplyKind, str] = {
    "empty": "the output holds no words",
    "empty_reply": "the REPLY field is empty",
    "placeholder": "the reply is a template placeholder",
    "options_only": "only the answer options, no reply",
    "answer_lines_only": "only answer lines (EMOTION / NEEDS_HELP, a letter), no reply",
    "labels_only": "only option or answer words or numbers, no reply",
    "scene_only": "only lines of the scene (copied, or spoken as someone in it), no reply",
    "as_participant": "the reply opens by giving a scene person's number as its own: it "
    "speaks as that person, not to them",
    "other_script": "the reply is written in a script the prompt does not use",
}


@dataclass(frozen=True)
class NoReply:
    """Why an output holds no reply to the person."""

    kind: NoReplyKind

    @property
    def detail(self) -> str:
        return _DETAILS[self.kind]


@dataclass
class _Sorted:
    prose: list[str]
    answer_lines: int = 0
    option_lines: int = 0
    scene_lines: int = 0
    placeholders: int = 0
    reply_field: bool = False
    reply_letter: bool = False
    """The REPLY field's own text is a letter ("REPLY: I would say: A")."""


@cache
def _emotion_words(template_version: str) -> frozenset[str]:
    """Every emotion name and word form of a template version (empty if it cannot be read)."""
    from empathybench.scenarios.templates import TemplateError, load_templates

    try:
        templates = load_templates(template_version)
    except (TemplateError, OSError):
        return frozenset()
    return frozenset(
        word for emotion in templates.emotions for form in emotion.forms for word in words(form)
    )


def _option_words(scenario: Scenario) -> frozenset[str]:
    return frozenset(word for option in scenario.options for word in words(option))


def label_words(scenario: Scenario) -> frozenset[str]:
    """Words that label an answer rather than speak to the person."""
    names = {word for person in scenario.participants for word in words(person.name)}
    return (
        _option_words(scenario)
        | _emotion_words(scenario.template_version)
        | _ANSWER_WORDS
        | PLACEHOLDER_WORDS
        | names
    )


def _trigrams(tokens: list[str]) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + 3]) for i in range(len(tokens) - 2)}


@cache
def _prompt_trigrams(prompt: str) -> frozenset[tuple[str, ...]]:
    return frozenset(_trigrams(words(prompt)))


_QUOTED = re.compile(r'"([^"\n]+)"')


def quoted_lines(prompt: str) -> list[str]:
    """Every quoted line of a prompt: what people in the scene say, and v5's notes."""
    return _QUOTED.findall(prompt)


@cache
def _prompt_quotes(prompt: str) -> frozenset[tuple[str, ...]]:
    """The words of every quoted line of the prompt."""
    return frozenset(tuple(words(quoted)) for quoted in quoted_lines(prompt))


def copies_prompt(line: str, prompt: str) -> bool:
    """Whether at least ``ECHO_SHARE`` of the line's word trigrams occur in the prompt; a
    line with no trigram copies it when it holds a number and its words are those of a
    whole quoted line (a number line; "Thank you." stays a reply wherever a scene says it)."""
    tokens = words(line)
    grams = _trigrams(tokens)
    if not grams:
        numbered = any(token.isdigit() for token in tokens)
        return numbered and tuple(tokens) in _prompt_quotes(prompt)
    return len(grams & _prompt_trigrams(prompt)) / len(grams) >= ECHO_SHARE


def _is_option_line(line: str, scenario: Scenario) -> bool:
    tokens = words(line)
    match = _OPTION_LINE.match(line)
    if match:
        rest = words(match.group(1))
        if 1 <= len(rest) <= OPTION_WORDS or all(w in label_words(scenario) for w in rest):
            return True
    allowed = _option_words(scenario) | {"a", "b", "c", "d", "or", "and"}
    return bool(tokens) and all(token in allowed for token in tokens)


def scene_prompt(scenario: Scenario) -> str:
    """The prompt text the rule compares a reply with: the last message (the scene and its
    questions; the system message is the same English text for every item)."""
    return scenario.messages[-1].content if scenario.messages else ""


def _is_scene_line(line: str, scenario: Scenario, *, reply_value: bool = False) -> bool:
    """A line copied from the prompt, or a line spoken by someone in the scene (``Name: …``).

    ``reply_value``: the line is what follows ``REPLY:`` itself, where ``Name: …`` addresses
    that person ("REPLY: Kavya: make a tortilla tonight") and only a copied line counts."""
    names = {person.name.lower() for person in scenario.participants}
    speaker = None if reply_value else _SPEAKER.match(line)
    if speaker and speaker.group(1).strip().lower() in names:
        return True
    prompt = scene_prompt(scenario)
    if copies_prompt(line, prompt):
        return True
    # "Budi, I'm 904.": a short line said back with a form of address. A longer line is
    # judged with its address, as the 70% share was set (without it, one labelled reply,
    # mostly an echo but scored 0.5 by its labellers, would be caught).
    short = without_address(line, names)
    return short != line and not _trigrams(words(short)) and copies_prompt(short, prompt)


_ADDRESS = re.compile(r"^\W*([^\W\d_][\w'-]*(?: [^\W\d_][\w'-]*)?)\s*,\s*(\S.*)$")


def without_address(line: str, names: Iterable[str]) -> str:
    """The line without a leading form of address, a participant's name and a comma ("Budi,
    I'm 904." → "I'm 904."): saying whom a scene line is for does not make it a reply."""
    match = _ADDRESS.match(line)
    if match and match.group(1).lower() in {name.lower() for name in names}:
        return match.group(2)
    return line


def _sort_lines(text: str, scenario: Scenario) -> _Sorted:
    result = _Sorted(prose=[])
    for raw_line in text.splitlines():
        if _PLACEHOLDER_SPAN.search(raw_line):  # before markdown marks (">") are dropped
            result.placeholders += 1
            raw_line = _strip_spans(raw_line)
        line = plain_line(raw_line).strip()
        field = answer_field(line)
        reply_value = False
        if field is not None:
            name, value = field
            if name == "reply":
                result.reply_field = True
                line = value.strip()
                reply_value = True
            else:
                result.answer_lines += 1
                inline = _INLINE_REPLY.search(value)
                if inline is None:
                    continue
                result.reply_field = True
                line = inline.group(1).strip()
        if not words(line):
            continue
        short = len(words(line)) <= 6
        if _BARE_LETTER.match(line) or (short and _states_a_letter(line)):
            result.answer_lines += 1
            result.reply_letter |= reply_value
        elif _is_option_line(line, scenario):
            result.option_lines += 1
        elif _is_scene_line(line, scenario, reply_value=reply_value):
            result.scene_lines += 1
        else:
            result.prose.append(line)
    return result


_SELF_NUMBER = re.compile(
    r"^\W*(?:i['’]?m|i am|mine['’]?s|mine is|my number(?:['’]s| is)|that['’]?s me)"
    r"(?:\s+down as|\s+number|,)*\s*(?:number\s*|no\.?\s*|#\s*)?(\d+)(?![\w%'’\"”])"
    r"(?!\s*(?:per\s*cent|percent|minutes?|mins?|hours?|days?|weeks?|years?|times?|"
    r"metres?|meters?|miles?|feet|steps?)\b)"
    r"(\s*[.,;:!]|\s*$)?"
    r"|^\W*(?:number\s*)?(\d+)\s+is\s+(?:mine|me)(?=\s*[.,;:!]|\s*$)",
    re.IGNORECASE,
)
_QUOTED_THEN_MORE = re.compile(r"\s*[\"”'’]\W*\w")
"""A claim's quote closing with more said after it: the helper quoting the person."""


def _quotes_then_says_more(line: str) -> bool:
    """A line that opens with a double-quoted passage which closes before more is said
    (\"My number's 118. The …\" Got it, …): the helper quoting the person."""
    text = line.lstrip()
    if not text or text[0] not in '"“':
        return False
    close = min((i for i in (text.find('"', 1), text.find("”", 1)) if i > 0), default=-1)
    return close > 0 and bool(words(text[close + 1 :]))


def scene_numbers(scenario: Scenario) -> frozenset[str]:
    """The numbers people of the scene give as their own ("I'm 183.", "946 is mine.": their
    request or staff numbers in v5 and v6); prices, times or rooms in their speech are not."""
    names = {person.name for person in scenario.participants}
    found: set[str] = set()
    for turn in scenario.dialogue:
        match = _SELF_NUMBER.match(turn.text) if turn.speaker in names else None
        if match:
            found.add(match.group(1) or match.group(3))
    return frozenset(found)


def claims_a_number(line: str, scenario: Scenario) -> bool:
    """Whether ``line`` opens by giving a number a person of the scene gave as their own as
    its own ("I'm 945. …", "Budi, mine's 183, …"), as that person would; or, in a scene where
    people give numbers, a made-up one of the same length ending a clause ("I'm 857." in a
    scene of 858, 564 and 297). A quoted claim (\"Mine's 491\" Got it, …) is the helper
    quoting the person, not one."""
    match = _SELF_NUMBER.match(without_address(line, [p.name for p in scenario.participants]))
    if match is None or _QUOTED_THEN_MORE.match(match.string, match.end()):
        return False
    if _quotes_then_says_more(line):
        return False
    numbers = scene_numbers(scenario)
    number = match.group(1) or match.group(3)
    if number in numbers:
        return True
    return match.group(2) is not None and any(len(n) == len(number) for n in numbers)


def _states_a_letter(line: str) -> bool:
    """A short line that names an option by its letter ("The answer is B", "I would say:
    A"), quoted or not."""
    return states_a_letter(line) or bool(_SAYS_A_LETTER.match(line.strip(" \"'“”")))


def _strip_spans(text: str) -> str:
    return _PLACEHOLDER_SPAN.sub(" ", text)


@cache
def scripts(text: str) -> frozenset[str]:
    """The scripts of a text's letters, as the first word of their Unicode names (LATIN,
    CYRILLIC, GREEK, ARABIC, HANGUL, CJK, HIRAGANA, …)."""
    normal = unicodedata.normalize("NFKC", text)  # full-width and math-bold Latin are Latin
    return frozenset(
        unicodedata.name(char, "?").split()[0] for char in set(normal) if char.isalpha()
    )


def _foreign(tokens: list[str], prompt: str) -> bool:
    """Whether the tokens hold letters, none of them in a script of ``prompt`` (tokens with
    no letter, such as "½", count neither way)."""
    known = scripts(prompt)
    lettered = [found for found in map(scripts, tokens) if found]
    return bool(lettered) and not any(found & known for found in lettered)


def classify_reply(
    output: str | None, scenario: Scenario | None, *, question: str | None = None
) -> NoReply | None:
    """Why ``output`` holds no reply to the person (None when it holds one).

    ``scenario`` is the benchmark item the output answers, or None for a therapy answer (the
    rule then applies to the whole answer; ``question``, when given, is what it answers, and
    an answer with no word in the question's scripts is ``other_script``).
    """
    text = output or ""
    if not words(text):
        has_span = bool(_PLACEHOLDER_SPAN.search(text))
        return NoReply("placeholder" if has_span else "empty")
    if scenario is None:
        remaining = words(_strip_spans(text))
        if not remaining:
            return NoReply("placeholder")
        if all(word in PLACEHOLDER_WORDS for word in remaining):
            return NoReply("placeholder")
        if question is not None and _foreign(remaining, question):
            return NoReply("other_script")
        return None
    lines = _sort_lines(text, scenario)
    tokens = words("\n".join(lines.prose))
    labels = label_words(scenario)
    said = [token for token in tokens if token not in labels and not token.isdigit()]
    if said:
        if _foreign(said, scene_prompt(scenario)):
            return NoReply("other_script")
        # The reply's own first line, before scene lines are set aside: "That's me, number
        # 718." (the scene's words) on a line of its own, then the note retold, is one claim.
        first = next((ln for ln in reply_part(text, scenario).splitlines() if words(ln)), "")
        claims = claims_a_number(first, scenario) or claims_a_number(lines.prose[0], scenario)
        return NoReply("as_participant") if claims else None
    if lines.placeholders or (tokens and all(token in PLACEHOLDER_WORDS for token in tokens)):
        return NoReply("placeholder")
    if lines.option_lines:
        return NoReply("options_only")
    if lines.scene_lines:
        return NoReply("scene_only")
    if tokens:
        return NoReply("labels_only")
    if lines.reply_field and not lines.reply_letter:
        return NoReply("empty_reply")
    if lines.answer_lines:
        return NoReply("answer_lines_only")
    return NoReply("empty")


def sentences(text: str) -> list[tuple[str, ...]]:
    """The word tuples of each sentence (split at . ! ? … and line breaks)."""
    return [tuple(words(part)) for part in _SENTENCE_END.split(text) if words(part)]


def degenerate_reason(text: str) -> str | None:
    """Why a reply looks like a degenerate loop, or None (see the module docstring)."""
    tokens = words(text)
    counts = Counter(s for s in sentences(text) if len(s) >= REPEATED_SENTENCE_MIN_WORDS)
    if counts:
        sentence, times = counts.most_common(1)[0]
        if times >= REPEATED_SENTENCE_TIMES:
            return f"one sentence said {times} times ({' '.join(sentence[:8])}…)"
    if len(tokens) >= DEGENERATE_MIN_WORDS:
        distinct = distinct_n([tokens], 2)
        if distinct is not None and distinct < DEGENERATE_DISTINCT_2:
            return f"distinct-2 {distinct:.2f} over {len(tokens)} words"
    return None


@dataclass(frozen=True)
class ReplyCheck:
    """What the rule and the loop flag say about one output, recorded on its verdicts."""

    no_reply: NoReply | None
    degenerate: str | None


def reply_part(output: str, scenario: Scenario | None) -> str:
    """The text said to the person: the ``REPLY:`` field when there is one, else the output."""
    if scenario is None:
        return output
    return (parse_answer(output, scenario.options).reply or output).strip()


def check_reply(
    output: str | None, scenario: Scenario | None, *, question: str | None = None
) -> ReplyCheck:
    """The no-reply rule, and (when there is a reply) the degenerate-loop flag."""
    no_reply = classify_reply(output, scenario, question=question)
    if no_reply is not None or output is None:
        return ReplyCheck(no_reply, None)
    return ReplyCheck(None, degenerate_reason(reply_part(output, scenario)))


def no_reply_scores(dimensions: Iterable[str], no_reply: NoReply) -> dict[str, DimensionScore]:
    """0 on every given text dimension, with the reason ``no reply`` and what was missing."""
    return {
        dimension: DimensionScore(
            status="scored", value=0.0, reason=NO_REPLY, rationale=no_reply.detail
        )
        for dimension in dimensions
    }
