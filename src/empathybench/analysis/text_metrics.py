"""Plain text metrics shared by the reports, the no-reply rule and the probes' coherence checks.

``words``: lower-case word tokens, in any script: a run of letters and digits (``I'm`` stays
one token), except Chinese characters and Japanese kana, which are written without spaces and
count one word each. (Before, only ASCII letters counted, so a reply in Chinese or Russian held
no words and the no-reply rule scored it 0.) Scripts written with combining marks (Devanagari,
Thai) split at the marks: such replies hold words, but their counts are rough. Text is
NFKC-normalised first (full-width letters, ligatures, decomposed accents). ASCII text gives
the same tokens as before. ``distinct_n``: distinct n-grams over all n-grams of one or
more token lists (n-grams never cross lists). ``repeated_ngram_share``: the share of a
sequence's n-grams that already occurred earlier in it. Pure Python, no project imports, so
any stage can use them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Hashable, Sequence

_UNSPACED = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # kana, CJK ideographs
_WORD = re.compile(
    rf"[{_UNSPACED}]"  # one Chinese character or kana
    rf"|[^\W_{_UNSPACED}]+"  # letters and digits of any other script
    rf"(?:'[^\W\d_{_UNSPACED}]+)?"  # an apostrophe and letters: I'm, don't
)


def words(text: str) -> list[str]:
    """Lower-case word tokens (``I'm`` stays one token; punctuation is dropped)."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).lower())


def distinct_n(token_lists: Sequence[Sequence[Hashable]], n: int) -> float | None:
    """Distinct n-grams / all n-grams over the lists pooled (None when there is no n-gram)."""
    grams = [tuple(tokens[i : i + n]) for tokens in token_lists for i in range(len(tokens) - n + 1)]
    return len(set(grams)) / len(grams) if grams else None


def repeated_ngram_share(tokens: Sequence[Hashable], n: int = 3) -> float:
    """Share of the ``n``-grams of ``tokens`` that repeat an earlier one (0 when there is none)."""
    grams = [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]
    return (len(grams) - len(set(grams))) / len(grams) if grams else 0.0
