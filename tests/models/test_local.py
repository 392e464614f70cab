"""The in-process local model with the real bundled SmolLM2-135M-Instruct (small outputs).

The dequantised-weights cache goes to a temporary directory, so the first test pays the
cold GGUF load (~20-30 s on 2 cores) and one test reloads from that cache.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="needs the local extra: pip install 'empathybench[local]'")
pytest.importorskip("transformers", reason="needs the local extra")

from empathybench.errors import UserError
from empathybench.models import local
from empathybench.models.base import (
    GenerationParams,
    ModelCallError,
    ModelOutput,
    ModelRequest,
)
from empathybench.models.registry import create_model, parse_model_id
from empathybench.records import ChatMessage

pytestmark = [pytest.mark.slow, pytest.mark.torch]

SYSTEM = "You are a kind, helpful assistant."
PROMPTS = [
    "My cat died yesterday and I can't stop crying.",
    "What is the capital of France?",
    "I got the job! I start on Monday.",
    "Write one sentence about the sea.",
]


@pytest.fixture(scope="module", autouse=True)
def _weights_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Keep the dequantised weights out of the user's cache; unload the model afterwards."""
    path = tmp_path_factory.mktemp("model-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EMPATHYBENCH_MODEL_CACHE", str(path))
        local.unload_all()
        yield path
        local.unload_all()


def request(text: str, max_tokens: int = 12, **params: object) -> ModelRequest:
    return ModelRequest(
        messages=[
            ChatMessage(role="system", content=SYSTEM),
            ChatMessage(role="user", content=text),
        ],
        params=GenerationParams(max_tokens=max_tokens, **params),
    )


def model(**options: str | int | float | bool) -> local.LocalModel:
    created = create_model(parse_model_id("local/smollm2", options=options))
    assert isinstance(created, local.LocalModel)
    return created


def ask(target: local.LocalModel, *requests: ModelRequest) -> list[ModelOutput]:
    async def run() -> list[ModelOutput]:
        return list(await asyncio.gather(*(target.generate(r) for r in requests)))

    return asyncio.run(run())


def test_answers_with_text_and_token_counts() -> None:
    [output] = ask(model(), request(PROMPTS[0], max_tokens=16))
    assert output.text.strip()
    assert output.input_tokens is not None and output.input_tokens > 10
    assert output.output_tokens is not None and 0 < output.output_tokens <= 16
    assert output.provider_model is not None and output.provider_model.endswith(".gguf")
    assert output.stop_reason in ("stop", "length")


def test_answers_without_transformers_deprecation_warnings() -> None:
    """The engine names the key/value cache as the installed transformers does (``cache``
    from 5.24 on, where ``past_key_values`` warns on every call and is removed in 5.40): the
    main job's output carried that warning."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ask(model(), request(PROMPTS[0], max_tokens=4))
    assert not [w for w in caught if issubclass(w.category, FutureWarning | DeprecationWarning)]


def test_greedy_is_deterministic() -> None:
    first = ask(model(), request(PROMPTS[1], max_tokens=16))[0]
    second = ask(model(), request(PROMPTS[1], max_tokens=16))[0]
    assert first == second


def test_stops_at_max_tokens_with_length() -> None:
    [output] = ask(model(), request(PROMPTS[3], max_tokens=4))
    assert output.stop_reason == "length"
    assert output.output_tokens == 4


def test_concurrent_calls_share_a_batch_and_get_their_own_answers() -> None:
    target = model(batch_size=8)
    singles = [ask(target, request(text, max_tokens=16))[0] for text in PROMPTS]
    before = target.engine.batches
    together = ask(target, *(request(text, max_tokens=16) for text in PROMPTS))
    assert target.engine.batches - before < len(PROMPTS)
    assert len({o.text for o in together}) == len(PROMPTS)
    # Left padding and row dropping leave greedy answers of this model unchanged here.
    assert together == singles


def test_batch_size_limits_a_batch() -> None:
    target = model(batch_size=2)
    before = target.engine.batches
    ask(target, *(request(text, max_tokens=2) for text in PROMPTS))
    assert target.engine.batches - before == 2


def test_seeded_sampling_repeats_and_ignores_batching() -> None:
    target = model()
    sampled = request(PROMPTS[2], max_tokens=16, temperature=1.0, top_p=0.95, seed=7)
    alone = ask(target, sampled)[0]
    assert ask(target, sampled)[0] == alone
    with_others = ask(
        target, sampled, request(PROMPTS[0], max_tokens=16, temperature=1.0, top_p=0.95, seed=7)
    )
    assert with_others[0] == alone


def test_spec_system_prompt_replaces_the_scenarios() -> None:
    plain = ask(model(), request(PROMPTS[1], max_tokens=2))[0]
    spec = parse_model_id("local/smollm2", system_prompt="Be brief.")
    replaced = ask(local.LocalModel(spec), request(PROMPTS[1], max_tokens=2))[0]
    assert replaced.input_tokens is not None and plain.input_tokens is not None
    assert replaced.input_tokens < plain.input_tokens


def test_too_long_prompt_is_a_client_error() -> None:
    with pytest.raises(ModelCallError) as error:
        ask(model(), request("word " * 9000, max_tokens=4))
    assert error.value.kind == "client"
    assert not error.value.retryable


def test_reload_from_weights_cache_gives_the_same_answer(_weights_cache: Path) -> None:
    before = ask(model(), request(PROMPTS[0], max_tokens=16))[0]
    assert any(_weights_cache.glob("*/model.safetensors"))
    local.unload_all()
    reloaded = model()
    after = ask(reloaded, request(PROMPTS[0], max_tokens=16))[0]
    assert after == before
    assert reloaded.engine.seconds["load"] > 0


def test_missing_path_is_a_user_error() -> None:
    with pytest.raises(UserError, match="does-not-exist"):
        create_model(parse_model_id("local/does-not-exist"))


def test_gguf_path_and_bad_batch_size(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="batch_size"):
        create_model(parse_model_id("local/smollm2", options={"batch_size": 0}))
    with pytest.raises(UserError, match=r"no local model"):
        create_model(parse_model_id(f"local/{tmp_path}"))  # a directory without config.json
    bundled = local.resolve_source("smollm2")
    assert bundled[1] is not None and (bundled[0] / bundled[1]).is_file()
    assert local.resolve_source(str(bundled[0] / bundled[1])) == bundled


def test_guided_run_end_to_end_on_the_bundled_model(tmp_path: Path) -> None:
    """``empathybench run`` on local/smollm2: the default suite (standard-v6), guided by
    default, every answer in format; a group item also names a person (or nobody)."""
    import json

    from empathybench.judging.answer_parser import parse_answer
    from empathybench.scenarios.suites import DEFAULT_SUITE, load_suite
    from tests.fakes.cli_process import run_cli

    # The first nine items of the default suite (a group item is also run on its own below).
    result = run_cli(
        "run", "--limit", "9", "--no-progress", "--no-judge", "--run-dir", "r", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["answer_mode"] == "guided" and manifest["status"] == "complete"
    assert DEFAULT_SUITE == "standard-v6"
    scenarios = {s.id: s for s in load_suite(DEFAULT_SUITE).scenarios}
    lines = (tmp_path / "r" / "responses.jsonl").read_text().splitlines()
    assert len(lines) == 9
    # The suite's first group item, run from a suite file of its own.
    from empathybench.scenarios.suites import bundled_suites, suites_dir

    shipped = (suites_dir() / bundled_suites()[DEFAULT_SUITE].file).read_text().splitlines()
    group_line = next(line for line in shipped if json.loads(line)["kind"] == "group")
    (tmp_path / "group.jsonl").write_text(group_line + "\n")
    result = run_cli(
        "run",
        "--suite",
        "group.jsonl",
        "--no-progress",
        "--no-judge",
        "--run-dir",
        "g",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    lines += (tmp_path / "g" / "responses.jsonl").read_text().splitlines()
    groups = 0
    for line in lines:
        response = json.loads(line)
        scenario = scenarios[response["scenario_id"]]
        text = response["text"]
        parsed = parse_answer(text, scenario.options)
        assert parsed.problems == [], text
        assert parsed.letter is not None and parsed.needs_help is not None, text
        assert parsed.reply is not None and len(parsed.reply.split()) >= 2
        assert text.startswith("EMOTION: "), text
        if scenario.kind == "group":  # v2 group items ask who needs help, after NEEDS_HELP
            groups += 1
            names = {person.name for person in scenario.participants} | {"nobody"}
            assert parsed.person in names, text
    assert groups >= 1


def test_dtype_option_picks_the_engine_and_bfloat16_answers() -> None:
    """``dtype=bfloat16`` loads its own engine in bfloat16 (float32, the default, is not
    touched) and answers; greedy bfloat16 answers repeat in the same batch."""
    import torch

    default, half = model(), model(dtype="bfloat16")
    assert model(dtype="float32").engine is default.engine
    assert half.engine is not default.engine
    first = ask(half, *(request(p) for p in PROMPTS))
    assert half.engine.model.dtype == torch.bfloat16
    buffers = dict(half.engine.model.named_buffers())  # rotary frequencies stay float32
    assert buffers and all(buffer.dtype == torch.float32 for buffer in buffers.values())
    assert all(output.text and output.output_tokens >= 1 for output in first)
    assert [o.text for o in ask(half, *(request(p) for p in PROMPTS))] == [o.text for o in first]
    ask(default, request(PROMPTS[0]))
    assert default.engine.model.dtype == torch.float32
