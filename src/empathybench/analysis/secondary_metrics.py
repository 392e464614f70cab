"""Secondary, automated metrics of the replies: shown apart from the headline scores.

These are proxies from the surveys of the field, not measures of empathy: the sentiment of
each reply (VADER's compound score, -1 to 1), the share of its words in a few Empath
lexicon categories, its length in words, and how formulaic a model's replies are across
items (distinct-n over the pooled replies, and how many replies open with the same words).
Both lexicons ship inside their packages; nothing here uses the network.

The reply is the ``REPLY:`` part of an answer when the parser finds one, else the whole text.
Means carry bootstrap CIs that resample items (scenario ids), like the headline scores.
Distinct-n falls as the number of replies grows, so compare it between runs of one suite.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from pydantic import Field

from empathybench.analysis.summary import Interval, interval
from empathybench.analysis.text_metrics import distinct_n, words
from empathybench.extras import require_module
from empathybench.judging.answer_parser import parse_answer
from empathybench.records import Record
from empathybench.runtime.run_data import RunData

SECONDARY_SCHEMA = 1
SECONDARY_FILE = "secondary_metrics.json"
EMPATH_CATEGORIES: tuple[str, ...] = (
    "sympathy",
    "help",
    "affection",
    "optimism",
    "positive_emotion",
    "negative_emotion",
    "sadness",
    "nervousness",
    "celebration",
)
OPENING_WORDS = 3
POSITIVE_COMPOUND = 0.05
"""VADER's conventional thresholds: compound >= 0.05 positive, <= -0.05 negative."""


class OpeningCount(Record):
    opening: str
    replies: int


class SentimentMetrics(Record):
    compound: Interval
    """Mean VADER compound score of the replies (-1 most negative, 1 most positive)."""
    positive_share: float | None
    negative_share: float | None
    compound_when_person_feels_negative: float | None
    compound_when_person_feels_positive: float | None


class FormulaicityMetrics(Record):
    distinct_1: float | None
    """Distinct unigrams / all unigrams over the pooled replies (1 = never repeats a word)."""
    distinct_2: float | None
    repeated_opening_share: float | None
    """Share of replies whose first words are also the first words of another reply."""
    opening_words: int = OPENING_WORDS
    top_openings: list[OpeningCount] = Field(default_factory=list)


class SecondaryMetrics(Record):
    schema_version: int = SECONDARY_SCHEMA
    run_id: str
    model: str
    replies: int
    sentiment: SentimentMetrics
    empath: dict[str, Interval]
    """Share of a reply's words in each Empath category (0-1), averaged over replies."""
    words: Interval
    median_words: float | None
    formulaicity: FormulaicityMetrics
    bootstrap_seed: int = 0


class SecondaryMetricsFile(Record):
    schema_version: int = SECONDARY_SCHEMA
    runs: list[SecondaryMetrics]


@lru_cache(maxsize=1)
def _vader() -> Any:
    module = require_module(
        "vaderSentiment.vaderSentiment", extra="lexicons", needed_for="the sentiment metric"
    )
    return module.SentimentIntensityAnalyzer()


@lru_cache(maxsize=1)
def _empath() -> Any:
    module = require_module("empath", extra="lexicons", needed_for="the Empath lexicon metrics")
    return module.Empath()  # reads the bundled lexicon; only create_category would use the network


def sentiment(text: str) -> float:
    """VADER's compound score of ``text``."""
    return float(_vader().polarity_scores(text)["compound"])


def empath_shares(tokens: Sequence[str]) -> dict[str, float]:
    """Share of ``tokens`` in each of ``EMPATH_CATEGORIES`` (all 0 for an empty reply)."""
    if not tokens:
        return dict.fromkeys(EMPATH_CATEGORIES, 0.0)
    counts = _empath().analyze(" ".join(tokens), categories=list(EMPATH_CATEGORIES))
    return {category: float(counts[category]) / len(tokens) for category in EMPATH_CATEGORIES}


def openings(token_lists: Sequence[Sequence[str]], length: int = OPENING_WORDS) -> Counter[str]:
    return Counter(" ".join(tokens[:length]) for tokens in token_lists if tokens)


def reply_text(text: str, options: list[str]) -> str:
    return (parse_answer(text, options).reply or text).strip()


def _share(values: Sequence[bool]) -> float | None:
    return sum(values) / len(values) if values else None


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def secondary_metrics(run: RunData, *, seed: int = 0) -> SecondaryMetrics:
    """The secondary metrics of one run's answered replies."""
    scenarios = run.scenarios
    replies: list[tuple[str, str, str]] = []  # (scenario id, person's valence, reply)
    for (scenario_id, _), response in sorted(run.responses.items()):
        scenario = scenarios.get(scenario_id)
        if scenario is None or not response.ok or response.text is None:
            continue
        replies.append(
            (scenario_id, scenario.emotion.valence, reply_text(response.text, scenario.options))
        )
    clusters = [scenario_id for scenario_id, _, _ in replies]
    tokens = [words(text) for _, _, text in replies]
    compounds = [sentiment(text) for _, _, text in replies]
    shares = [empath_shares(reply_tokens) for reply_tokens in tokens]
    opening_counts = openings(tokens)
    repeated = [opening_counts[" ".join(t[:OPENING_WORDS])] > 1 for t in tokens if t]
    lengths = sorted(float(len(t)) for t in tokens)
    return SecondaryMetrics(
        run_id=run.manifest.run_id,
        model=run.model,
        replies=len(replies),
        sentiment=SentimentMetrics(
            compound=interval(compounds, clusters, seed),
            positive_share=_share([c >= POSITIVE_COMPOUND for c in compounds]),
            negative_share=_share([c <= -POSITIVE_COMPOUND for c in compounds]),
            compound_when_person_feels_negative=_mean(
                [c for c, (_, v, _) in zip(compounds, replies, strict=True) if v == "negative"]
            ),
            compound_when_person_feels_positive=_mean(
                [c for c, (_, v, _) in zip(compounds, replies, strict=True) if v == "positive"]
            ),
        ),
        empath={
            category: interval([s[category] for s in shares], clusters, seed)
            for category in EMPATH_CATEGORIES
        },
        words=interval([float(len(t)) for t in tokens], clusters, seed),
        median_words=_median(lengths),
        formulaicity=FormulaicityMetrics(
            distinct_1=distinct_n(tokens, 1),
            distinct_2=distinct_n(tokens, 2),
            repeated_opening_share=_share(repeated),
            top_openings=[
                OpeningCount(opening=text, replies=count)
                for text, count in opening_counts.most_common(5)
                if count > 1
            ],
        ),
        bootstrap_seed=seed,
    )


def _median(sorted_values: Sequence[float]) -> float | None:
    if not sorted_values:
        return None
    middle = len(sorted_values) // 2
    if len(sorted_values) % 2:
        return sorted_values[middle]
    return (sorted_values[middle - 1] + sorted_values[middle]) / 2
