"""Plain text metrics shared by the reports, the no-reply rule and the probes' coherence checks.

``words``: lower-case word tokens. ``distinct_n``: distinct n-grams over all n-grams of one or
more token lists (n-grams never cross lists). ``repeated_ngram_share``: the share of a
sequence's n-grams that already occurred earlier in it. Pure Python, no project imports, so
any stage can use them.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def words(text: str) -> list[str]:
    """Lower-case word tokens (``I'm`` stays one token; punctuation is dropped)."""
    return _WORD.findall(text.lower())


def distinct_n(token_lists: Sequence[Sequence[Hashable]], n: int) -> float | None:
    """Distinct n-grams / all n-grams over the lists pooled (None when there is no n-gram)."""
    grams = [tuple(tokens[i : i + n]) for tokens in token_lists for i in range(len(tokens) - n + 1)]
    return len(set(grams)) / len(grams) if grams else None


def repeated_ngram_share(tokens: Sequence[Hashable], n: int = 3) -> float:
    """Share of the ``n``-grams of ``tokens`` that repeat an earlier one (0 when there is none)."""
    grams = [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]
    return (len(grams) - len(set(grams))) / len(grams) if grams else 0.0
