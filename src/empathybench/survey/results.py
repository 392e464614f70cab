"""Un-blinding a survey: vote shares per source with CIs, the chart, and CSV in and out.

A source's "most" share is the mean, over all votes, of "this vote's most empathetic answer
came from this source" (likewise "least"), so each column sums to 1 over the sources, as in
the seed's Figure 3. One rater's votes are not independent (a rater who dislikes lists votes
against the same source every time), so the bootstrap resamples raters, not votes.

Chance level: a rater picking at random gives each answer of a question 1/(answers on that
question); a source's chance level is that, averaged over the votes (0 for a question it did
not answer). It is 1/n_sources when every question has every source.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path

import matplotlib

from empathybench.analysis.summary import Interval, interval
from empathybench.csv_cells import (
    ImportReport,
    csv_text,
    import_rows,
    option_letter,
    read_csv_rows,
)
from empathybench.errors import UserError
from empathybench.jsonl import atomic_write_text, pretty_json
from empathybench.records import SCHEMA_VERSION, Record
from empathybench.report.figures import (
    FIGURE_STYLE,
    FigureSet,
    grouped_bars,
    new_figure,
    save_figure,
)
from empathybench.report.tables import format_interval, markdown_table
from empathybench.survey.records import SurveyForm, SurveyKey, Vote
from empathybench.survey.session import SurveySession
from empathybench.survey.store import DuplicateVoteError

RESULTS_FILE = "results.json"
RESULTS_MARKDOWN = "results.md"
REASONS_FILE = "reasons.csv"
CHART_NAME = "survey_votes"
EXPORT_COLUMNS = (
    "survey_id",
    "rater_id",
    "question_id",
    "most",
    "least",
    "most_source",
    "least_source",
    "reason",
    "voted_at",
)
REQUIRED_IMPORT_COLUMNS = ("rater_id", "question_id", "most", "least")
OPTIONAL_IMPORT_COLUMNS = ("reason", "voted_at", "survey_id")
REASON_COLUMNS = ("rater_id", "question_id", "question", "most_source", "least_source", "reason")


class SourceShare(Record):
    """How often one source's answer was voted most and least empathetic."""

    source: str
    most: Interval
    """Share of all votes whose most empathetic answer is this source's (CI over raters)."""
    least: Interval
    most_votes: int
    least_votes: int
    chance: float
    """The share a rater picking at random would give this source (see the module notes)."""


class SurveyReason(Record):
    rater_id: str
    question_id: str
    question: str
    most_source: str
    least_source: str
    reason: str


class SurveyResults(Record):
    schema_version: int = SCHEMA_VERSION
    survey_id: str
    title: str
    seed: int
    """The survey's seed (question pick and letters)."""
    bootstrap_seed: int
    votes: int
    raters: int
    questions: int
    """Questions with at least one vote."""
    form_questions: int
    sources: list[SourceShare]
    reasons: list[SurveyReason]


def _source_lookup(form: SurveyForm, key: SurveyKey) -> dict[tuple[str, str], str]:
    """(question id, letter) → source, after checking the key covers the form exactly."""
    if form.survey_id != key.survey_id:
        raise UserError(
            f"key.json is for survey {key.survey_id} but form.json for {form.survey_id}; "
            "they must come from the same survey build"
        )
    lookup = {(entry.question_id, entry.letter): entry.source for entry in key.entries}
    for item in form.items:
        for answer in item.answers:
            if (item.question_id, answer.letter) not in lookup:
                raise UserError(
                    f"key.json has no source for answer {answer.letter} of question "
                    f"{item.question_id}; rebuild the survey"
                )
    return lookup


def survey_results(
    form: SurveyForm, key: SurveyKey, votes: Sequence[Vote], *, seed: int = 0
) -> SurveyResults:
    """Shares per source with seeded, rater-clustered bootstrap 95% CIs."""
    lookup = _source_lookup(form, key)
    items = {item.question_id: item for item in form.items}
    for vote in votes:
        if vote.survey_id != form.survey_id:
            raise UserError(f"a vote is for survey {vote.survey_id}, not {form.survey_id}")
        for letter in (vote.most, vote.least):
            if (vote.question_id, letter) not in lookup:
                raise UserError(
                    f"rater {vote.rater_id} voted {letter} on question {vote.question_id}, "
                    "which the survey does not have; the votes do not match this survey"
                )
    odds = _random_pick_odds(form, lookup)
    raters = [vote.rater_id for vote in votes]
    shares = []
    for source in key.sources:
        most = [float(lookup[(v.question_id, v.most)] == source) for v in votes]
        least = [float(lookup[(v.question_id, v.least)] == source) for v in votes]
        chance = [odds[v.question_id].get(source, 0.0) for v in votes]
        shares.append(
            SourceShare(
                source=source,
                most=interval(most, raters, seed),
                least=interval(least, raters, seed),
                most_votes=int(sum(most)),
                least_votes=int(sum(least)),
                chance=_mean(chance)
                if votes
                else _mean([o.get(source, 0.0) for o in odds.values()]),
            )
        )
    reasons = [
        SurveyReason(
            rater_id=vote.rater_id,
            question_id=vote.question_id,
            question=items[vote.question_id].question,
            most_source=lookup[(vote.question_id, vote.most)],
            least_source=lookup[(vote.question_id, vote.least)],
            reason=vote.reason,
        )
        for vote in votes
        if vote.reason.strip()
    ]
    return SurveyResults(
        survey_id=form.survey_id,
        title=form.title,
        seed=key.seed,
        bootstrap_seed=seed,
        votes=len(votes),
        raters=len(set(raters)),
        questions=len({vote.question_id for vote in votes}),
        form_questions=len(form.items),
        sources=shares,
        reasons=reasons,
    )


def _random_pick_odds(
    form: SurveyForm, lookup: dict[tuple[str, str], str]
) -> dict[str, dict[str, float]]:
    """Question id → source → the chance a random pick lands on that source's answer."""
    return {
        item.question_id: {
            lookup[(item.question_id, answer.letter)]: 1.0 / len(item.answers)
            for answer in item.answers
        }
        for item in form.items
    }


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


# --- writing results --------------------------------------------------------------------


def results_markdown(results: SurveyResults) -> str:
    """The shares table, then the raters' reasons grouped by question."""
    rows = [
        [
            share.source,
            format_interval(share.most),
            format_interval(share.least),
            str(share.most_votes),
            str(share.least_votes),
            f"{share.chance:.3f}",
        ]
        for share in results.sources
    ]
    header = ["source", "most [95% CI]", "least [95% CI]", "most votes", "least votes", "chance"]
    lines = [
        f"# Blind survey: {html.escape(results.title, quote=False)}",
        "",
        f"Survey `{results.survey_id}` (seed {results.seed}): {results.votes} votes from "
        f"{results.raters} raters on {results.questions} of {results.form_questions} questions. "
        "Shares are of all votes; 95% CIs by a bootstrap over raters "
        f"(seed {results.bootstrap_seed}); chance is the share a random pick would give.",
        "",
        markdown_table(header, rows),
        "",
        "## Why raters chose as they did",
        "",
    ]
    if not results.reasons:
        lines.append("No rater gave a reason.")
    by_question: dict[str, list[str]] = {}
    titles: dict[str, str] = {}
    for reason in results.reasons:
        titles[reason.question_id] = reason.question
        text = " ".join(html.escape(reason.reason, quote=False).split())
        by_question.setdefault(reason.question_id, []).append(
            f"- {html.escape(reason.rater_id, quote=False)} (most: {reason.most_source}, "
            f"least: {reason.least_source}): {text}"
        )
    for question_id, entries in by_question.items():
        question = " ".join(html.escape(titles[question_id], quote=False).split())
        lines += [f"### {question_id}: {question}", "", *entries, ""]
    return "\n".join(lines).rstrip() + "\n"


def vote_chart(results: SurveyResults, directory: Path) -> FigureSet:
    """Figure 3 of the seed, with CIs: per source, its most and least share of the votes."""
    figures = FigureSet()
    groups = [share.source for share in results.sources]
    notes = {
        role: [f"{getattr(share, f'{role}_votes')}/{results.votes}" for share in results.sources]
        for role in ("most", "least")
    }
    series = [
        ("most empathetic", [share.most for share in results.sources], notes["most"]),
        ("least empathetic", [share.least for share in results.sources], notes["least"]),
    ]
    with matplotlib.rc_context(FIGURE_STYLE):  # type: ignore[arg-type]
        figure = new_figure(max(5.0, 1.3 * len(groups) + 2.5), 4.0)
        axes = figure.add_subplot()
        grouped_bars(axes, groups, series)
        chances = {round(share.chance, 6) for share in results.sources}
        if len(chances) == 1:
            axes.axhline(chances.pop(), color="grey", linestyle="--", linewidth=1, label="chance")
            axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        axes.set_ylabel("share of votes (0–1), whiskers: 95% CI")
        axes.set_title(f"Most and least empathetic votes per source ({results.votes} votes)")
        caption = (
            "Share of most and least empathetic votes per source, 95% CI over raters; "
            "labels: votes for the source / all votes."
        )
        save_figure(figure, directory, CHART_NAME, figures, caption)
    return figures


def write_results(directory: Path, results: SurveyResults) -> list[Path]:
    """results.json, results.md, reasons.csv and the chart (PNG, SVG); the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    texts = {
        RESULTS_FILE: pretty_json(results),
        RESULTS_MARKDOWN: results_markdown(results),
        REASONS_FILE: csv_text(
            REASON_COLUMNS,
            (
                [r.rater_id, r.question_id, r.question, r.most_source, r.least_source, r.reason]
                for r in results.reasons
            ),
        ),
    }
    for name, text in texts.items():
        atomic_write_text(directory / name, text)
    figures = vote_chart(results, directory)
    return [directory / name for name in texts] + list(figures.files[CHART_NAME].values())


# --- CSV export and import --------------------------------------------------------------


def export_votes_csv(votes: Sequence[Vote], key: SurveyKey, path: Path) -> None:
    """Every vote with its sources, for spreadsheets (formula-safe) and for re-import."""
    lookup = {(entry.question_id, entry.letter): entry.source for entry in key.entries}
    rows = [
        [
            vote.survey_id,
            vote.rater_id,
            vote.question_id,
            vote.most,
            vote.least,
            lookup.get((vote.question_id, vote.most), ""),
            lookup.get((vote.question_id, vote.least), ""),
            vote.reason,
            vote.voted_at,
        ]
        for vote in votes
    ]
    atomic_write_text(path, csv_text(EXPORT_COLUMNS, rows))


def import_votes_csv(path: Path, session: SurveySession) -> ImportReport:
    """Add the votes of a CSV (an export, or a form tool's sheet) through the session's checks.

    Rows are stored one by one, so re-running after fixing the rejected rows adds only them.
    A row for another survey (a ``survey_id`` column that does not match) is rejected: its
    letters would point at other sources.
    """
    rows = read_csv_rows(
        path, required=REQUIRED_IMPORT_COLUMNS, optional=OPTIONAL_IMPORT_COLUMNS, what="vote"
    )

    def add(row: dict[str, str]) -> None:
        session.vote(
            row.get("rater_id") or "",
            (row.get("question_id") or "").strip(),
            option_letter(row.get("most") or ""),
            option_letter(row.get("least") or ""),
            row.get("reason") or "",
            voted_at=(row.get("voted_at") or "").strip() or None,
        )

    return import_rows(
        rows,
        add,
        duplicate=DuplicateVoteError,
        id_column="survey_id",
        own_id=session.survey_id,
        what="vote",
        container="survey",
    )
