"""The real app in a child process (``empathybench ui``), driven by headless Chromium.

One server serves every test here (starting torch + gradio is slow on a small machine); it
is always stopped by the fixture's finaliser. Each test opens its own page and uses its own
rater ids, so the tests do not depend on each other's order.
"""

import csv
import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from empathybench.records import Suite
from empathybench.runtime.run_data import load_run_data
from empathybench.survey.build import SourceAnswers, build_survey, write_survey
from empathybench.survey.records import SurveyForm
from empathybench.survey.session import SurveySession
from tests.fakes.app_server import free_port, stop, wait_until_serving
from tests.fakes.browser import chromium
from tests.fakes.mock_runs import (
    PLANTED_IMAGE,
    PLANTED_REPLY,
    PLANTED_SCRIPT,
    answering,
    make_run,
    scripted_judge,
)

pytestmark = [pytest.mark.slow, pytest.mark.torch, pytest.mark.browser]

SCORING_TIMEOUT_MS = 90_000
STEP_TIMEOUT_MS = 30_000
JUDGE = "mock/judge-planted"
HOSTILE_ANSWER = f"Be kind to yourself. {PLANTED_SCRIPT} {PLANTED_IMAGE}"
QUESTIONS = [
    ("q1", "I feel alone since I moved. What can I do?"),
    ("q2", "My exams are making me panic. How do I cope?"),
    ("q3", "I argue with my sister all the time. Is that normal?"),
]


class Server:
    def __init__(self, url: str, flag_file: Path, survey_dir: Path, run_dir: Path) -> None:
        self.url = url
        self.flag_file = flag_file
        self.survey_dir = survey_dir
        self.run_dir = run_dir
        self.requests: list[str] = []
        """Every URL any page of this module requested (checked by the last test)."""


@pytest.fixture(scope="module")
def workspace(
    small_suite: Suite, small_suite_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """Runs and a survey for the app; made before any browser starts (see test_report_html)."""
    base = tmp_path_factory.mktemp("ui")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EMPATHYBENCH_CACHE", str(base / "cache.sqlite"))
        make_run(
            base / "runs" / "hostile",
            small_suite,
            small_suite_path,
            "mock/hostile",
            model=answering(small_suite, "mock/hostile", right_ids=set(), reply=PLANTED_REPLY),
            judges=[JUDGE],
            judge_models={JUDGE: scripted_judge(JUDGE, f"judge says {PLANTED_SCRIPT}")},
            limit=6,
        )
    answers = {
        "model-a": {qid: f"model-a on {qid}: that sounds hard." for qid, _ in QUESTIONS},
        "model-b": {qid: f"model-b on {qid}: {HOSTILE_ANSWER}" for qid, _ in QUESTIONS},
        "human": {qid: f"human on {qid}: try a club." for qid, _ in QUESTIONS},
    }
    form, key = build_survey(
        questions=QUESTIONS,
        sources=[SourceAnswers(name, texts) for name, texts in answers.items()],
        k=len(QUESTIONS),
        seed=0,
        title="Which reply is most empathetic?",
    )
    write_survey(base / "survey", form, key)
    return base


@pytest.fixture(scope="module")
def server(workspace: Path) -> Iterator[Server]:
    if importlib.util.find_spec("gradio") is None:
        reason = "gradio is not installed (pip install -e '.[ui]')"
        if os.environ.get("EMPATHYBENCH_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests are required but cannot run: {reason}")
        pytest.skip(reason)
    port = free_port()
    flag_file = workspace / "flags.csv"
    stdout, stderr = workspace / "server.out", workspace / "server.err"
    env = {
        **os.environ,
        "EMPATHYBENCH_CACHE": str(workspace / "cache.sqlite"),
        "GRADIO_TEMP_DIR": str(workspace / "gradio-tmp"),
    }
    command = [
        sys.executable,
        "-m",
        "empathybench",
        "ui",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--flag-file",
        str(flag_file),
        "--survey",
        str(workspace / "survey"),
        "--runs",
        str(workspace / "runs"),
    ]
    with stdout.open("wb") as out, stderr.open("wb") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, cwd=workspace, env=env)
    try:
        url = f"http://127.0.0.1:{port}/"
        wait_until_serving(url, process, stderr)
        yield Server(url, flag_file, workspace / "survey", workspace / "runs" / "hostile")
    finally:
        stop(process)


@pytest.fixture(scope="module")
def browser(server: Server) -> Iterator[Any]:
    with chromium() as launched:
        yield launched


class Page:
    """A fresh page on the app; the URLs it requests are kept on the server object."""

    def __init__(self, browser: Any, server: Server) -> None:
        self.page = browser.new_page(viewport={"width": 1280, "height": 1000})
        self.page.on("request", lambda request: server.requests.append(request.url))
        self.server = server
        self.load()

    def load(self) -> None:
        self.page.goto(self.server.url)
        self.page.wait_for_selector("#score-text textarea", timeout=STEP_TIMEOUT_MS)

    def tab(self, name: str) -> None:
        self.page.get_by_role("tab", name=name).click()

    def field(self, elem_id: str) -> Any:
        return self.page.locator(f"#{elem_id}").locator("textarea, input").first

    def choose(self, elem_id: str, option: Any) -> None:
        """Pick an option of a Gradio dropdown (``option``: its visible name or an index)."""
        self.page.locator(f"#{elem_id} input").click()
        options = self.page.get_by_role("option")
        target = options.nth(option) if isinstance(option, int) else options.filter(has_text=option)
        target.first.click()

    def no_injection_ran(self) -> None:
        self.page.wait_for_timeout(300)  # time for an injected handler to fire, were it live
        assert self.page.evaluate("typeof window.__pwned") == "undefined"
        assert self.page.evaluate("document.querySelectorAll('img[src=\"x\"]').length") == 0
        scripts = self.page.evaluate("[...document.scripts].map(s => s.textContent).join('\\n')")
        assert "__pwned" not in scripts


@pytest.fixture
def page(browser: Any, server: Server) -> Iterator[Page]:
    opened = Page(browser, server)
    try:
        yield opened
    finally:
        opened.page.close()


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def score_on_page(page: Page, text: str) -> list[str]:
    page.field("score-text").fill(text)
    page.page.click("#score-submit")
    expect(page.page.locator("#score-status")).to_contain_text("Scored", timeout=SCORING_TIMEOUT_MS)
    return [
        page.field(f"score-{name}").input_value()
        for name in ("cognitive", "emotional", "behavioral", "overall")
    ]


def test_scores_match_the_scorer_and_clear_empties(page: Page) -> None:
    from empathybench.scorer import score_responses

    text = "That sounds so exhausting. I'm here, and we can work out the next step together."
    shown = score_on_page(page, text)
    [expected] = score_responses([text])
    for cell, value in zip(
        shown,
        (expected.cognitive, expected.emotional, expected.behavioral, expected.empathy),
        strict=True,
    ):
        assert len(cell.split(".")[1]) == 2, cell
        assert 1.0 <= float(cell) <= 3.0
        assert abs(float(cell) - value) <= 0.005 + 1e-6, (cell, value)
    page.page.click("#score-clear")
    expect(page.field("score-text")).to_have_value("", timeout=STEP_TIMEOUT_MS)
    for name in ("cognitive", "emotional", "behavioral", "overall"):
        expect(page.field(f"score-{name}")).to_have_value("")


def test_flag_appends_one_row_with_the_text_and_its_scores(page: Page, server: Server) -> None:
    text = 'I hear you. "Moving is lonely", and you reached out, that matters.'
    before = server.flag_file.read_text(encoding="utf-8") if server.flag_file.exists() else ""
    shown = score_on_page(page, text)
    page.page.click("#score-flag")
    expect(page.page.locator("#score-status")).to_contain_text("Flagged", timeout=STEP_TIMEOUT_MS)
    assert server.flag_file.read_text(encoding="utf-8").startswith(before)
    with server.flag_file.open(encoding="utf-8", newline="") as file:
        rows = [row for row in csv.DictReader(file) if row["text"] == text]
    assert len(rows) == 1
    [row] = rows
    flagged = [row[name] for name in ("cognitive", "emotional", "behavioral", "empathy")]
    assert [f"{float(value):.2f}" for value in flagged] == shown
    assert row["scorer"] == "bundled:empathy-v4"
    assert datetime.fromisoformat(row["flagged_at"]).utcoffset() == timedelta(0)


def test_friendly_messages_instead_of_errors(page: Page) -> None:
    page.page.click("#score-flag")
    expect(page.page.locator("#score-status")).to_contain_text(
        "Score a text first", timeout=STEP_TIMEOUT_MS
    )
    page.field("score-text").fill("   ")
    page.page.click("#score-submit")
    expect(page.page.locator("#score-status")).to_contain_text(
        "nothing to score", timeout=STEP_TIMEOUT_MS
    )
    expect(page.field("score-cognitive")).to_have_value("")


def start_rating(page: Page, rater: str) -> None:
    page.tab("Survey")
    page.field("survey-rater").fill(rater)
    page.page.click("#survey-start")
    expect(page.page.locator("#survey-progress")).to_contain_text(
        "Question", timeout=STEP_TIMEOUT_MS
    )


def survey_form(server: Server) -> SurveyForm:
    with SurveySession.open(server.survey_dir) as session:
        return session.form


def votes_of(server: Server, rater: str) -> list[Any]:
    with SurveySession.open(server.survey_dir) as session:
        return [v for v in session.store.votes(session.survey_id) if v.rater_id == rater]


def vote_on_page(page: Page, most: str, least: str, reason: str) -> None:
    page.page.locator("#survey-most").get_by_label(most, exact=True).check()
    page.page.locator("#survey-least").get_by_label(least, exact=True).check()
    page.field("survey-reason").fill(reason)
    page.page.click("#survey-submit")


def test_a_vote_is_stored_and_a_second_vote_refused(page: Page, server: Server) -> None:
    form = survey_form(server)
    first = form.items[0]
    start_rating(page, "rater-vote")
    expect(page.page.locator("#survey-progress")).to_contain_text("Question 1 of 3")
    expect(page.field("survey-question")).to_have_value(first.question)
    for answer in first.answers:  # shown verbatim, as text (one of them carries markup)
        expect(page.field(f"survey-answer-{answer.letter.lower()}")).to_have_value(answer.text)
    page.no_injection_ran()
    most, least = first.answers[0].letter, first.answers[1].letter
    vote_on_page(page, most, least, "It named the feeling first.")
    expect(page.page.locator("#survey-status")).to_contain_text(
        "Vote saved", timeout=STEP_TIMEOUT_MS
    )
    expect(page.page.locator("#survey-progress")).to_contain_text("Question 2 of 3")
    [vote] = votes_of(server, "rater-vote")
    assert (vote.question_id, vote.most, vote.least, vote.reason) == (
        first.question_id,
        most,
        least,
        "It named the feeling first.",
    )
    page.choose("survey-question-picker", "Question 1")
    expect(page.page.locator("#survey-progress")).to_contain_text(
        "Question 1 of 3", timeout=STEP_TIMEOUT_MS
    )
    vote_on_page(page, least, most, "changed my mind")
    expect(page.page.locator("#survey-status")).to_contain_text(
        "already voted", timeout=STEP_TIMEOUT_MS
    )
    expect(page.page.locator("#survey-status")).to_contain_text("Not saved")
    [still] = votes_of(server, "rater-vote")
    assert still == vote


def test_a_rater_comes_back_and_continues(page: Page, server: Server) -> None:
    form = survey_form(server)
    start_rating(page, "rater-resume")
    first = form.items[0]
    vote_on_page(page, first.answers[2].letter, first.answers[0].letter, "")
    expect(page.page.locator("#survey-status")).to_contain_text(
        "Vote saved", timeout=STEP_TIMEOUT_MS
    )
    page.load()  # a new browser session: nothing remembered but the rater id
    start_rating(page, "rater-resume")
    expect(page.page.locator("#survey-progress")).to_contain_text(
        "Question 2 of 3 · you have answered 1 of 3"
    )
    expect(page.field("survey-question")).to_have_value(form.items[1].question)
    assert [v.question_id for v in votes_of(server, "rater-resume")] == [first.question_id]


def test_a_run_opens_with_its_table_figures_and_items(page: Page, server: Server) -> None:
    page.tab("Runs")
    page.choose("runs-picker", "hostile")
    status = page.page.locator("#runs-status")
    expect(status).to_contain_text("Opened", timeout=STEP_TIMEOUT_MS)
    table = page.page.locator("#runs-table")
    expect(table).to_contain_text("mock/hostile")
    assert table.locator("table").count() >= 1
    images = page.page.locator("#runs-figures img")
    expect(images.first).to_be_visible(timeout=STEP_TIMEOUT_MS)
    assert images.count() >= 3
    # Every figure decodes (waits while they load; a broken image never gets a width).
    page.page.wait_for_function(
        "[...document.querySelectorAll('#runs-figures img')]"
        ".every(i => i.complete && i.naturalWidth > 0)",
        timeout=STEP_TIMEOUT_MS,
    )
    page.choose("runs-item-picker", 1)
    label = page.field("runs-item-picker").input_value()
    scenario_id = label.split(" · ")[0]
    response = load_run_data(server.run_dir).responses[(scenario_id, 0)]
    assert response.text is not None and PLANTED_REPLY in response.text
    expect(page.field("runs-response")).to_have_value(response.text, timeout=STEP_TIMEOUT_MS)
    scenario = load_run_data(server.run_dir).scenarios[scenario_id]
    assert scenario.messages[-1].content in page.field("runs-prompt").input_value()
    verdicts = page.field("runs-verdicts").input_value()
    assert f"Judge {JUDGE}" in verdicts and f"judge says {PLANTED_SCRIPT}" in verdicts
    page.no_injection_ran()

    page.field("runs-path").fill(str(server.survey_dir))
    page.page.click("#runs-open")
    expect(status).to_contain_text("no run folder", timeout=STEP_TIMEOUT_MS)
    expect(page.field("runs-response")).to_have_value("")


def test_the_app_needs_no_network(page: Page, server: Server) -> None:
    """No page of this module (this one visits every tab) asked for anything off the app."""
    for name in ("Runs", "Survey", "Score"):
        page.tab(name)
    expect(page.page.locator("#score-caveat")).to_be_visible()
    assert any(url.startswith(server.url) for url in server.requests)
    outside = [url for url in server.requests if not url.startswith((server.url, "data:", "blob:"))]
    assert outside == []
