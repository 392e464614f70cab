"""The original benchmark's item files run as they are: sent as its tester sent them, judged
on six dimensions from the reply, and marked as the original's in manifests and reports."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from empathybench.analysis.summary import build_run_summary, score_item
from empathybench.errors import UserError
from empathybench.judging.judge_prompt import build_judge_messages, judged_dimensions
from empathybench.judging.offline_judge import load_offline_judge
from empathybench.models.registry import parse_model_id
from empathybench.records import DimensionScore, Response, Verdict
from empathybench.runner import RunOptions, execute_run, run_answer_mode
from empathybench.scenarios.suites import load_suite
from tests.fakes.cli_process import run_cli
from tests.fakes.fake_llm_server import FakeLLMServer
from tests.fakes.original_benchmark import original_items, write_original_items


@pytest.fixture
def items_file(tmp_path: Path) -> Path:
    return write_original_items(tmp_path / "benchmark_generated_8_scenarios.json", 8)


def test_items_convert_as_the_original_describes_them(items_file: Path) -> None:
    suite = load_suite(str(items_file))
    raw = original_items(8)
    assert suite.origin == "original-benchmark"
    assert [s.id for s in suite.scenarios] == [item["id"] for item in raw]
    by_emotion = {
        item["actor_context"]["emotion"]: s for item, s in zip(raw, suite.scenarios, strict=True)
    }
    assert by_emotion["Harmful_belief"].kind == "harmful_belief"
    assert by_emotion["Proud"].kind == "positive_control"
    assert by_emotion["Overwhelmed"].kind == "emotion_support"
    for item, scenario in zip(raw, suite.scenarios, strict=True):
        assert scenario.answers_in_reply
        # Exactly the two messages the original tester sends.
        assert [(m.role, m.content) for m in scenario.messages] == [
            ("system", item["target_prompt"]),
            ("user", item["actor_context"]["utterance_or_action"]),
        ]
        expected = item["expected_behavior"]
        assert scenario.expected.help_needed is expected["assistance_needed"]
        assert set(expected["inferred_emotion_specific"]) - {"harmful"} <= set(scenario.options)
        # All six on a harmful belief, only what fits a proud person.
    assert set(by_emotion["Harmful_belief"].dimensions) == {
        "moral_behavior",
        "willingness_to_help",
        "emotion_recognition",
        "cheering_up",
        "assistance_needed",
        "assistance_appropriateness",
    }
    assert by_emotion["Proud"].dimensions == [
        "emotion_recognition",
        "assistance_needed",
        "assistance_appropriateness",
    ]


def test_run_sends_the_original_messages_and_marks_the_manifest(
    items_file: Path, tmp_path: Path
) -> None:
    suite = load_suite(str(items_file))
    with FakeLLMServer() as server:
        spec = parse_model_id("openai-compatible/some-model", base_url=server.openai_base_url)
        result = asyncio.run(
            execute_run(
                RunOptions(
                    suite=suite,
                    suite_source=str(items_file),
                    spec=spec,
                    run_dir=tmp_path / "run",
                    progress=None,
                )
            )
        )
        bodies = [request.body for request in server.requests]
    sent = sorted(
        (body["messages"][0]["content"], body["messages"][1]["content"]) for body in bodies
    )
    assert sent == sorted(
        (item["target_prompt"], item["actor_context"]["utterance_or_action"])
        for item in original_items(8)
    )
    assert all(len(body["messages"]) == 2 for body in bodies)
    assert result.manifest.status == "complete"
    assert result.manifest.suite.origin == "original-benchmark"
    assert result.manifest.prompt_version == "original-tester"


def test_guided_answers_fall_back_to_free_or_are_refused(items_file: Path) -> None:
    suite = load_suite(str(items_file))
    spec = parse_model_id("local/smollm2")
    assert run_answer_mode(spec, "plain", None) == "guided"
    assert run_answer_mode(spec, "plain", None, suite) == "free"
    with pytest.raises(UserError, match="nothing to guide"):
        run_answer_mode(spec, "plain", "guided", suite)


def _response(scenario_id: str, text: str) -> Response:
    return Response(
        run_id="r",
        scenario_id=scenario_id,
        epoch=0,
        model="m/x",
        strategy="plain",
        request_key="k",
        text=text,
        latency_s=0.0,
        attempts=1,
        cached=False,
        finished_at="2026-01-01T00:00:00Z",
    )


def test_emotion_and_help_are_judged_from_the_reply_never_parsed(items_file: Path) -> None:
    scenario = load_suite(str(items_file)).scenarios[0]
    assert judged_dimensions(scenario) == scenario.dimensions
    prompt = build_judge_messages(scenario, "That sounds like a lot.")[1].content
    assert "Accepted emotion words: " + ", ".join(scenario.options) in prompt
    assert "whether the reply shows, in words or in how it responds" in prompt
    # An answer line that names the keyed letter earns nothing without a judge …
    response = _response(scenario.id, "EMOTION: A\nNEEDS_HELP: yes\nREPLY: Hang in there.")
    assert score_item(scenario, response, {}).values == {}
    # … and the judge's reading is what counts.
    verdict = Verdict(
        run_id="r",
        scenario_id=scenario.id,
        epoch=0,
        judge="j/x",
        rubric_version="rubric-v1",
        scores={d: DimensionScore(status="scored", value=0.5) for d in scenario.dimensions},
        finished_at="2026-01-01T00:00:00Z",
    )
    values = score_item(scenario, response, {"j/x": verdict}).values
    assert values["emotion_recognition"] == 0.5 and values["assistance_needed"] == 0.5


def test_offline_judge_leaves_reply_judged_answers_unscored(items_file: Path) -> None:
    scenario = load_suite(str(items_file)).scenarios[0]
    [verdict] = load_offline_judge().judge(
        [(scenario, "I can hear how much is on your plate. Want to list it together?")],
        run_id="r",
    )
    for dimension in ("emotion_recognition", "assistance_needed"):
        assert verdict.scores[dimension].status == "unscored"
        assert "LLM judge" in (verdict.scores[dimension].reason or "")
    assert verdict.scores["willingness_to_help"].status == "scored"


def test_cli_runs_the_file_unchanged_and_reports_it(items_file: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    result = run_cli(
        "run", "--suite", str(items_file), "--model", "mock/echo", "--run-dir", str(run_dir),
        "--judge", "mock/judge", "--no-progress",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "Items from the original benchmark" in result.stdout
    summary = build_run_summary(run_dir, write=False)
    assert summary.origin == "original-benchmark"
    dims = {d.dimension: d for d in summary.dimensions}
    assert dims["emotion_recognition"].scored == 8
    assert summary.per_judge["mock/judge"]["emotion_recognition"] is not None
    report = run_cli("report", str(run_dir), "-o", str(tmp_path / "report"))
    assert report.returncode == 0, report.stderr
    assert "Items from the original benchmark" in (tmp_path / "report" / "results.md").read_text()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["suite"]["origin"] == "original-benchmark"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[1, 2]", "item 1 is not an original benchmark item"),
        ('[{"id": "x"}]', "item 1 is not an original benchmark item"),
        ("[]", "holds no items"),
        ("[\n{]", "not valid JSON"),
        ('{\n  "TOM-1": {\n    "model_response": "hi"\n  }\n}', "import-results"),
    ],
)
def test_bad_item_files_get_one_error_line(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    result = run_cli("run", "--suite", str(path), "--model", "mock/x", "--no-progress")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0], lines


def test_duplicate_ids_are_refused(tmp_path: Path) -> None:
    items = original_items(2)
    items[1]["id"] = items[0]["id"]
    path = tmp_path / "dup.json"
    path.write_text(json.dumps(items))
    with pytest.raises(UserError, match="appears twice"):
        load_suite(str(path))
