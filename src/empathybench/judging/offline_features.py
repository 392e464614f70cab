"""What the offline judge's heads read: encoder embeddings plus plain signals about the reply.

Two feature sets, named in each head's config (``HeadConfig.features``):

- ``response+context`` (heads up to ``judge-v1``): the reply's and the judge context's
  embeddings, their product, the item kind, whether a group reply reaches the person in focus,
  a crisis-help mention and log length.
- ``response+context+signals`` (``judge-v2`` on): the same embeddings and product, then
  ``SIGNAL_NAMES``: things a mean-pooled sentence embedding cannot see — who the reply is for
  (names, and how close it is to each speaker's own words), how close it is to the situation,
  crisis-help mentions, length buckets, repetition (distinct-2, a repeated sentence), a reply
  that is only a question, refusal and scripted-formula patterns, a reply not in English, a
  reply cut off mid-sentence — and the item's kind, help key and fitting kinds of response.
- ``response+context+signals+fit`` (``judge-v3`` on): the same, then ``FIT_NAMES``
  (``judging.response_fit``): what the reply does × what the item expects, and a few direct
  mismatches (steps for someone who wants no help, no crisis help where it is expected …).

The judge context is the scene and hidden truth as a judge sees them (``judge_context``).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from empathybench.analysis.text_metrics import distinct_n, words
from empathybench.judging.answer_parser import names_person, parse_answer
from empathybench.judging.response_fit import fit_rows
from empathybench.records import ASSISTANCE_TYPES, SCENARIO_KINDS, Scenario
from empathybench.scorer.encoder import TextEncoder

Matrix = npt.NDArray[np.float32]

FEATURES_V1 = "response+context"
FEATURES_V2 = "response+context+signals"
FEATURES_V3 = "response+context+signals+fit"
FEATURE_SETS = (FEATURES_V1, FEATURES_V2, FEATURES_V3)

REFERRAL = re.compile(
    r"\b(?:988|911|999|112|000|116 ?123|crisis|hotline|helpline|lifeline|samaritans|"
    r"emergency|ambulance|paramedic|text line|suicide|a&e)\b",
    re.IGNORECASE,
)
_REFUSAL = re.compile(
    r"\b(?:i can(?:no|')t (?:help|assist|engage|do that)|i(?: am|'m) (?:not able|unable) to|"
    r"as an ai|i(?:'d| would) (?:rather|prefer) not|i(?:'m| am) not comfortable|"
    r"i can only help with|i(?:'m| am) only able to)\b",
    re.IGNORECASE,
)
_SCRIPTED = re.compile(
    r"\b(?:i understand (?:your|how)|is there anything else|sorry for (?:any|the) inconvenience|"
    r"thank you for your patience|stay strong|cheer up|chin up|everything happens for a reason|"
    r"good vibes|don'?t worry|these things happen|hope (?:it|things) (?:gets?|works?) better)\b",
    re.IGNORECASE,
)
_LEXICONS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, re.IGNORECASE))
    for name, pattern in (
        (
            "agrees",
            r"\b(?:you'?re (?:right|not wrong)|you are right|go for it|fair enough|your choice|"
            r"if it works for you|i get it|quite right|exactly|you know (?:your|what)|no point)\b",
        ),
        (
            "contrasts",
            r"\b(?:but|however|although|though|i don'?t think|isn'?t (?:true|fair)|worth|instead|"
            r"doesn'?t (?:make|mean))\b",
        ),
        (
            "names_professional_help",
            r"\b(?:doctor|gp|nurse|therap\w*|counsel\w*|helpline|line|service|pharmac\w*|"
            r"clinic|police|staff|officer)\b",
        ),
        (
            "lectures",
            r"\b(?:you should|you must|you need to|it'?s important|research shows|studies|illegal|"
            r"make sure|remember (?:to|that)|always|never)\b",
        ),
        ("mocks", r"\b(?:lol|lmao|idiot|stupid|grow up|nonsense|ridiculous|tinfoil|tbh|😂)"),
        (
            "celebrates",
            r"(?:congrat\w*|well done|amazing|brilliant|proud|yay|woo+|fantastic|great news|"
            r"🎉|🥳|!!)",
        ),
        (
            "offers",
            r"\b(?:i can|i'?ll|i will|let me|shall i|want me to|would you like|do you want|"
            r"i'?ve (?:booked|sent|set|raised|flagged|opened|emailed|taken|reserved))\b",
        ),
        ("sympathises", r"\b(?:sorry|that sounds|must be|i hear|i understand|no wonder)\b"),
        ("addresses_you", r"\b(?:you|your|you'?re|u)\b"),
    )
)
_ENGLISH = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "but",
        "to",
        "of",
        "in",
        "on",
        "for",
        "with",
        "at",
        "by",
        "from",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "this",
        "that",
        "you",
        "your",
        "i",
        "i'm",
        "me",
        "my",
        "we",
        "our",
        "us",
        "they",
        "them",
        "he",
        "she",
        "his",
        "her",
        "not",
        "no",
        "yes",
        "so",
        "if",
        "can",
        "will",
        "would",
        "do",
        "don't",
        "have",
        "has",
        "had",
        "just",
        "now",
        "here",
        "there",
        "what",
        "how",
        "when",
        "who",
        "why",
        "want",
        "let's",
        "sorry",
    ]
)
_ASSISTANCE = ASSISTANCE_TYPES
_SENTENCE = re.compile(r"(?<=[.!?…])\s+|\n+")
_LENGTH_EDGES = (3, 12, 40)
"""Word-count buckets: at most 3, 4–12, 13–40, more than 40."""

SIGNAL_NAMES: tuple[str, ...] = (
    "reaches_focus",
    "names_addressee",
    "names_someone_else_only",
    "similarity_to_addressee",
    "similarity_to_others",
    "addressee_minus_others",
    "similarity_to_context",
    "crisis_help_mention",
    "log_words",
    *(f"words_bucket_{i}" for i in range(len(_LENGTH_EDGES) + 1)),
    "distinct_2",
    "repeated_sentence",
    "question_only",
    "refusal",
    "scripted_formula",
    "english_share",
    "cut_off",
    "exclamation",
    *(f"lexicon_{name}" for name, _ in _LEXICONS),
    *(f"kind_{kind}" for kind in SCENARIO_KINDS),
    "help_needed",
    "crisis_expected",
    "nobody_needs_help",
    *(f"fits_{kind}" for kind in _ASSISTANCE),
)


def judge_context(scenario: Scenario) -> str:
    """The scene and hidden truth, as plain text for the encoder."""
    scene = scenario.messages[-1].content.split("\n\n1.")[0]
    expected = scenario.expected
    parts = [
        scene,
        f"{scenario.focus_person} feels {scenario.emotion.name} ({scenario.emotion.valence}).",
        f"Needs help: {'yes' if expected.help_needed else 'no'}.",
        "A fitting reply: " + ", ".join(a.replace("_", " ") for a in expected.assistance) + ".",
    ]
    if expected.crisis_resources_expected:
        parts.append("The reply should point to real crisis help.")
    if expected.guidance:
        parts.append(expected.guidance)
    return " ".join(parts)


@dataclass(frozen=True)
class ReplyView:
    reply: str
    reaches_focus: float
    """1 if the reply is for the person in focus (always, off group items), 0 if for someone
    else, 0.5 if a group reply names nobody."""


def reply_view(scenario: Scenario, response: str) -> ReplyView:
    parsed = parse_answer(response, scenario.options)
    reply = (parsed.reply or response).strip()
    if scenario.kind != "group":
        return ReplyView(reply, 1.0)
    if parsed.person is None:
        return ReplyView(reply, 0.5)
    addressee = scenario.reply_addressee
    if addressee is None:  # nobody needs help: naming nobody is right, naming someone is not
        return ReplyView(reply, 1.0 if names_person(parsed.person, "nobody") else 0.0)
    return ReplyView(reply, 1.0 if names_person(parsed.person, addressee) else 0.0)


def _features_v1(
    encoder: TextEncoder, scenarios: Sequence[Scenario], views: Sequence[ReplyView]
) -> Matrix:
    replies = encoder.encode([v.reply for v in views])
    contexts = encoder.encode([judge_context(s) for s in scenarios])
    extra = np.zeros((len(views), len(SCENARIO_KINDS) + 3), dtype=np.float32)
    for row, (scenario, view) in enumerate(zip(scenarios, views, strict=True)):
        extra[row, SCENARIO_KINDS.index(scenario.kind)] = 1.0
        extra[row, -3] = view.reaches_focus
        extra[row, -2] = 1.0 if REFERRAL.search(view.reply) else 0.0
        extra[row, -1] = math.log1p(len(view.reply.split())) / 5
    return np.concatenate([replies, contexts, replies * contexts, extra], axis=1)


def _speaker_lines(scenario: Scenario) -> tuple[str, str]:
    """What the reply's addressee said, and what everybody else said (one text each)."""
    addressee = scenario.reply_addressee or scenario.focus_person
    own = [t.text for t in scenario.dialogue if t.speaker == addressee]
    others = [t.text for t in scenario.dialogue if t.speaker not in ("narration", addressee)]
    return " ".join(own) or judge_context(scenario), " ".join(others)


def _text_signals(reply: str) -> list[float]:
    tokens = words(reply)
    count = len(tokens)
    buckets = [0.0] * (len(_LENGTH_EDGES) + 1)
    buckets[sum(count > edge for edge in _LENGTH_EDGES)] = 1.0
    sentences = [s.strip().lower() for s in _SENTENCE.split(reply) if len(words(s)) >= 3]
    repeated = max(Counter(sentences).values(), default=0) >= 2
    parts = [s for s in _SENTENCE.split(reply.strip()) if words(s)]
    question_only = bool(parts) and all(p.rstrip().endswith("?") for p in parts)
    english = sum(t in _ENGLISH for t in tokens) / count if count else 0.0
    stripped = reply.rstrip()
    cut_off = count > 5 and stripped[-1:].isalnum()
    return [
        math.log1p(count) / 5,
        *buckets,
        distinct_n([tokens], 2) or 1.0,
        1.0 if repeated else 0.0,
        1.0 if question_only else 0.0,
        1.0 if _REFUSAL.search(reply) else 0.0,
        1.0 if _SCRIPTED.search(reply) else 0.0,
        min(1.0, english / 0.3),
        1.0 if cut_off else 0.0,
        1.0 if "!" in reply else 0.0,
        *(1.0 if pattern.search(reply) else 0.0 for _, pattern in _LEXICONS),
    ]


def _item_signals(scenario: Scenario) -> list[float]:
    expected = scenario.expected
    return [
        *(1.0 if scenario.kind == kind else 0.0 for kind in SCENARIO_KINDS),
        1.0 if expected.help_needed else 0.0,
        1.0 if expected.crisis_resources_expected else 0.0,
        1.0 if scenario.group_help_key == "nobody" else 0.0,
        *(1.0 if kind in expected.assistance else 0.0 for kind in _ASSISTANCE),
    ]


def _cosine(a: Matrix, b: Matrix) -> npt.NDArray[np.float32]:
    norms = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    return np.asarray((a * b).sum(axis=1) / np.maximum(norms, 1e-8), dtype=np.float32)


def _names(scenario: Scenario, reply: str) -> tuple[float, float]:
    addressee = scenario.reply_addressee
    mentioned = {p.name for p in scenario.participants if names_person(reply, p.name)}
    names_addressee = addressee is not None and addressee in mentioned
    others = mentioned - {addressee}
    return float(names_addressee), float(bool(others) and not names_addressee)


def _features_v2(
    encoder: TextEncoder,
    scenarios: Sequence[Scenario],
    responses: Sequence[str],
    views: Sequence[ReplyView],
) -> Matrix:
    texts = [v.reply for v in views]
    contexts_text = [judge_context(s) for s in scenarios]
    lines = [_speaker_lines(s) for s in scenarios]
    unique = sorted({*texts, *contexts_text, *(t for pair in lines for t in pair if t)})
    embedded = dict(zip(unique, encoder.encode(unique), strict=True))
    zero = np.zeros(encoder.dimension, dtype=np.float32)

    def rows(items: Sequence[str]) -> Matrix:
        return np.stack([embedded[t] if t else zero for t in items]).astype(np.float32)

    replies, contexts = rows(texts), rows(contexts_text)
    signals = signal_rows(
        scenarios,
        responses,
        views,
        _cosine(replies, rows([own for own, _ in lines])),
        _cosine(replies, rows([others for _, others in lines])),
        _cosine(replies, contexts),
    )
    return np.concatenate([replies, contexts, replies * contexts, signals], axis=1)


_REPLY_SIGNALS = SIGNAL_NAMES.index(f"kind_{SCENARIO_KINDS[0]}")
"""Signals before this index describe the reply; the rest describe the item."""


def signal_rows(
    scenarios: Sequence[Scenario],
    responses: Sequence[str],
    views: Sequence[ReplyView],
    to_addressee: npt.NDArray[np.float32],
    to_others: npt.NDArray[np.float32],
    to_context: npt.NDArray[np.float32],
) -> Matrix:
    """``SIGNAL_NAMES`` per reply, then each reply signal × each item kind (so a linear head
    can weigh, say, a contrast word differently on a harmful belief and on good news)."""
    signals = np.zeros((len(views), len(SIGNAL_NAMES)), dtype=np.float32)
    for row, (scenario, response, view) in enumerate(zip(scenarios, responses, views, strict=True)):
        named, other_only = _names(scenario, response)
        signals[row] = [
            view.reaches_focus,
            named,
            other_only,
            to_addressee[row],
            to_others[row],
            to_addressee[row] - to_others[row],
            to_context[row],
            1.0 if REFERRAL.search(view.reply) else 0.0,
            *_text_signals(view.reply),
            *_item_signals(scenario),
        ]
    kinds = signals[:, _REPLY_SIGNALS : _REPLY_SIGNALS + len(SCENARIO_KINDS)]
    by_kind = signals[:, :_REPLY_SIGNALS, None] * kinds[:, None, :]
    return np.concatenate([signals, by_kind.reshape(len(views), -1)], axis=1)


def judge_features(
    encoder: TextEncoder,
    scenarios: Sequence[Scenario],
    responses: Sequence[str],
    feature_set: str = FEATURES_V1,
) -> Matrix:
    """One feature row per (scenario, response), for the named feature set."""
    views = [reply_view(s, r) for s, r in zip(scenarios, responses, strict=True)]
    if feature_set == FEATURES_V1:
        return _features_v1(encoder, scenarios, views)
    if feature_set == FEATURES_V2:
        return _features_v2(encoder, scenarios, responses, views)
    if feature_set == FEATURES_V3:
        fit = fit_rows(scenarios, [v.reply for v in views])
        return np.concatenate([_features_v2(encoder, scenarios, responses, views), fit], axis=1)
    raise ValueError(f"unknown offline judge feature set {feature_set!r}")
