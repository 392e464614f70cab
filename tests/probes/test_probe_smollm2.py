"""The bundled SmolLM2-135M: block hooks, pooling and steering on the real model (slow)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from empathybench.probes.activations import encode_examples, read_examples
from empathybench.probes.layers import decoder_layers
from empathybench.probes.loading import load_probe_model
from empathybench.probes.steering import SteeringPlan, generate

pytestmark = [pytest.mark.slow, pytest.mark.torch]


def test_smollm2_hooks_pooling_and_zero_steering() -> None:
    loaded = load_probe_model("local/smollm2")
    assert len(decoder_layers(loaded.model)) == 30
    [example] = encode_examples(
        loaded.tokenizer, [("My cat died this morning.", "I'm so sorry. Tell me about her.")]
    )
    readout = read_examples(loaded.model, [example], [0, 14, 28], pad_id=2)
    ids = torch.tensor([[*example.prompt_ids, *example.completion_ids]])
    with torch.inference_mode():
        hidden = loaded.model(ids, output_hidden_states=True).hidden_states
    start = len(example.prompt_ids)
    for slot, layer in enumerate([0, 14, 28]):
        expected = hidden[layer + 1][0, start:].float().mean(dim=0).numpy()
        np.testing.assert_allclose(readout.activations[0, slot], expected, rtol=1e-4, atol=1e-4)
    prompt = list(example.prompt_ids)
    kwargs = dict(pad_id=2, stop_ids={2}, max_new_tokens=8, seeds=[0], temperature=0.0)
    plain = generate(loaded.model, [prompt], **kwargs)  # type: ignore[arg-type]
    direction = np.ones(576, dtype=np.float32) / np.sqrt(576)
    zero = generate(loaded.model, [prompt], plan=SteeringPlan(14, direction, [0.0]), **kwargs)  # type: ignore[arg-type]
    assert zero == plain and len(plain[0]) > 0
