"""Plain signals of a reply that a sentence embedding blurs, fed to the scorer head beside it.

The seed's method sees only the reply's mean-pooled embedding, which cannot tell a 640-token
loop from a varied reply, and which mostly tracks length on the project's labels. The
``signals`` method adds, per reply (every value roughly in 0–1):

- **length**, bucketed (one-hot over ``LENGTH_BUCKETS`` word counts), so it is one coarse cue
  among many rather than a number the head can lean on;
- **repetition**: distinct-1/2/3 and the share of sentences that repeat an earlier one;
- **formulaic warmth**: the highest cosine between the reply and ``STOCK_PHRASES``;
- **exploring questions**: questions, and questions about the person's feelings or experience;
- **focus**: second-person and first-person words per word, and second-person share;
- **feeling words** (``FEELING_WORDS``) per word and as a capped count;
- **message–reply similarity** (cosine of their embeddings), with a flag saying whether the
  message was given; without it both are 0.

``lexicon_score`` is the named lexicon baseline that ``scorer eval`` reports: feeling words +
second-person words + question marks, counted.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from empathybench.analysis.text_metrics import distinct_n, words

SIGNALS_VERSION = "signals-v2"
LENGTH_BUCKETS = (12, 30, 70, 160)
"""Upper word counts of the length buckets (a fifth bucket holds longer replies)."""

STOCK_PHRASES = (
    "Sorry to hear that.",
    "I'm so sorry you're going through this.",
    "Stay strong, it gets better.",
    "Sending hugs and love.",
    "You're not alone.",
    "Everything happens for a reason.",
    "Hang in there!",
    "You got this, believe in yourself!",
    "Thoughts and prayers.",
    "It's completely understandable to feel this way.",
    "Remember to take care of yourself.",
    "Good luck, hope it works out!",
)
"""Stock sympathy lines: a reply close to one of them is formulaic, however warm it sounds."""


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


FEELING_WORDS = _word_set(
    """afraid alone angry anxious ashamed awful betrayed broken crushed depressed devastated
    disappointed drained embarrassed empty exhausted fear feel feeling feelings felt frightened
    frustrated grief grieving guilt guilty heartbroken helpless hopeless hurt hurting hurts
    isolated jealous lonely lost miss missing nervous numb overwhelmed pain painful panic
    regret sad sadness scared shame stressed stressful struggling terrified tired trapped
    unbearable upset worried worry worthless"""
)
SECOND_PERSON = _word_set("you your you're yours yourself you've you'd you'll u ur")
FIRST_PERSON = _word_set("i me my mine myself i'm i've i'd i'll")
_EXPLORING = re.compile(
    r"\b(how (are|do|did|have) you|what (do|did|was|is|were|has|have)|do you|are you|"
    r"did you|have you|what's|what is it|who)\b"
)
_INTERPRETATION = re.compile(
    r"\b(sounds? like|(that|it|this) sounds|seems? like|it seems|i (can )?understand|"
    r"i can (only )?imagine|i get (it|that|why)|"
    r"i hear (you|that)|(that|this|it) must (be|have|feel)|must (be|feel) (so|really|very)|"
    r"makes (total |complete )?sense|no wonder|of course you|"
    r"you('re| are) (allowed|not wrong|right to)|"
    r"(it's|its|that's|thats) (okay|ok|normal|understandable|valid) to|you (must|might) (feel|be)|"
    r"what you('re| are) (feeling|going through|describing))\b"
)
_SELF_DISCLOSURE = re.compile(
    r"\b(i (went|go|am going|was going) through|i('ve| have) been (there|through)|"
    r"same (thing )?happened|happened to me|when i was|i (had|lost|felt|was) (a|the|my|so|like)|"
    r"me too|i know (the|that) feeling|my (mom|dad|mother|father|"
    r"ex|brother|sister|friend|partner))\b"
)
_OPEN_QUESTION = re.compile(
    r"\b(what|how|when|why|which|who|where)\b.*\b(you|your|u|ur|you're)\b|"
    r"\b(do|did|are|have|has|is|was|would|could|can) (you|u)\b"
)
_DISMISSIVE = re.compile(
    r"\b(lol|lmao|haha|get over|just (stop|ignore|move on|get over|relax|chill|do it)|at least|"
    r"could be worse|(not|no) (a |that )?big deal|whatever|man up|toughen|overreact\w*|drama|"
    r"first world|everyone (has|goes|feels)|it is what it is|you('ll| will) be fine|meh|idk|"
    r"same here|same lol|been there lol|cheer up|stop (being|worrying|overthinking))\b"
)
_STOCK = re.compile(
    r"\b(hugs?|stay strong|hang in there|sending (love|hugs|good vibes|positive)|you got this|"
    r"thoughts and prayers|sorry (to hear|for your loss)|sorry (you're|ur|you are) going through|"
    r"it gets better|everything happens|you('re| are) not alone|"
    r"praying|be strong|keep your head up|"
    r"take care|good luck|believe in yourself|time heals)\b"
)
_SLANG = _word_set("lol lmao haha omg tbh idk ngl fr bro dude u ur rn smh")
_STOPWORDS = _word_set(
    """a about after again all also am an and any are as at be because been before being but by
    can could did do does doing don't down even every for from get got had has have having he her
    here him his how i i'm i've if in into is it it's its just know like me more most much my
    never no not now of off on one only or other our out over really said say says see she so some
    still such than that that's the their them then there these they thing things think this those
    to too up us very was way we well were what when where which while who why will with would
    you your you're yeah im dont cant gonna ok okay feel feeling"""
)
_SENTENCE = re.compile(r"(?<=[.!?…])\s+|\n+")

SIGNAL_NAMES_V1: tuple[str, ...] = (
    *(f"length_bucket_{i}" for i in range(len(LENGTH_BUCKETS) + 1)),
    "distinct_1",
    "distinct_2",
    "distinct_3",
    "repeated_sentence_share",
    "stock_phrase_similarity",
    "questions",
    "feeling_questions",
    "second_person_rate",
    "first_person_rate",
    "second_person_share",
    "feeling_word_rate",
    "feeling_words",
    "message_similarity",
    "has_message",
)
"""The 19 signals of ``signals-v1`` (head ``empathy-v2``), in its column order."""

SIGNAL_NAMES_V2_EXTRA: tuple[str, ...] = (
    "log_length",
    "one_liner",
    "interpretation_phrases",
    "self_disclosure",
    "open_questions_to_them",
    "dismissive_phrases",
    "stock_phrases",
    "slang_rate",
    "post_words_reflected",
    "post_feelings_reflected",
    "reply_words_from_post",
)
"""Added in ``signals-v2``: bounded length, interpretation, self-disclosure, open questions
aimed at the person, dismissive and stock phrases, slang, and lexical overlap with the post
(0 when no message is given)."""

SIGNAL_NAMES: tuple[str, ...] = (*SIGNAL_NAMES_V1, *SIGNAL_NAMES_V2_EXTRA)
"""Every signal this module computes; a head records the names it was trained on."""

Matrix = npt.NDArray[np.float32]


def _sentences(text: str) -> list[str]:
    return [part.strip() for part in _SENTENCE.split(text) if words(part)]


def lexicon_counts(text: str) -> tuple[int, int, int]:
    """(feeling words, second-person words, question marks) in ``text``."""
    tokens = words(text)
    return (
        sum(t in FEELING_WORDS for t in tokens),
        sum(t in SECOND_PERSON for t in tokens),
        text.count("?"),
    )


def lexicon_score(text: str) -> float:
    """The lexicon baseline: feeling words + second-person words + question marks."""
    return float(sum(lexicon_counts(text)))


def _text_signals(text: str) -> list[float]:
    tokens = words(text)
    count = len(tokens)
    bucket = sum(count > edge for edge in LENGTH_BUCKETS)
    lengths = [1.0 if i == bucket else 0.0 for i in range(len(LENGTH_BUCKETS) + 1)]
    distinct = [distinct_n([tokens], n) for n in (1, 2, 3)]
    sentences = [tuple(words(s)) for s in _sentences(text)]
    repeats = Counter(sentences)
    repeated = sum(times - 1 for times in repeats.values()) / len(sentences) if sentences else 0.0
    questions = [s for s in _sentences(text) if s.rstrip().endswith("?")]
    feeling_questions = [
        q
        for q in questions
        if _EXPLORING.search(q.lower())
        or any(t in FEELING_WORDS or t in SECOND_PERSON for t in words(q))
    ]
    feeling, second, _ = lexicon_counts(text)
    first = sum(t in FIRST_PERSON for t in tokens)
    per_word = max(count, 1)
    return [
        *lengths,
        *(1.0 if d is None else d for d in distinct),
        repeated,
        min(len(questions), 3) / 3,
        min(len(feeling_questions), 2) / 2,
        min(second / per_word * 5, 1.0),
        min(first / per_word * 5, 1.0),
        second / (second + first) if second + first else 0.5,
        min(feeling / per_word * 10, 1.0),
        min(feeling, 5) / 5,
    ]


def _content_words(text: str) -> set[str]:
    return {t[:6] for t in words(text) if len(t) > 2 and t not in _STOPWORDS}


def _extra_signals(text: str, message: str | None) -> list[float]:
    """``SIGNAL_NAMES_V2_EXTRA`` of one reply (overlaps 0 without its message)."""
    tokens = words(text)
    count = len(tokens)
    lower = text.lower()
    questions = [s.lower() for s in _sentences(text) if s.rstrip().endswith("?")]
    reflected = feelings = from_post = 0.0
    if message is not None:
        post, reply = _content_words(message), _content_words(text)
        shared = post & reply
        reflected = min(len(shared) / 4, 1.0)
        post_feelings = {t[:6] for t in words(message) if t in FEELING_WORDS}
        reply_feelings = {t[:6] for t in tokens if t in FEELING_WORDS}
        feelings = min(len(post_feelings & reply_feelings) / 2, 1.0)
        from_post = len(shared) / len(reply) if reply else 0.0
    return [
        min(float(np.log1p(count) / np.log1p(300)), 1.0),
        1.0 if count <= 6 else 0.0,
        min(len(_INTERPRETATION.findall(lower)) / 2, 1.0),
        min(len(_SELF_DISCLOSURE.findall(lower)) / 2, 1.0),
        min(sum(bool(_OPEN_QUESTION.search(q)) for q in questions) / 2, 1.0),
        min(len(_DISMISSIVE.findall(lower)) / 2, 1.0),
        min(len(_STOCK.findall(lower)) / 2, 1.0),
        min(sum(t in _SLANG for t in tokens) / max(count, 1) * 5, 1.0),
        reflected,
        feelings,
        from_post,
    ]


def _cosine_rows(a: Matrix, b: Matrix) -> Matrix:
    a = a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-8)
    b = b / np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-8)
    return (a @ b.T).astype(np.float32)


def reply_signals(
    texts: Sequence[str],
    embeddings: Matrix,
    stock_embeddings: Matrix,
    message_embeddings: Matrix | None = None,
    *,
    messages: Sequence[str] | None = None,
    names: Sequence[str] = SIGNAL_NAMES,
) -> Matrix:
    """One row of the signals ``names`` (default: all of ``SIGNAL_NAMES``) per reply.

    ``message_embeddings`` and ``messages`` are row-aligned with ``texts``, both optional: the
    message's embedding gives the similarity signals, its text the overlap signals.
    """
    unknown = [n for n in names if n not in SIGNAL_NAMES]
    if unknown:
        raise ValueError(f"unknown reply signals: {', '.join(unknown)}")
    if messages is not None and len(messages) != len(texts):
        raise ValueError(f"{len(texts)} texts but {len(messages)} messages")
    text_columns = len(SIGNAL_NAMES_V1) - 3  # all but stock and message similarity, has_message
    rows = np.array([_text_signals(t) for t in texts], dtype=np.float32)
    rows = rows.reshape(len(texts), text_columns)
    stock = _cosine_rows(embeddings, stock_embeddings).max(axis=1, initial=0.0)
    if message_embeddings is None:
        similarity = np.zeros(len(texts), dtype=np.float32)
        given = np.zeros(len(texts), dtype=np.float32)
    else:
        similarity = np.einsum(
            "ij,ij->i",
            embeddings / np.maximum(np.linalg.norm(embeddings, axis=1, keepdims=True), 1e-8),
            message_embeddings
            / np.maximum(np.linalg.norm(message_embeddings, axis=1, keepdims=True), 1e-8),
        ).astype(np.float32)
        given = np.ones(len(texts), dtype=np.float32)
    columns = [
        rows[:, : len(LENGTH_BUCKETS) + 5],
        stock[:, None],
        rows[:, len(LENGTH_BUCKETS) + 5 :],
        similarity[:, None],
        given[:, None],
    ]
    extra = np.array(
        [_extra_signals(t, None if messages is None else messages[i]) for i, t in enumerate(texts)],
        dtype=np.float32,
    ).reshape(len(texts), len(SIGNAL_NAMES_V2_EXTRA))
    table = np.concatenate([*columns, extra], axis=1).astype(np.float32)
    return table[:, [SIGNAL_NAMES.index(n) for n in names]]
