"""Decoder blocks of each family: the hook sees hidden_states[i + 1]; overrides and errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

from empathybench.errors import UserError
from empathybench.probes.activations import block_output, encode_examples, read_examples
from empathybench.probes.layers import decoder_layers, parse_layer_selection
from empathybench.probes.loading import LoadedModel
from tests.probes.conftest import FAMILIES

pytestmark = pytest.mark.torch


@pytest.mark.parametrize("family", FAMILIES)
def test_hook_on_block_i_equals_hidden_states_i_plus_1(
    family: str, model_factory: Callable[..., LoadedModel]
) -> None:
    loaded = model_factory(family)
    blocks = decoder_layers(loaded.model)
    assert len(blocks) == loaded.model.config.num_hidden_layers
    ids = torch.tensor([loaded.tokenizer("The heating is broken again.").input_ids])
    seen: dict[int, Any] = {}
    handles = [
        block.register_forward_hook(
            lambda _m, _i, out, i=i: seen.__setitem__(i, block_output(out).clone())
        )
        for i, block in enumerate(blocks)
    ]
    try:
        with torch.no_grad():
            hidden = loaded.model(ids, output_hidden_states=True).hidden_states
    finally:
        for handle in handles:
            handle.remove()
    assert len(hidden) == len(blocks) + 1
    for i in range(len(blocks) - 1):  # the last one is replaced by the final norm's output
        torch.testing.assert_close(seen[i], hidden[i + 1], rtol=0, atol=0)


@pytest.mark.parametrize("family", ["llama", "gpt2", "gpt_neox"])
def test_masked_mean_is_the_mean_of_completion_positions(
    family: str, model_factory: Callable[..., LoadedModel]
) -> None:
    loaded = model_factory(family)
    [example] = encode_examples(loaded.tokenizer, [("A prompt here.", "And its reply.")])
    readout = read_examples(loaded.model, [example], [0, 1], pad_id=0)
    ids = torch.tensor([[*example.prompt_ids, *example.completion_ids]])
    with torch.no_grad():
        hidden = loaded.model(ids, output_hidden_states=True).hidden_states
    start = len(example.prompt_ids)
    for slot, layer in enumerate([0, 1]):
        expected = hidden[layer + 1][0, start:].mean(dim=0).numpy()
        assert readout.activations[0, slot] == pytest.approx(expected, abs=1e-5)


def test_layers_path_override_and_errors(model_factory: Callable[..., LoadedModel]) -> None:
    loaded = model_factory("llama")
    assert decoder_layers(loaded.model, "model.layers") is loaded.model.model.layers
    with pytest.raises(UserError, match="not a list of decoder blocks"):
        decoder_layers(loaded.model, "model.embed_tokens")
    with pytest.raises(UserError, match="pass layers_path"):
        decoder_layers(torch.nn.Linear(2, 2))


def test_parse_layer_selection() -> None:
    assert parse_layer_selection(None, 4) == [0, 1, 2, 3]
    assert parse_layer_selection("all", 4) == [0, 1, 2, 3]
    assert parse_layer_selection("0,2-3", 5) == [0, 2, 3]
    assert parse_layer_selection("-1", 5) == [4]
    with pytest.raises(UserError, match="out of range"):
        parse_layer_selection("7", 5)
    with pytest.raises(UserError, match="bad layer selection"):
        parse_layer_selection("two", 5)
