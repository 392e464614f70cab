"""Reading pooled activations: padding and batch mates do not matter; hooks never leak."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import torch

from empathybench.errors import UserError
from empathybench.probes.activations import (
    encode_examples,
    encode_prompt,
    read_activations,
    read_examples,
    resolve_format,
)
from empathybench.probes.layers import decoder_layers
from empathybench.probes.loading import LoadedModel
from tests.probes.conftest import CHAT_TEMPLATE

pytestmark = pytest.mark.torch

ITEMS = [
    ("You deliver parcels. A man says his dog ran away.", "I stop and help him look."),
    ("A colleague missed a deadline.", "Please update the tracker by nine tomorrow, thanks."),
    ("Short.", "Ok."),
    ("A much longer prompt about a forum user who feels lonely in a new city.", "That is hard."),
]


def _hooks(loaded: LoadedModel) -> int:
    return sum(len(block._forward_hooks) for block in decoder_layers(loaded.model))


@pytest.mark.parametrize("family", ["llama", "gpt2", "phi3"])
@pytest.mark.parametrize("pooling", ["mean", "last"])
def test_pooling_ignores_padding_side_and_batch_mates(
    family: str, pooling: str, model_factory: Callable[..., LoadedModel]
) -> None:
    loaded = model_factory(family)
    examples = encode_examples(loaded.tokenizer, ITEMS)
    layers = [0, 2]
    alone = np.stack(
        [
            read_examples(loaded.model, [e], layers, pad_id=0, pooling=pooling).activations[0]  # type: ignore[arg-type]
            for e in examples
        ]
    )
    for side in ("left", "right"):
        batched = read_examples(
            loaded.model,
            examples,
            layers,
            pad_id=0,
            pooling=pooling,
            padding_side=side,  # type: ignore[arg-type]
        ).activations
        assert batched == pytest.approx(alone, abs=1e-5)
    assert _hooks(loaded) == 0


def test_pooling_covers_only_the_completion(model_factory: Callable[..., LoadedModel]) -> None:
    loaded = model_factory("llama")
    one = read_activations(loaded.model, loaded.tokenizer, [("Prompt A.", "Same reply.")], [1])
    other = read_activations(loaded.model, loaded.tokenizer, [("Prompt B!", "Same reply.")], [1])
    assert not np.allclose(one, other)  # the prompt is context...
    [example] = encode_examples(loaded.tokenizer, [("Prompt A.", "Same reply.")])
    assert len(example.completion_ids) == len(loaded.tokenizer("Same reply.").input_ids)


def test_hooks_are_removed_after_an_exception(model_factory: Callable[..., LoadedModel]) -> None:
    loaded = model_factory("llama")
    block = decoder_layers(loaded.model)[1]

    def explode(*_args: object) -> None:
        raise RuntimeError("boom")

    handle = block.register_forward_pre_hook(explode)
    try:
        with pytest.raises(RuntimeError, match="boom"):
            read_activations(loaded.model, loaded.tokenizer, ITEMS[:1], [0, 1, 2])
    finally:
        handle.remove()
    assert _hooks(loaded) == 0


def test_reading_stops_early_but_reads_every_layer_asked(
    model_factory: Callable[..., LoadedModel],
) -> None:
    loaded = model_factory("llama")
    early = read_activations(loaded.model, loaded.tokenizer, ITEMS[:2], [0])
    full = read_activations(loaded.model, loaded.tokenizer, ITEMS[:2], [0, 2])
    assert early[:, 0] == pytest.approx(full[:, 0], abs=1e-6)
    assert full.dtype == np.float32 and full.shape == (2, 2, 32)


def test_bf16_model_reads_in_float32(model_factory: Callable[..., LoadedModel]) -> None:
    loaded = model_factory("qwen2")
    loaded.model.to(torch.bfloat16)
    values = read_activations(loaded.model, loaded.tokenizer, ITEMS[:2], [0, 1])
    assert values.dtype == np.float32 and np.isfinite(values).all()


def test_nll_is_the_completion_cross_entropy(model_factory: Callable[..., LoadedModel]) -> None:
    loaded = model_factory("gpt2")
    examples = encode_examples(loaded.tokenizer, ITEMS[:2])
    readout = read_examples(loaded.model, examples, [0], pad_id=0, with_nll=True)
    assert readout.nll is not None
    for row, example in enumerate(examples):
        ids = torch.tensor([[*example.prompt_ids, *example.completion_ids]])
        with torch.no_grad():
            logits = loaded.model(ids).logits[0]
        start = len(example.prompt_ids)
        expected = torch.nn.functional.cross_entropy(logits[start - 1 : -1], ids[0, start:])
        assert readout.nll[row] == pytest.approx(float(expected), abs=1e-4)


def test_prompt_formats(tiny_tokenizer: object) -> None:
    import copy

    plain = encode_prompt(tiny_tokenizer, "Hi", "plain")
    assert resolve_format(tiny_tokenizer, "auto") == "plain"
    with pytest.raises(UserError, match="no chat template"):
        resolve_format(tiny_tokenizer, "chat")
    chatty = copy.deepcopy(tiny_tokenizer)
    chatty.chat_template = CHAT_TEMPLATE  # type: ignore[attr-defined]
    assert resolve_format(chatty, "auto") == "chat"
    assert len(encode_prompt(chatty, "Hi", "chat")) > len(plain)


def test_empty_completion_is_a_user_error(model_factory: Callable[..., LoadedModel]) -> None:
    loaded = model_factory("llama")
    with pytest.raises(UserError, match="empty"):
        read_activations(loaded.model, loaded.tokenizer, [("Prompt.", "")], [0])
