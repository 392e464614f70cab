"""``run --batch`` against a loopback fake of OpenAI's Batch API and Anthropic's Message Batches.

Both providers go through the same cases: a complete batch, a partially failed one (per-item
errors), an expired one (one error line, exit 2, items recorded as errors), and a run aborted
after submission that resumes by the recorded batch id without submitting again.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from empathybench.errors import UserError
from empathybench.models.anthropic_model import message_params
from empathybench.models.base import ModelSpec
from empathybench.models.openai_format import request_body
from empathybench.models.registry import parse_model_id
from empathybench.prompts.strategies import get_strategy
from empathybench.records import Suite
from empathybench.run_requests import prepare_request
from empathybench.runner import RunOptions, RunResult, execute_run
from empathybench.runtime.batch import has_open_batches
from empathybench.runtime.run_store import RunStore
from tests.fakes.fake_batch_server import FakeBatchServer

MODELS = {"openai": "openai/gpt-4o-mini", "anthropic": "anthropic/claude-haiku-4-5"}
N = 6


@pytest.fixture(params=sorted(MODELS))
def provider(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-batch")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-batch")
    return str(request.param)


def spec_for(provider: str, server: FakeBatchServer) -> ModelSpec:
    url = server.openai_base_url if provider == "openai" else server.url
    return parse_model_id(MODELS[provider], base_url=url)


def options_for(
    spec: ModelSpec, suite: Suite, run_dir: Path, cache: Path, *, batch: bool = True
) -> RunOptions:
    return RunOptions(
        suite=suite,
        suite_source="small",
        spec=spec,
        run_dir=run_dir,
        limit=N,
        cache_path=cache,
        progress=None,
        batch=batch,
        batch_poll_s=0.02,
    )


def run(options: RunOptions) -> RunResult:
    return asyncio.run(execute_run(options))


def ledger(run_dir: Path) -> list[dict[str, object]]:
    batches: list[dict[str, object]] = json.loads((run_dir / "batches.json").read_text())["batches"]
    return batches


def test_a_complete_batch_answers_every_item_once_with_the_synchronous_request_bodies(
    provider: str, small_suite: Suite, tmp_path: Path
) -> None:
    with FakeBatchServer(polls_before_end=2) as server:
        options = options_for(
            spec_for(provider, server), small_suite, tmp_path / "r", tmp_path / "c"
        )
        result = run(options)
    assert server.submissions == 1
    assert result.manifest.status == "complete"
    responses = RunStore(tmp_path / "r").read_responses()
    assert len(responses) == N and all(r.ok and not r.cached for r in responses)
    assert all(r.text and r.text.startswith("EMOTION: A") for r in responses)
    assert result.manifest.totals.input_tokens == 11 * N
    assert [b["collected"] for b in ledger(tmp_path / "r")] == [True]
    # what went into the batch is byte for byte what a synchronous call sends
    strategy = get_strategy("plain")
    build = request_body if provider == "openai" else message_params
    expected = [
        build(options.spec, prepare_request(options, strategy, item, 0, "x", "free")[0])
        for item in small_suite.items[:N]
    ]
    assert server.submitted == json.loads(json.dumps(expected))


def test_batch_answers_fill_the_cache_a_synchronous_run_then_reads(
    provider: str, small_suite: Suite, tmp_path: Path
) -> None:
    with FakeBatchServer() as server:
        spec = spec_for(provider, server)
        run(options_for(spec, small_suite, tmp_path / "b", tmp_path / "c"))
        assert server.sync_calls == 0
        result = run(options_for(spec, small_suite, tmp_path / "s", tmp_path / "c", batch=False))
        assert server.sync_calls == 0
        assert server.submissions == 1
    assert result.manifest.totals.cached == N
    # and with another cache the same synchronous run does call: the fake answers it
    with FakeBatchServer() as server:
        spec = spec_for(provider, server)
        run(options_for(spec, small_suite, tmp_path / "t", tmp_path / "d", batch=False))
        assert server.sync_calls == N


def test_a_partially_failed_batch_records_per_item_errors_and_a_resume_resubmits_only_them(
    provider: str, small_suite: Suite, tmp_path: Path
) -> None:
    with FakeBatchServer(fail=lambda index: index % 3 == 1) as server:
        options = options_for(
            spec_for(provider, server), small_suite, tmp_path / "r", tmp_path / "c"
        )
        first = run(options)
        assert first.manifest.status == "incomplete"
        failed = [r for r in RunStore(tmp_path / "r").read_responses() if not r.ok]
        assert len(failed) == 2
        assert {r.error.kind for r in failed if r.error} == {"server"}
        server.fail = lambda index: False
        second = run(options)
    assert server.submissions == 2
    assert len(server.submitted) == N + 2
    assert second.manifest.status == "complete"
    assert len(ledger(tmp_path / "r")) == 2


def test_an_expired_batch_is_one_clear_error_and_its_items_are_recorded_as_errors(
    provider: str, small_suite: Suite, tmp_path: Path
) -> None:
    with FakeBatchServer(expire=True) as server:
        options = options_for(
            spec_for(provider, server), small_suite, tmp_path / "r", tmp_path / "c"
        )
        with pytest.raises(UserError, match="expired with no answer"):
            run(options)
    responses = RunStore(tmp_path / "r").read_responses()
    assert len(responses) == N
    assert {r.error.kind for r in responses if r.error} == {"batch_expired"}
    assert RunStore(tmp_path / "r").read_manifest().status == "incomplete"


def test_a_run_aborted_after_submission_resumes_by_its_batch_id_without_resubmitting(
    provider: str, small_suite: Suite, tmp_path: Path
) -> None:
    with FakeBatchServer(hold=True) as server:
        options = options_for(
            spec_for(provider, server), small_suite, tmp_path / "r", tmp_path / "c"
        )

        async def aborted() -> None:
            await asyncio.wait_for(execute_run(options), timeout=1.0)

        with pytest.raises(TimeoutError):
            asyncio.run(aborted())
        recorded = ledger(tmp_path / "r")
        assert len(recorded) == 1 and recorded[0]["collected"] is False
        assert RunStore(tmp_path / "r").read_responses() == []
        server.release()
        result = run(options)
    assert server.submissions == 1
    assert result.manifest.status == "complete"
    assert len(RunStore(tmp_path / "r").read_responses()) == N
    assert [b["id"] for b in ledger(tmp_path / "r")] == [recorded[0]["id"]]


def test_more_requests_than_one_batch_holds_are_split_and_each_batch_is_recorded(
    provider: str, small_suite: Suite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from empathybench.models.batch_anthropic import AnthropicBatchAPI
    from empathybench.models.batch_openai import OpenAIBatchAPI

    api = OpenAIBatchAPI if provider == "openai" else AnthropicBatchAPI
    monkeypatch.setattr(api, "max_requests", 4)
    with FakeBatchServer() as server:
        options = options_for(
            spec_for(provider, server), small_suite, tmp_path / "r", tmp_path / "c"
        )
        result = run(options)
    assert server.submissions == 2 and len(server.submitted) == N
    assert result.manifest.status == "complete"
    recorded = ledger(tmp_path / "r")
    assert [len(b["entries"]) for b in recorded] == [4, N - 4]  # type: ignore[arg-type]
    assert all(b["collected"] for b in recorded)


def test_transient_poll_failures_are_ridden_out_but_a_lasting_one_stops_the_run_resumably(
    provider: str, small_suite: Suite, tmp_path: Path
) -> None:
    from empathybench.runtime.batch import POLL_FAILURES

    with FakeBatchServer() as server:
        options = options_for(
            spec_for(provider, server), small_suite, tmp_path / "r", tmp_path / "c"
        )
        server.poll_errors = POLL_FAILURES - 1
        assert run(options).manifest.status == "complete"
        options = options_for(
            spec_for(provider, server), small_suite, tmp_path / "s", tmp_path / "d"
        )
        server.poll_errors = POLL_FAILURES
        with pytest.raises(UserError, match="HTTP 503"):
            run(options)
        assert [b["collected"] for b in ledger(tmp_path / "s")] == [False]
        assert run(options).manifest.status == "complete"
    assert server.submissions == 2


def test_an_open_batch_whose_answers_were_already_recorded_is_closed_not_fetched_again(
    provider: str, small_suite: Suite, tmp_path: Path
) -> None:
    with FakeBatchServer() as server:
        options = options_for(
            spec_for(provider, server), small_suite, tmp_path / "r", tmp_path / "c"
        )
        run(options)
        path = tmp_path / "r" / "batches.json"
        data = json.loads(path.read_text())
        data["batches"][0]["collected"] = False  # as if killed between recording and marking
        path.write_text(json.dumps(data))
        assert has_open_batches(tmp_path / "r")
        again = run(options)
    assert server.submissions == 1 and again.skipped == N
    assert not has_open_batches(tmp_path / "r")


def test_a_refused_submission_is_one_clear_error_and_records_nothing(
    provider: str, small_suite: Suite, tmp_path: Path
) -> None:
    with FakeBatchServer() as server:
        server.refuse_with = 401
        options = options_for(
            spec_for(provider, server), small_suite, tmp_path / "r", tmp_path / "c"
        )
        with pytest.raises(UserError, match="HTTP 401: invalid x-api-key"):
            run(options)
    assert server.submissions == 0
    assert not (tmp_path / "r" / "batches.json").exists()
    assert RunStore(tmp_path / "r").read_responses() == []
