"""``therapy report``: C/E/B per source with confidence intervals, and the seed's radar.

Per source (``human`` and each model), each component and the empathy mean (the seed's
average of the three) is reported as ``mean [95% CI]``, bootstrapped over questions (an
answer's epochs stay together). With several LLM judges, an answer's component score is the
mean of the judges that scored it; LLM judges and the offline scorer are never mixed — LLM
judges are used when there are any, as in the benchmark's summaries. Each model is also
compared with the human answers on the questions both answered (paired difference of the
empathy mean, with its CI and a bootstrap p-value). Unscored components are counted, never
averaged in. Beside the scores, and never mixed into them: each source's answer length and
repetition (repeated trigrams within an answer, distinct bigrams across answers), and how many
answers held nothing to score (1 by rule, ``judging.no_reply``) or loop (flagged).
The files are written by ``therapy.report_files``, the figures drawn by
``therapy.report_figures``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from pydantic import Field

from empathybench.analysis.statistics import bootstrap_paired_difference
from empathybench.analysis.summary import Interval, interval
from empathybench.analysis.text_metrics import distinct_n, repeated_ngram_share, words
from empathybench.errors import UserError
from empathybench.judging.no_reply import check_reply
from empathybench.records import SCHEMA_VERSION, Record
from empathybench.runtime.append_log import ItemKey
from empathybench.runtime.run_data import summary_judges
from empathybench.therapy.study import HUMAN, SourceAnswer, Study
from empathybench.therapy.verdicts import COMPONENTS, TherapyVerdict

REPORT_DIR = "report"
MEASURES: tuple[str, ...] = (*COMPONENTS, "empathy")
TITLES = {
    "cognitive": "Cognitive",
    "emotional": "Emotional",
    "behavioral": "Behavioral",
    "empathy": "Empathy (mean)",
}


class MeasureSummary(Record):
    measure: str
    estimate: Interval
    unscored: int


class HumanComparison(Record):
    """Paired difference (source − human) of the empathy mean on shared questions."""

    difference: Interval
    p_value: float


class TextShape(Record):
    """How long and how repetitive a source's answers are: context for the empathy scores
    (the offline scorer, for one, does not penalise an answer that loops)."""

    words: Interval
    repeated_trigrams: Interval
    """Share of an answer's word trigrams that already occurred earlier in the same answer."""
    distinct_2: float | None
    """Distinct word bigrams over all bigrams of the source's answers (pooled)."""


class SourceSummary(Record):
    source: str
    answers: int
    measures: list[MeasureSummary]
    versus_human: HumanComparison | None = None
    text: TextShape | None = None
    no_reply: int = 0
    """Answers with nothing to score (empty, placeholder, punctuation): 1 by rule, unjudged."""
    degenerate: int = 0
    """Answers flagged as degenerate loops (counted, not scored down)."""

    def measure(self, name: str) -> MeasureSummary:
        return next(m for m in self.measures if m.measure == name)


class TherapyReport(Record):
    schema_version: int = SCHEMA_VERSION
    study: str
    questions: str
    questions_sha256: str
    judges: list[str]
    rubric_versions: list[str]
    seed: int
    sources: list[SourceSummary]
    scored_by: list[str] = Field(default_factory=list)
    """The offline scorer set-ups (head, encoder, backend) behind the scores; more than one
    means the figures mix, e.g., float32 and bfloat16 runs."""


@dataclass(frozen=True)
class _AnswerScores:
    question_id: str
    values: dict[str, float | None]
    unscored: frozenset[str]


def _answer_scores(verdicts: list[TherapyVerdict], question_id: str) -> _AnswerScores:
    values: dict[str, float | None] = {}
    unscored = set()
    for name in COMPONENTS:
        scored = [
            v.scores[name].value
            for v in verdicts
            if name in v.scores and v.scores[name].value is not None
        ]
        values[name] = sum(x for x in scored if x is not None) / len(scored) if scored else None
        if not scored:
            unscored.add(name)
    parts = [values[name] for name in COMPONENTS]
    values["empathy"] = (
        sum(p for p in parts if p is not None) / len(parts) if None not in parts else None
    )
    return _AnswerScores(question_id, values, frozenset(unscored))


def report_judges(study: Study, requested: list[str] | None) -> list[str]:
    recorded = study.judges()
    if not recorded:
        raise UserError(f"{study.directory}: no verdicts yet; run empathybench therapy judge first")
    chosen = requested or summary_judges(recorded)
    missing = [judge for judge in chosen if judge not in recorded]
    if missing:
        raise UserError(
            f"{study.directory}: no verdicts from {', '.join(missing)} "
            f"(judges: {', '.join(recorded)})"
        )
    return chosen


def _source_scores(study: Study, source: str, judges: list[str]) -> list[_AnswerScores]:
    by_key: dict[ItemKey, list[TherapyVerdict]] = defaultdict(list)
    for judge in judges:
        for key, verdict in study.verdicts(judge, source).items():
            by_key[key].append(verdict)
    return [_answer_scores(verdicts, key[0]) for key, verdicts in sorted(by_key.items())]


def text_shape(answers: list[SourceAnswer], seed: int) -> TextShape:
    tokens = [words(answer.text) for answer in answers]
    questions = [answer.question_id for answer in answers]
    return TextShape(
        words=interval([float(len(t)) for t in tokens], questions, seed),
        repeated_trigrams=interval([repeated_ngram_share(t, 3) for t in tokens], questions, seed),
        distinct_2=distinct_n(tokens, 2),
    )


def _per_question(scores: list[_AnswerScores]) -> dict[str, float]:
    """Empathy mean per question (epochs averaged), for the paired comparison."""
    grouped: dict[str, list[float]] = defaultdict(list)
    for answer in scores:
        value = answer.values["empathy"]
        if value is not None:
            grouped[answer.question_id].append(value)
    return {question: sum(v) / len(v) for question, v in grouped.items()}


def build_therapy_report(
    study: Study,
    *,
    judges: list[str] | None = None,
    sources: list[str] | None = None,
    seed: int = 0,
) -> TherapyReport:
    info = study.info()
    chosen_judges = report_judges(study, judges)
    chosen_sources = sources or study.sources()
    answers = study.answers(chosen_sources)
    texts = {key: q.question for key, q in study.question_set().by_id.items()}
    scores = {source: _source_scores(study, source, chosen_judges) for source in chosen_sources}
    human = _per_question(scores[HUMAN]) if HUMAN in scores else None
    summaries = []
    for source in chosen_sources:
        measures = []
        for measure in MEASURES:
            rows = [(a.question_id, a.values[measure]) for a in scores[source]]
            kept = [(q, v) for q, v in rows if v is not None]
            measures.append(
                MeasureSummary(
                    measure=measure,
                    estimate=interval([v for _, v in kept], [q for q, _ in kept], seed),
                    unscored=len(rows) - len(kept),
                )
            )
        comparison = None
        if human is not None and source != HUMAN:
            mine = _per_question(scores[source])
            shared = sorted(set(mine) & set(human))
            estimate, p_value = bootstrap_paired_difference(
                [mine[q] for q in shared], [human[q] for q in shared], seed=seed
            )
            comparison = HumanComparison(
                difference=Interval(
                    mean=estimate.mean,
                    low=estimate.low,
                    high=estimate.high,
                    n=estimate.n,
                    items=estimate.clusters,
                ),
                p_value=round(p_value, 4),
            )
        checks = [
            check_reply(answer.text, None, question=texts[answer.question_id])
            for answer in answers[source].values()
        ]
        summaries.append(
            SourceSummary(
                source=source,
                answers=len(answers[source]),
                measures=measures,
                versus_human=comparison,
                text=text_shape(list(answers[source].values()), seed),
                no_reply=sum(1 for check in checks if check.no_reply),
                degenerate=sum(1 for check in checks if check.degenerate),
            )
        )
    verdicts = [
        verdict
        for judge in chosen_judges
        for source in chosen_sources
        for verdict in study.verdicts(judge, source).values()
    ]
    rubrics = sorted({verdict.rubric_version for verdict in verdicts})
    scored_by = sorted({v.scored_by for v in verdicts if v.scored_by is not None})
    return TherapyReport(
        study=str(study.directory),
        questions=info.questions_name,
        questions_sha256=info.questions_sha256,
        judges=chosen_judges,
        rubric_versions=rubrics,
        seed=seed,
        sources=summaries,
        scored_by=scored_by,
    )
