"""Local model options checked when the spec is made (no model is loaded here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from empathybench.errors import UserError
from empathybench.models.base import GenerationParams, ModelRequest, ModelSpec
from empathybench.models.registry import parse_model_id, recorded_spec
from empathybench.records import ChatMessage
from empathybench.runtime.cache import cache_key


def test_unknown_dtype_is_a_user_error_before_any_load() -> None:
    with pytest.raises(UserError, match="dtype must be one of float32, bfloat16, not 'float16'"):
        parse_model_id("local/smollm2", options={"dtype": "float16"})


def test_the_default_dtype_is_not_recorded_so_it_shares_the_default_cache_key() -> None:
    request = ModelRequest(
        messages=[ChatMessage(role="user", content="hello")], params=GenerationParams()
    )
    plain = parse_model_id("local/smollm2")
    explicit = parse_model_id("local/smollm2", options={"dtype": "float32", "threads": 2})
    half = parse_model_id("local/smollm2", options={"dtype": "bfloat16"})
    assert explicit.options == {"threads": 2} and half.options == {"dtype": "bfloat16"}

    def key(spec: ModelSpec) -> str:
        return cache_key(spec, request, epoch=0, versions={})

    assert key(parse_model_id("local/smollm2", options={"dtype": "float32"})) == key(plain)
    assert key(half) != key(plain)


def test_a_hand_built_spec_is_checked_and_recorded_like_a_parsed_one(tmp_path: Path) -> None:
    from empathybench.api.running import run

    spec = ModelSpec(provider="local", name="smollm2", options={"dtype": "float32"})
    assert recorded_spec(spec).options == {}
    assert recorded_spec(spec.model_copy(update={"options": {"dtype": "bfloat16"}})).options == {
        "dtype": "bfloat16"
    }
    bad = spec.model_copy(update={"options": {"dtype": "float16"}})
    with pytest.raises(UserError, match="dtype must be one of"):
        run(model=bad, run_dir=tmp_path / "run", judges=[], cache=False)
    assert not (tmp_path / "run").exists()  # refused before anything was written


def test_a_non_default_dtype_gets_its_own_default_run_directory() -> None:
    from empathybench.api.running import default_run_dir

    plain = default_run_dir("standard-v2", "local/smollm2", "plain", "guided")
    half = default_run_dir("standard-v2", "local/smollm2", "plain", "guided", "bfloat16")
    assert plain == Path("runs/standard-v2__local-smollm2__plain__guided")
    assert half == Path("runs/standard-v2__local-smollm2__plain__guided__bfloat16")
