"""Time the blind survey's vote store and results, and the therapy track's offline judge.

- votes: ``SurveySession.vote`` for every (rater, question) of a survey with 10 questions and
  5 sources, from one thread and from 8 threads at once (as Gradio's worker threads do), into
  a fresh SQLite file; each vote is validated and committed on its own;
- duplicates: the same votes again from 8 threads, every one refused;
- results: ``survey_results`` (bootstrap CIs over raters) and ``write_results`` on all votes;
- therapy judge: the offline scorer over N answers of a mock-answered study (model load
  included, then warm).

Prints a table and writes benchmarks/results/survey.json.

    python benchmarks/survey.py [--raters 1000] [--answers 400]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import resource
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from empathybench.errors import UserError
from empathybench.models.registry import parse_model_id
from empathybench.runner import RunOptions, execute_run
from empathybench.survey.build import SourceAnswers, build_survey, write_survey
from empathybench.survey.results import survey_results, write_results
from empathybench.survey.session import SurveySession
from empathybench.therapy.judging import TherapyJudgeOptions, judge_study
from empathybench.therapy.questions import QuestionSet, TherapyQuestion
from empathybench.therapy.study import QUESTIONS_FILE, Study

QUESTIONS, SOURCES = 10, 5


def make_survey(directory: Path) -> None:
    questions = [
        (f"q{i}", f"Question {i}: how do I cope with change number {i}?") for i in range(40)
    ]
    sources = [
        SourceAnswers(
            f"source-{s}", {q: f"Answer {s} to {q}, written at length." for q, _ in questions}
        )
        for s in range(SOURCES)
    ]
    form, key = build_survey(questions, sources, k=QUESTIONS, seed=0, title="benchmark")
    write_survey(directory, form, key)


def ballots(raters: int, session: SurveySession) -> list[tuple[str, str, str, str]]:
    votes = []
    for r in range(raters):
        for index, item in enumerate(session.form.items):
            letters = [a.letter for a in item.answers]
            votes.append(
                (
                    f"rater-{r}",
                    item.question_id,
                    letters[(r + index) % 5],
                    letters[(r + index + 1) % 5],
                )
            )
    return votes


def vote_all(session: SurveySession, votes: list[tuple[str, str, str, str]], threads: int) -> int:
    refused = 0

    def one(vote: tuple[str, str, str, str]) -> None:
        nonlocal refused
        try:
            session.vote(*vote, reason="because")
        except UserError:
            refused += 1

    if threads == 1:
        for vote in votes:
            one(vote)
    else:
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(one, votes))
    return refused


def therapy_judge(directory: Path, answers: int) -> dict[str, float]:
    questions = tuple(
        TherapyQuestion(id=f"q{i}", question=f"I keep worrying about thing {i}.", reference=None)
        for i in range(answers)
    )
    study = Study.create_or_open(directory, QuestionSet("bench", "bench", questions))
    asyncio.run(
        execute_run(
            RunOptions(
                suite=study.question_set(),
                suite_source=str(directory / QUESTIONS_FILE),
                spec=parse_model_id("mock/bench"),
                run_dir=study.run_dir("mock/bench"),
            )
        )
    )
    started = time.perf_counter()
    asyncio.run(judge_study(TherapyJudgeOptions(study_dir=directory, offline=["offline"])))
    seconds = time.perf_counter() - started
    return {
        "answers": answers,
        "seconds": round(seconds, 2),
        "answers_per_s": round(answers / seconds, 1),
    }


def survey_rows(directory: Path, raters: int, threads: int) -> list[tuple[str, int, float]]:
    """Vote every ballot with ``threads`` threads; with 8, also duplicates and results."""
    from empathybench.survey.build import load_key

    make_survey(directory)
    rows: list[tuple[str, int, float]] = []
    with SurveySession.open(directory) as session:
        votes = ballots(raters, session)
        started = time.perf_counter()
        vote_all(session, votes, threads)
        rows.append((f"votes, {threads} thread(s)", len(votes), time.perf_counter() - started))
        if threads == 1:
            return rows
        started = time.perf_counter()
        refused = vote_all(session, votes, threads)
        rows.append(("duplicates refused", refused, time.perf_counter() - started))
        stored = session.store.votes(session.survey_id)
        assert len(stored) == len(votes) and refused == len(votes)
        started = time.perf_counter()
        summary = survey_results(session.form, load_key(directory), stored)
        rows.append(("survey_results (bootstrap CIs)", len(stored), time.perf_counter() - started))
        started = time.perf_counter()
        write_results(directory / "results", summary)
        rows.append(("write_results (files, chart)", len(stored), time.perf_counter() - started))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--raters", type=int, default=1000)
    parser.add_argument("--answers", type=int, default=400)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        rows = [
            row
            for threads in (1, 8)
            for row in survey_rows(Path(temp) / f"survey-{threads}", args.raters, threads)
        ]
        judge = therapy_judge(Path(temp) / "study", args.answers)
    results = {
        "machine": platform.platform(),
        "python": sys.version.split()[0],
        "survey": [
            {"step": step, "n": n, "seconds": round(s, 3), "per_s": round(n / s, 1)}
            for step, n, s in rows
        ],
        "therapy_offline_judge": judge,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    print(f"{'step':34} {'n':>7} {'seconds':>9} {'per s':>9}")
    for step, n, seconds in rows:
        print(f"{step:34} {n:>7} {seconds:>9.3f} {n / seconds:>9.1f}")
    name = "therapy judge, offline (cold load)"
    print(
        f"{name:34} {judge['answers']:>7} {judge['seconds']:>9.2f} {judge['answers_per_s']:>9.1f}"
    )
    print(f"peak RSS {results['peak_rss_mb']} MB")
    output = Path(__file__).parent / "results" / "survey.json"
    output.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
