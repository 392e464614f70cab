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
"""

from __future__ import annotations

import csv
import io
import math
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import matplotlib
from matplotlib.projections.polar import PolarAxes

from empathybench.analysis.statistics import bootstrap_paired_difference
from empathybench.analysis.summary import Interval, interval
from empathybench.analysis.text_metrics import distinct_n, repeated_ngram_share, words
from empathybench.errors import UserError
from empathybench.jsonl import atomic_write_text, pretty_json
from empathybench.judging.no_reply import check_reply
from empathybench.judging.offline_judge import judge_label
from empathybench.records import SCHEMA_VERSION, Record
from empathybench.report.figures import FIGURE_STYLE, FigureSet, error_bars, new_figure, save_figure
from empathybench.report.tables import format_interval, markdown_table
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


class TherapyReport(Record):
    schema_version: int = SCHEMA_VERSION
    study: str
    questions: str
    questions_sha256: str
    judges: list[str]
    rubric_versions: list[str]
    seed: int
    sources: list[SourceSummary]


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
        checks = [check_reply(answer.text, None) for answer in answers[source].values()]
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
    rubrics = sorted(
        {
            verdict.rubric_version
            for judge in chosen_judges
            for source in chosen_sources
            for verdict in study.verdicts(judge, source).values()
        }
    )
    return TherapyReport(
        study=str(study.directory),
        questions=info.questions_name,
        questions_sha256=info.questions_sha256,
        judges=chosen_judges,
        rubric_versions=rubrics,
        seed=seed,
        sources=summaries,
    )


def _measure(summary: SourceSummary, name: str) -> MeasureSummary:
    return next(m for m in summary.measures if m.measure == name)


def therapy_table_rows(report: TherapyReport) -> tuple[list[str], list[list[str]]]:
    header = [
        "source",
        "answers",
        *(TITLES[m] for m in MEASURES),
        "n (questions)",
        "unscored",
        "empathy − human",
    ]
    rows = []
    for summary in report.sources:
        empathy = _measure(summary, "empathy").estimate
        comparison = summary.versus_human
        versus = "–"
        if comparison is not None and comparison.difference.mean is not None:
            versus = (
                f"{format_interval(comparison.difference, 2)} (p={comparison.p_value:.3f}, "
                f"{comparison.difference.n} q)"
            )
        rows.append(
            [
                summary.source,
                str(summary.answers),
                *(format_interval(_measure(summary, m).estimate, 2) for m in MEASURES),
                f"{empathy.n} ({empathy.items})",
                str(sum(_measure(summary, m).unscored for m in COMPONENTS)),
                versus,
            ]
        )
    return header, rows


def text_shape_rows(report: TherapyReport) -> tuple[list[str], list[list[str]]]:
    header = [
        "source",
        "words per answer",
        "repeated trigrams (within an answer)",
        "distinct-2",
        "no reply (1 by rule)",
        "degenerate loops (flagged)",
    ]
    rows = []
    for summary in report.sources:
        if summary.text is None:
            continue
        shape = summary.text
        distinct = "–" if shape.distinct_2 is None else f"{shape.distinct_2:.3f}"
        rows.append(
            [
                summary.source,
                format_interval(shape.words, 0),
                format_interval(shape.repeated_trigrams, 3),
                distinct,
                str(summary.no_reply),
                str(summary.degenerate),
            ]
        )
    return header, rows


def therapy_markdown(report: TherapyReport) -> str:
    header, rows = therapy_table_rows(report)
    shape_header, shape_rows = text_shape_rows(report)
    judges = ", ".join(judge_label(j) for j in report.judges)
    return (
        f"# Therapy track: {report.questions}\n\n"
        f"Judges: {judges}; rubric {', '.join(report.rubric_versions)}. Scores 1 (absent) to "
        f"3 (strong), mean [95% bootstrap CI over questions, seed {report.seed}]. "
        "'empathy − human' is the paired difference of the empathy mean on the questions "
        "both answered.\n\n"
        + markdown_table(header, rows)
        + "\n\n## Answer length and repetition\n\nNot empathy measures: context for the scores "
        "above (a looping answer can still sound warm to a scorer). An empty, placeholder or "
        "punctuation-only answer is scored 1 on every component by rule, before any judge; a "
        "looping answer is flagged and counted, not scored down.\n\n"
        + markdown_table(shape_header, shape_rows)
        + "\n"
    )


def therapy_csv(report: TherapyReport) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    header = ["source", "measure", "mean", "ci_low", "ci_high", "n", "questions", "unscored"]
    writer.writerow([*header, "no_reply", "degenerate"])  # per source, on each of its rows
    for summary in report.sources:
        for m in summary.measures:
            e = m.estimate
            row = [summary.source, m.measure, e.mean, e.low, e.high, e.n, e.items, m.unscored]
            writer.writerow([*row, summary.no_reply, summary.degenerate])
    return buffer.getvalue()


def radar_figure(report: TherapyReport, directory: Path, figures: FigureSet) -> None:
    """The seed's Figure 2: one polygon per source over the three components (1–3)."""
    angles = [2 * math.pi * i / len(COMPONENTS) for i in range(len(COMPONENTS))]
    closed = [*angles, angles[0]]
    figure = new_figure(5.5, 5.0)
    axes = figure.add_subplot(projection="polar")
    assert isinstance(axes, PolarAxes)
    drawn = 0
    for summary in report.sources:
        means = [_measure(summary, name).estimate.mean for name in COMPONENTS]
        if any(mean is None for mean in means):
            continue
        values = [float(mean) for mean in means if mean is not None]
        axes.plot(closed, [*values, values[0]], marker="o", label=summary.source)
        axes.fill(closed, [*values, values[0]], alpha=0.08)
        drawn += 1
    if not drawn:
        figures.skipped["therapy_radar"] = "no source has all three components scored"
        return
    axes.set_theta_offset(math.pi / 2)  # cognitive at the top, then clockwise
    axes.set_theta_direction(-1)
    axes.set_xticks(angles, [TITLES[name] for name in COMPONENTS])
    axes.tick_params(axis="x", pad=14)
    axes.set_ylim(1.0, 3.0)
    axes.set_yticks([1.5, 2.0, 2.5, 3.0])
    axes.set_rlabel_position(180)  # the scale runs down between the two lower axes
    axes.set_title("Empathy components by source (1 centre – 3 rim)", pad=18)
    axes.legend(fontsize=7, loc="lower right", bbox_to_anchor=(1.35, -0.12))
    save_figure(
        figure, directory, "therapy_radar", figures, "Mean C/E/B per source (seed Figure 2)."
    )


def bars_figure(report: TherapyReport, directory: Path, figures: FigureSet) -> None:
    """The same means with their 95% CIs, which the radar cannot show honestly."""
    figure = new_figure(7.5, 3.8)
    axes = figure.add_subplot()
    width = 0.8 / max(1, len(report.sources))
    for index, summary in enumerate(report.sources):
        intervals = [_measure(summary, m).estimate for m in MEASURES]
        heights, errors = error_bars(intervals)
        positions = [
            g + (index - (len(report.sources) - 1) / 2) * width for g in range(len(MEASURES))
        ]
        axes.bar(
            positions, heights, width, yerr=errors, capsize=3, label=summary.source, alpha=0.85
        )
    axes.set_xticks(range(len(MEASURES)), [TITLES[m] for m in MEASURES])
    axes.set_ylim(1.0, 3.0)
    axes.set_ylabel("mean (1–3), whiskers: 95% CI")
    axes.grid(axis="y", alpha=0.3)
    axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    save_figure(
        figure, directory, "therapy_components", figures, "C/E/B and empathy per source, 95% CI."
    )


def write_therapy_report(report: TherapyReport, output: Path) -> tuple[list[Path], FigureSet]:
    output.mkdir(parents=True, exist_ok=True)
    files = {
        "therapy.json": pretty_json(report),
        "therapy.md": therapy_markdown(report),
        "therapy.csv": therapy_csv(report),
    }
    written = []
    for name, text in files.items():
        atomic_write_text(output / name, text)
        written.append(output / name)
    figures = FigureSet()
    with matplotlib.rc_context(FIGURE_STYLE):  # type: ignore[arg-type]
        radar_figure(report, output / "figures", figures)
        bars_figure(report, output / "figures", figures)
    written += [path for paths in figures.files.values() for path in paths.values()]
    return written, figures
