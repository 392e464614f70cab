"""Cheap checks that a (steered) completion is still language.

``empty``: no visible text. ``distinct_1`` / ``distinct_2``: unique word unigrams / bigrams
over all of them. ``repetition``: share of token 3-grams that repeat an earlier one.
Perplexity under the *unsteered* model is computed from a forward pass elsewhere
(``activations.read_examples(with_nll=True)``); a completion counts as coherent when it is not
empty, repeats under half of its 3-grams and its perplexity is under ten times the median of
the unsteered (alpha = 0) completions.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from empathybench.analysis.text_metrics import distinct_n, repeated_ngram_share

REPETITION_LIMIT = 0.5
PERPLEXITY_FACTOR = 10.0
_WORD = re.compile(r"\w+|[^\w\s]")


@dataclass(frozen=True)
class TextChecks:
    empty: bool
    distinct_1: float | None
    distinct_2: float | None
    repetition: float


def check_text(text: str, token_ids: Sequence[int]) -> TextChecks:
    words = [w.lower() for w in _WORD.findall(text)]
    return TextChecks(
        empty=not text.strip(),
        distinct_1=distinct_n([words], 1),
        distinct_2=distinct_n([words], 2),
        repetition=repeated_ngram_share(token_ids, 3),
    )


def perplexity(mean_nll: float) -> float | None:
    return math.exp(mean_nll) if math.isfinite(mean_nll) else None


def is_coherent(
    empty: bool, repetition: float, perplexity_value: float | None, perplexity_limit: float
) -> bool:
    return (
        not empty
        and repetition < REPETITION_LIMIT
        and perplexity_value is not None
        and perplexity_value <= perplexity_limit
    )
