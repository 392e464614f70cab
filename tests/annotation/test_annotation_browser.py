"""The Annotate tab in the real app (``empathybench ui --annotations``), driven by Chromium.

One server for the module, stopped by the fixture. Every scene carries planted markup that
must show as text; every item's hidden goal is a canary that lives in key.json and must never
reach the page.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from empathybench.annotation.records import AnnotationForm, FormItem
from empathybench.annotation.session import AnnotationSession
from empathybench.annotation.study import init_study, load_form, load_key
from empathybench.records import Turn
from tests.annotation.annotation_helpers import GOAL_CANARY, scenarios, write_suite
from tests.fakes.app_server import free_port, stop, wait_until_serving
from tests.fakes.browser import chromium

pytestmark = [pytest.mark.slow, pytest.mark.browser]

STEP_TIMEOUT_MS = 30_000
PLANTED_SCRIPT = "<script>window.__pwned=1</script>"
PLANTED_IMAGE = '<img src=x onerror="window.__pwned=2">'
KEY_WORDS = (GOAL_CANARY, "correct_letter", "help_needed", "emotion_support")


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("annotate-ui")
    planted = [
        item.model_copy(
            update={
                "dialogue": [
                    *item.dialogue,
                    Turn(speaker=item.focus_person, text=f"{PLANTED_SCRIPT} {PLANTED_IMAGE}"),
                ]
            }
        )
        for item in scenarios()
    ]
    directory = base / "study"
    init_study(directory, str(write_suite(base / "planted.jsonl", planted)), seed=3)
    return directory


@pytest.fixture(scope="module")
def server(study: Path) -> Iterator[str]:
    if importlib.util.find_spec("gradio") is None:
        reason = "gradio is not installed (pip install -e '.[ui]')"
        if os.environ.get("EMPATHYBENCH_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests are required but cannot run: {reason}")
        pytest.skip(reason)
    port = free_port()
    workspace = study.parent
    stderr = workspace / "server.err"
    env = {**os.environ, "GRADIO_TEMP_DIR": str(workspace / "gradio-tmp")}
    command = [
        *(sys.executable, "-m", "empathybench", "ui", "--host", "127.0.0.1"),
        *("--port", str(port), "--annotations", str(study)),
        *("--flag-file", str(workspace / "flags.csv")),
    ]
    with (workspace / "server.out").open("wb") as out, stderr.open("wb") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, cwd=workspace, env=env)
    try:
        url = f"http://127.0.0.1:{port}/"
        wait_until_serving(url, process, stderr)
        yield url
    finally:
        stop(process)


@pytest.fixture
def page(server: str) -> Iterator[Any]:
    with chromium() as browser:
        opened = browser.new_page(viewport={"width": 1280, "height": 1000})
        requests: list[str] = []
        opened.on("request", lambda request: requests.append(request.url))
        opened.goto(server)
        wait_for_app(opened)
        yield opened
        outside = [u for u in requests if not u.startswith((server, "data:", "blob:"))]
        assert outside == []


def wait_for_app(page: Any) -> None:
    """Until the app has rendered (the first tab's text box; other tabs render on click)."""
    page.wait_for_selector("#score-text textarea", timeout=STEP_TIMEOUT_MS)


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def start(page: Any, rater: str) -> None:
    page.get_by_role("tab", name="Annotate").click()
    page.locator("#annotate-rater textarea, #annotate-rater input").first.fill(rater)
    page.click("#annotate-start")
    expect(page.locator("#annotate-progress")).to_contain_text("Item", timeout=STEP_TIMEOUT_MS)


def scene_box(page: Any) -> Any:
    return page.locator("#annotate-scene textarea")


def shows_item_blind(page: Any, item: FormItem) -> None:
    """The scene as text, the item's questions and choices, nothing chosen, no key."""
    expect(scene_box(page)).to_have_value(item.scene, timeout=STEP_TIMEOUT_MS)
    assert PLANTED_SCRIPT in scene_box(page).input_value()
    for option in item.options:
        expect(page.locator("#annotate-emotion")).to_contain_text(f"{option.letter}) {option.text}")
    expect(page.locator("#annotate-emotion")).to_contain_text(item.emotion_question)
    expect(page.locator("#annotate-help")).to_contain_text(item.help_question)
    if item.is_group:
        for name in item.who_choices:
            expect(page.locator("#annotate-who")).to_contain_text(name)
    else:
        expect(page.locator("#annotate-who")).to_be_hidden()
    assert page.locator("#tab-annotate input[type=radio]:checked").count() == 0
    shown = page.content() + "\n".join(
        page.evaluate("[...document.querySelectorAll('textarea, input')].map(e => e.value)")
    )  # the HTML, and the values of text boxes (which the HTML does not hold)
    for word in KEY_WORDS:
        assert word not in shown
    page.wait_for_timeout(300)  # time for an injected handler to fire, were it live
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.evaluate("document.querySelectorAll('img[src=\"x\"]').length") == 0


def answer_on_page(page: Any, item: FormItem, choice: tuple[str, str, str | None]) -> None:
    emotion, help_, who = choice
    if who is not None:
        page.locator("#annotate-who").get_by_label(who, exact=True).check()
    label = next(f"{o.letter}) {o.text}" for o in item.options if o.letter == emotion)
    page.locator("#annotate-emotion").get_by_label(label, exact=True).check()
    page.locator("#annotate-help").get_by_label(help_, exact=True).check()
    page.click("#annotate-submit")


def choice_for(item: FormItem, emotion: str, help_: str) -> tuple[str, str, str | None]:
    return emotion, help_, item.who_choices[-1] if item.is_group else None


def test_a_rater_answers_two_items_blind_and_resumes_after_a_reload(
    page: Any, server: str, study: Path
) -> None:
    form: AnnotationForm = load_form(study)
    assert GOAL_CANARY in (study / "key.json").read_text(encoding="utf-8")
    assert load_key(study).items  # the key is there, next to the form the app serves
    start(page, "Rita")
    expect(page.locator("#annotate-progress")).to_contain_text("Item 1 of 6")
    choices = [choice_for(form.items[0], "B", "no"), choice_for(form.items[1], "C", "yes")]
    for position, (item, choice) in enumerate(zip(form.items, choices, strict=False), start=1):
        shows_item_blind(page, item)
        answer_on_page(page, item, choice)
        expect(page.locator("#annotate-status")).to_contain_text(
            "Answer saved", timeout=STEP_TIMEOUT_MS
        )
        expect(page.locator("#annotate-progress")).to_contain_text(
            f"Item {position + 1} of 6 · you have answered {position}"
        )
    with AnnotationSession.open(study) as session:
        stored = session.store.answers(session.study_id)
    assert [(a.rater_id, a.item_id, a.emotion, a.help, a.who) for a in stored] == [
        ("rita", item.item_id, *choice) for item, choice in zip(form.items, choices, strict=False)
    ]
    page.reload()  # a new browser session: nothing remembered but the rater id
    wait_for_app(page)
    start(page, "ＲＩＴＡ")  # full-width capitals: the same rater
    expect(page.locator("#annotate-progress")).to_contain_text("Item 3 of 6 · you have answered 2")
    shows_item_blind(page, form.items[2])


def test_a_submit_with_a_question_unanswered_saves_nothing(
    page: Any, server: str, study: Path
) -> None:
    start(page, "sam")
    page.locator("#annotate-help").get_by_label("yes", exact=True).check()
    page.click("#annotate-submit")
    expect(page.locator("#annotate-status")).to_contain_text("Not saved", timeout=STEP_TIMEOUT_MS)
    expect(page.locator("#annotate-status")).to_contain_text("the emotion")
    expect(page.locator("#annotate-progress")).to_contain_text("Item 1 of 6")
    with AnnotationSession.open(study) as session:
        assert session.answered("sam") == set()
