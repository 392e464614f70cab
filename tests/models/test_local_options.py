"""Local model options checked when the spec is made (no model is loaded here)."""

from __future__ import annotations

import pytest

from empathybench.errors import UserError
from empathybench.models.base import GenerationParams, ModelRequest, ModelSpec
from empathybench.models.registry import parse_model_id
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
