import asyncio
import json
from pathlib import Path

import pytest

from empathybench.errors import UserError
from empathybench.models.base import ModelCallError, ModelOutput, ModelRequest
from empathybench.models.mock import MockModel
from empathybench.models.registry import parse_model_id
from empathybench.records import Suite
from empathybench.runner import RunOptions, RunResult, execute_run
from empathybench.runtime.cache import ResponseCache
from empathybench.runtime.run_store import RunStore


def options(suite: Suite, run_dir: Path, **changes: object) -> RunOptions:
    base = RunOptions(
        suite=suite,
        suite_source="small",
        spec=parse_model_id("mock/echo"),
        run_dir=run_dir,
        max_connections=4,
        max_backoff_s=0.01,
    )
    for key, value in changes.items():
        setattr(base, key, value)
    return base


def run(opts: RunOptions, model: MockModel | None = None) -> RunResult:
    return asyncio.run(execute_run(opts, model))


def test_a_run_answers_every_item_and_records_provenance(
    small_suite: Suite, tmp_path: Path
) -> None:
    model = MockModel(parse_model_id("mock/echo"))
    result = run(options(small_suite, tmp_path / "r"), model)
    assert len(result.responses) == 30
    assert all(r.ok and r.attempts == 1 and not r.cached for r in result.responses.values())
    manifest = result.manifest
    assert manifest.status == "complete"
    assert manifest.suite.sha256 == small_suite.sha256
    assert manifest.totals.completed == 30 and manifest.totals.input_tokens > 0
    assert "pydantic" in manifest.package_versions
    on_disk = RunStore(tmp_path / "r").read_manifest()
    assert on_disk == manifest


def test_resume_only_sends_unfinished_items(small_suite: Suite, tmp_path: Path) -> None:
    first = MockModel(parse_model_id("mock/echo"))
    run(options(small_suite, tmp_path / "r", limit=12), first)
    assert first.total_calls == 12
    second = MockModel(parse_model_id("mock/echo"))
    result = run(options(small_suite, tmp_path / "r"), second)
    assert second.total_calls == 18
    assert result.skipped == 12 and len(result.responses) == 30
    lines = (tmp_path / "r" / "responses.jsonl").read_text().splitlines()
    assert len(lines) == 30


def test_the_cache_answers_a_repeated_run_without_calls(small_suite: Suite, tmp_path: Path) -> None:
    cache = tmp_path / "c.sqlite"
    run(
        options(small_suite, tmp_path / "a", cache_path=cache),
        MockModel(parse_model_id("mock/echo")),
    )
    model = MockModel(parse_model_id("mock/echo"))
    result = run(options(small_suite, tmp_path / "b", cache_path=cache), model)
    assert model.total_calls == 0
    assert all(r.cached and r.attempts == 0 for r in result.responses.values())


def test_errors_are_recorded_not_cached_and_retried_on_resume(
    small_suite: Suite, tmp_path: Path
) -> None:
    def refuse(request: ModelRequest, attempt: int) -> str:
        raise ModelCallError("client", "bad request", status=400)

    cache = tmp_path / "c.sqlite"
    failing = MockModel(parse_model_id("mock/echo"), script=refuse)
    result = run(options(small_suite, tmp_path / "r", cache_path=cache, limit=5), failing)
    assert failing.total_calls == 5  # a 400 is never retried
    assert all(
        r.error and r.error.kind == "client" and r.text is None for r in result.responses.values()
    )
    assert result.manifest.status == "incomplete"
    assert len(ResponseCache(cache)) == 0
    healthy = MockModel(parse_model_id("mock/echo"))
    result = run(options(small_suite, tmp_path / "r", cache_path=cache, limit=5), healthy)
    assert healthy.total_calls == 5
    assert all(r.ok for r in result.responses.values())
    assert result.manifest.status == "complete"


def test_retryable_failures_are_retried_with_retry_after(
    small_suite: Suite, tmp_path: Path
) -> None:
    def flaky(request: ModelRequest, attempt: int) -> ModelOutput | str:
        if attempt == 1:
            raise ModelCallError("rate_limit", "slow down", status=429, retry_after=0.01)
        if attempt == 2:
            raise ModelCallError("server", "oops", status=503)
        return "EMOTION: A\nNEEDS_HELP: yes\nREPLY: ok"

    model = MockModel(parse_model_id("mock/echo"), script=flaky)
    result = run(options(small_suite, tmp_path / "r", limit=6), model)
    assert all(r.ok and r.attempts == 3 for r in result.responses.values())
    assert model.total_calls == 18


def test_attempts_are_bounded(small_suite: Suite, tmp_path: Path) -> None:
    def down(request: ModelRequest, attempt: int) -> str:
        raise ModelCallError("server", "down", status=500)

    model = MockModel(parse_model_id("mock/echo"), script=down)
    result = run(options(small_suite, tmp_path / "r", limit=3, max_attempts=3), model)
    assert model.total_calls == 9
    assert all(
        r.error and r.error.kind == "server" and r.attempts == 3 for r in result.responses.values()
    )


def test_an_adapter_bug_is_recorded_as_an_error(small_suite: Suite, tmp_path: Path) -> None:
    def broken(request: ModelRequest, attempt: int) -> str:
        raise KeyError("surprise")

    result = run(
        options(small_suite, tmp_path / "r", limit=2),
        MockModel(parse_model_id("mock/echo"), script=broken),
    )
    assert all(r.error and r.error.kind == "internal" for r in result.responses.values())


def test_a_directory_holding_another_run_is_refused(small_suite: Suite, tmp_path: Path) -> None:
    run(options(small_suite, tmp_path / "r", limit=2), MockModel(parse_model_id("mock/echo")))
    other = options(small_suite, tmp_path / "r", limit=2, spec=parse_model_id("mock/other"))
    with pytest.raises(UserError, match="holds a different run"):
        run(other, MockModel(parse_model_id("mock/other")))


def test_strategies_change_the_prompt_and_the_cache_key(small_suite: Suite, tmp_path: Path) -> None:
    seen: list[str] = []

    def record(request: ModelRequest, attempt: int) -> str:
        seen.append(request.messages[0].content)
        return "EMOTION: A\nNEEDS_HELP: yes\nREPLY: ok"

    plain = run(
        options(small_suite, tmp_path / "p", limit=1),
        MockModel(parse_model_id("mock/echo"), script=record),
    )
    coe = run(
        options(small_suite, tmp_path / "c", limit=1, strategy="chain-of-empathy"),
        MockModel(parse_model_id("mock/echo"), script=record),
    )
    assert "REASONING:" not in seen[0] and "REASONING:" in seen[1]
    key = next(iter(plain.responses.values())).request_key
    assert key != next(iter(coe.responses.values())).request_key
    assert coe.manifest.strategy_version == "chain-of-empathy-v1"


def test_epochs_give_one_record_per_item_and_epoch(small_suite: Suite, tmp_path: Path) -> None:
    result = run(
        options(small_suite, tmp_path / "r", limit=4, epochs=3),
        MockModel(parse_model_id("mock/echo")),
    )
    assert sorted({epoch for _, epoch in result.responses}) == [0, 1, 2]
    assert len({r.request_key for r in result.responses.values()}) == 12


def test_a_torn_last_line_is_dropped_before_appending(small_suite: Suite, tmp_path: Path) -> None:
    run(options(small_suite, tmp_path / "r", limit=3), MockModel(parse_model_id("mock/echo")))
    path = tmp_path / "r" / "responses.jsonl"
    whole = path.read_text()
    path.write_text(whole + whole.splitlines()[0][:40])  # a write cut off by a crash
    assert len(RunStore(tmp_path / "r").read_responses()) == 3
    run(options(small_suite, tmp_path / "r", limit=5), MockModel(parse_model_id("mock/echo")))
    for line in path.read_text().splitlines():
        json.loads(line)
    assert len(RunStore(tmp_path / "r").latest_responses()) == 5


def test_a_failed_resume_leaves_the_finished_run_as_it_was(
    small_suite: Suite, tmp_path: Path
) -> None:
    """A malformed line in the middle of responses.jsonl stops a resume with a UserError
    before the manifest is rewritten, so the run still reads as complete with its totals;
    a model that cannot be made leaves no manifest at all."""
    run(options(small_suite, tmp_path / "r", limit=3), MockModel(parse_model_id("mock/echo")))
    manifest = tmp_path / "r" / "manifest.json"
    before = manifest.read_bytes()
    path = tmp_path / "r" / "responses.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0], "{broken", *lines[2:]]) + "\n")
    with pytest.raises(UserError, match="not valid JSON"):
        run(options(small_suite, tmp_path / "r", limit=3), MockModel(parse_model_id("mock/echo")))
    assert manifest.read_bytes() == before
    missing = options(small_suite, tmp_path / "new", spec=parse_model_id("local/no-such-dir"))
    with pytest.raises(UserError, match="no local model"):
        run(missing)
    assert not (tmp_path / "new" / "manifest.json").exists()


def test_bad_selection_is_a_user_error(small_suite: Suite, tmp_path: Path) -> None:
    with pytest.raises(UserError):
        run(options(small_suite, tmp_path / "r", limit=0), MockModel(parse_model_id("mock/echo")))
    with pytest.raises(UserError):
        run(options(small_suite, tmp_path / "r", epochs=0), MockModel(parse_model_id("mock/echo")))
