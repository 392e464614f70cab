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

SIGNALS_VERSION = "signals-v1"
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
_SENTENCE = re.compile(r"(?<=[.!?…])\s+|\n+")

SIGNAL_NAMES: tuple[str, ...] = (
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


def _cosine_rows(a: Matrix, b: Matrix) -> Matrix:
    a = a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-8)
    b = b / np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-8)
    return (a @ b.T).astype(np.float32)


def reply_signals(
    texts: Sequence[str],
    embeddings: Matrix,
    stock_embeddings: Matrix,
    message_embeddings: Matrix | None = None,
) -> Matrix:
    """One row of ``SIGNAL_NAMES`` per reply (``message_embeddings`` row-aligned, optional)."""
    text_columns = len(SIGNAL_NAMES) - 3  # all but stock and message similarity, has_message
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
    return np.concatenate(columns, axis=1).astype(np.float32)
