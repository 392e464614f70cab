"""Un-blinded results: exact shares on a hand-checked survey, rater-clustered CIs, files."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from empathybench.analysis.statistics import bootstrap_mean
from empathybench.errors import UserError
from empathybench.survey.records import (
    KeyEntry,
    SurveyAnswer,
    SurveyForm,
    SurveyItem,
    SurveyKey,
    Vote,
)
from empathybench.survey.results import SurveyResults, survey_results, write_results
from empathybench.survey.session import SurveySession
from tests.survey.survey_helpers import SOURCES, letter_of

Survey = tuple[Path, SurveyForm, SurveyKey]
HUMAN, ONE, TWO = SOURCES


def _cast(survey: Survey) -> list[Vote]:
    """Two raters x two questions, chosen by source (see the expected shares below)."""
    directory, form, key = survey
    q1, q2 = (item.question_id for item in form.items)
    plan = [
        ("ann", q1, ONE, HUMAN, "the first one asked a question back"),
        ("ann", q2, TWO, HUMAN, ""),
        ("bob", q1, ONE, TWO, "=less of a list"),
        ("bob", q2, ONE, HUMAN, "   "),
    ]
    with SurveySession.open(directory) as session:
        for rater, question, most, least, reason in plan:
            session.vote(
                rater,
                question,
                letter_of(key, question, most),
                letter_of(key, question, least),
                reason,
            )
        return session.store.votes(form.survey_id)


def _share(results: SurveyResults, source: str) -> tuple[float | None, float | None]:
    share = next(s for s in results.sources if s.source == source)
    return share.most.mean, share.least.mean


def test_shares_counts_and_totals_match_a_hand_count(survey: Survey) -> None:
    _, form, key = survey
    results = survey_results(form, key, _cast(survey), seed=3)
    assert (results.votes, results.raters, results.questions, results.form_questions) == (
        4,
        2,
        2,
        2,
    )
    assert _share(results, ONE) == (0.75, 0.0)
    assert _share(results, TWO) == (0.25, 0.25)
    assert _share(results, HUMAN) == (0.0, 0.75)
    counts = {s.source: (s.most_votes, s.least_votes) for s in results.sources}
    assert counts == {ONE: (3, 0), TWO: (1, 1), HUMAN: (0, 3)}
    assert all(s.chance == pytest.approx(1 / 3) for s in results.sources)
    assert [s.source for s in results.sources] == list(SOURCES)
    assert results.survey_id == form.survey_id and results.seed == key.seed
    assert results.bootstrap_seed == 3


def test_intervals_resample_raters_and_stay_within_zero_and_one(survey: Survey) -> None:
    _, form, key = survey
    results = survey_results(form, key, _cast(survey), seed=3)
    one = next(s for s in results.sources if s.source == ONE)
    # ann's "most" votes for ONE average 0.5, bob's 1.0: whole raters are resampled.
    assert (one.most.low, one.most.high, one.most.n, one.most.items) == (0.5, 1.0, 4, 2)
    expected = bootstrap_mean([1.0, 0.0, 1.0, 1.0], clusters=["ann", "ann", "bob", "bob"], seed=3)
    assert (one.most.low, one.most.high) == (expected.low, expected.high)
    for share in results.sources:
        for estimate in (share.most, share.least):
            assert estimate.low is not None and estimate.high is not None
            assert 0.0 <= estimate.low <= (estimate.mean or 0.0) <= estimate.high <= 1.0


def test_only_non_empty_reasons_are_kept_with_their_sources(survey: Survey) -> None:
    _, form, key = survey
    results = survey_results(form, key, _cast(survey))
    assert [(r.rater_id, r.most_source, r.least_source, r.reason) for r in results.reasons] == [
        ("ann", ONE, HUMAN, "the first one asked a question back"),
        ("bob", ONE, TWO, "=less of a list"),
    ]
    assert results.reasons[0].question == form.items[0].question


def _uneven_survey() -> tuple[SurveyForm, SurveyKey]:
    """q1 has three sources, q2 only two (TWO did not answer it)."""
    form = SurveyForm(
        survey_id="uneven",
        title="uneven",
        created_at="2025-01-01T00:00:00+00:00",
        items=[
            SurveyItem(
                question_id="q1",
                question="one?",
                answers=[SurveyAnswer(letter=x, text=f"1{x}") for x in "ABC"],
            ),
            SurveyItem(
                question_id="q2",
                question="two?",
                answers=[SurveyAnswer(letter=x, text=f"2{x}") for x in "AB"],
            ),
        ],
    )
    entries = [
        KeyEntry(question_id="q1", letter="A", source=HUMAN),
        KeyEntry(question_id="q1", letter="B", source=ONE),
        KeyEntry(question_id="q1", letter="C", source=TWO),
        KeyEntry(question_id="q2", letter="A", source=HUMAN),
        KeyEntry(question_id="q2", letter="B", source=ONE),
    ]
    key = SurveyKey(survey_id="uneven", seed=0, sources=list(SOURCES), entries=entries)
    return form, key


def _vote(question: str, most: str, least: str, rater: str = "ann") -> Vote:
    return Vote(
        survey_id="uneven",
        rater_id=rater,
        question_id=question,
        most=most,
        least=least,
        voted_at="2025-01-01T00:00:00+00:00",
    )


def test_chance_level_follows_how_many_answers_each_question_had() -> None:
    form, key = _uneven_survey()
    results = survey_results(form, key, [_vote("q1", "A", "B"), _vote("q2", "B", "A")])
    chance = {s.source: s.chance for s in results.sources}
    assert chance[HUMAN] == pytest.approx((1 / 3 + 1 / 2) / 2)
    assert chance[ONE] == pytest.approx((1 / 3 + 1 / 2) / 2)
    assert chance[TWO] == pytest.approx((1 / 3 + 0) / 2)
    assert _share(results, HUMAN) == (0.5, 0.5) and _share(results, TWO) == (0.0, 0.0)


def test_no_votes_gives_empty_estimates_and_the_plain_chance_level() -> None:
    form, key = _uneven_survey()
    results = survey_results(form, key, [])
    assert results.votes == 0 and all(s.most.mean is None for s in results.sources)
    assert {s.source: s.chance for s in results.sources}[TWO] == pytest.approx(1 / 6)


def test_votes_that_do_not_fit_the_key_are_refused() -> None:
    form, key = _uneven_survey()
    with pytest.raises(UserError, match="voted C on question q2, which the survey does not have"):
        survey_results(form, key, [_vote("q2", "C", "A")])
    with pytest.raises(UserError, match="is for survey other"):
        survey_results(form, key, [_vote("q1", "A", "B").model_copy(update={"survey_id": "other"})])
    other_key = key.model_copy(update={"survey_id": "other"})
    with pytest.raises(UserError, match=r"key\.json is for survey other"):
        survey_results(form, other_key, [])
    short_key = key.model_copy(update={"entries": key.entries[:-1]})
    with pytest.raises(UserError, match="no source for answer B of question q2"):
        survey_results(form, short_key, [])


def test_results_files_are_written_and_readable(survey: Survey, tmp_path: Path) -> None:
    _, form, key = survey
    results = survey_results(form, key, _cast(survey))
    out = tmp_path / "results"
    paths = write_results(out, results)
    names = sorted(path.name for path in paths)
    assert names == sorted(
        ["results.json", "results.md", "reasons.csv", "survey_votes.png", "survey_votes.svg"]
    )
    assert all(path.stat().st_size > 0 for path in paths)
    assert (out / "survey_votes.png").read_bytes().startswith(b"\x89PNG")
    assert "<svg" in (out / "survey_votes.svg").read_text(encoding="utf-8")
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert SurveyResults.model_validate(data) == results
    markdown = (out / "results.md").read_text(encoding="utf-8")
    assert f"| {ONE} | 0.750 [0.500, 1.000] | 0.000 [0.000, 0.000] | 3 | 0 | 0.333 |" in markdown
    assert "the first one asked a question back" in markdown
    with (out / "reasons.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["reason"] for row in rows] == [
        "the first one asked a question back",
        "'=less of a list",
    ]
    assert rows[0]["most_source"] == ONE and rows[0]["least_source"] == HUMAN
