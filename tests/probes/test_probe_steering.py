"""The steering hook adds exactly alpha * sigma * u where it should, and nowhere else."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import torch

from empathybench.probes.activations import encode_examples, read_examples
from empathybench.probes.layers import decoder_layers
from empathybench.probes.loading import LoadedModel
from empathybench.probes.steering import SteeringPlan, generate, steering

pytestmark = pytest.mark.torch


def _unit(size: int, seed: int = 3) -> np.ndarray:
    vector = np.random.default_rng(seed).standard_normal(size)
    return (vector / np.linalg.norm(vector)).astype(np.float32)


def _block_outputs(loaded: LoadedModel, ids: torch.Tensor) -> list[torch.Tensor]:
    seen: list[torch.Tensor] = []
    handles = [
        b.register_forward_hook(lambda _m, _i, out: seen.append(out.detach().clone()))
        for b in decoder_layers(loaded.model)
    ]
    try:
        with torch.no_grad():
            loaded.model(ids)
    finally:
        for handle in handles:
            handle.remove()
    return seen


@pytest.mark.parametrize("family", ["llama", "gpt_neox"])
def test_adds_alpha_sigma_u_after_start_at_the_hooked_layer_only(
    family: str, model_factory: Callable[..., LoadedModel]
) -> None:
    loaded = model_factory(family)
    ids = torch.tensor([loaded.tokenizer("The parcel is here. I can wait a moment.").input_ids])
    u, alpha, sigma, layer, start = _unit(32), 4.0, 2.5, 1, 5
    plain = _block_outputs(loaded, ids)
    with steering(loaded.model, layer, u, alpha * sigma, start=start):
        steered = _block_outputs(loaded, ids)
    torch.testing.assert_close(steered[0], plain[0], rtol=0, atol=0)  # earlier layer untouched
    difference = steered[layer] - plain[layer]
    assert difference[0, :start].abs().max() == 0  # the prompt positions are not steered
    expected = torch.tensor(alpha * sigma * u).expand_as(difference[0, start:])
    torch.testing.assert_close(difference[0, start:], expected, rtol=0, atol=1e-5)
    assert not torch.allclose(steered[layer + 1], plain[layer + 1])  # and it propagates


def test_alpha_zero_reproduces_the_unhooked_model(
    model_factory: Callable[..., LoadedModel],
) -> None:
    loaded = model_factory("llama")
    ids = torch.tensor([loaded.tokenizer("Nobody came to his party.").input_ids])
    with torch.no_grad():
        plain = loaded.model(ids).logits
        with steering(loaded.model, 1, _unit(32), 0.0):
            zero = loaded.model(ids).logits
    torch.testing.assert_close(zero, plain, rtol=0, atol=0)


def test_hook_is_removed_even_after_an_exception(
    model_factory: Callable[..., LoadedModel],
) -> None:
    loaded = model_factory("llama")
    with pytest.raises(ValueError), steering(loaded.model, 2, _unit(32), 1.0):
        raise ValueError("inside")
    assert all(not b._forward_hooks for b in decoder_layers(loaded.model))


def test_kv_cache_generation_matches_full_recomputation_with_steering(
    model_factory: Callable[..., LoadedModel],
) -> None:
    """Greedy tokens from the cached loop equal the argmax of a full forward pass with the
    same hook at the same positions (checks positions, padding and the cache)."""
    loaded = model_factory("llama")
    prompts = [
        loaded.tokenizer(t).input_ids for t in ("A short one.", "A rather longer prompt here.")
    ]
    u, coefficient = _unit(32), 3.0
    stop = {10**6}  # never stop early
    outputs = generate(
        loaded.model, prompts, pad_id=0, stop_ids=stop, max_new_tokens=6, seeds=[0, 1],
        temperature=0.0, plan=SteeringPlan(1, u, [coefficient, coefficient]),
    )  # fmt: skip
    for prompt, output in zip(prompts, outputs, strict=True):
        assert len(output) == 6
        ids = torch.tensor([[*prompt, *output]])
        with torch.no_grad(), steering(loaded.model, 1, u, coefficient, start=len(prompt)):
            logits = loaded.model(ids).logits[0]
        # the first new token comes from the (unsteered) last prompt position
        predicted = logits[len(prompt) - 1 : -1].argmax(dim=-1).tolist()
        assert predicted == output


def test_alpha_zero_generation_equals_unsteered_and_seeds_repeat(
    model_factory: Callable[..., LoadedModel],
) -> None:
    loaded = model_factory("gpt2")
    prompts = [loaded.tokenizer("Say something kind.").input_ids] * 3
    kwargs = dict(pad_id=0, stop_ids={2}, max_new_tokens=8, seeds=[5, 5, 6], temperature=1.0)
    plain = generate(loaded.model, prompts, **kwargs)  # type: ignore[arg-type]
    zero = generate(
        loaded.model,
        prompts,
        plan=SteeringPlan(0, _unit(32), [0.0, 0.0, 0.0]),
        **kwargs,  # type: ignore[arg-type]
    )
    assert zero == plain
    assert plain[0] == plain[1]  # same seed, same text
    assert all(len(o) <= 8 for o in plain)


def test_per_row_alphas_steer_rows_independently(
    model_factory: Callable[..., LoadedModel],
) -> None:
    loaded = model_factory("llama")
    prompt = loaded.tokenizer("Reply to the customer.").input_ids
    kwargs = dict(pad_id=0, stop_ids=set(), max_new_tokens=5, temperature=0.0)
    u = _unit(32)
    mixed = generate(
        loaded.model,
        [prompt, prompt],
        seeds=[0, 0],
        plan=SteeringPlan(2, u, [0.0, 40.0]),
        **kwargs,  # type: ignore[arg-type]
    )
    alone = generate(loaded.model, [prompt], seeds=[0], plan=SteeringPlan(2, u, [40.0]), **kwargs)  # type: ignore[arg-type]
    plain = generate(loaded.model, [prompt], seeds=[0], **kwargs)  # type: ignore[arg-type]
    assert mixed[0] == plain[0] and mixed[1] == alone[0]


def test_bf16_model_steers_without_dtype_errors(
    model_factory: Callable[..., LoadedModel],
) -> None:
    loaded = model_factory("mistral")
    loaded.model.to(torch.bfloat16)
    prompt = loaded.tokenizer("The ferry is full.").input_ids
    [output] = generate(
        loaded.model, [prompt], pad_id=0, stop_ids=set(), max_new_tokens=4, seeds=[0],
        plan=SteeringPlan(1, _unit(32), [5.0]),
    )  # fmt: skip
    assert len(output) == 4
    examples = encode_examples(loaded.tokenizer, [("The ferry is full.", "I will help.")])
    with steering(loaded.model, 1, _unit(32), 5.0):
        readout = read_examples(loaded.model, examples, [1, 2], pad_id=0, with_nll=True)
    assert readout.activations.dtype == np.float32 and np.isfinite(readout.activations).all()


def test_finished_rows_leave_the_batch_and_the_others_keep_their_coefficients(
    model_factory: Callable[..., LoadedModel],
) -> None:
    """Rows that stop early are dropped from the batch; every other row still gets its own
    coefficient, so each batched row equals that row generated alone (cut at the stop)."""
    loaded = model_factory("llama")
    texts = ("Reply to the customer.", "A much longer prompt about the weather today.", "Hi.")
    prompts = [loaded.tokenizer(t).input_ids for t in texts]
    u, coefficients = _unit(32), [0.0, 40.0, -40.0]
    kwargs = dict(pad_id=0, max_new_tokens=6, temperature=0.0)
    alone = [
        generate(
            loaded.model, [p], seeds=[0], stop_ids=set(), plan=SteeringPlan(2, u, [c]), **kwargs
        )[0]  # type: ignore[arg-type]
        for p, c in zip(prompts, coefficients, strict=True)
    ]
    stop = {alone[0][1]}  # the first row ends after one token

    def cut(tokens: list[int]) -> list[int]:
        ends = [i for i, token in enumerate(tokens) if token in stop]
        return tokens[: ends[0]] if ends else tokens

    batched = generate(
        loaded.model, prompts, seeds=[0, 0, 0], stop_ids=stop,
        plan=SteeringPlan(2, u, coefficients), **kwargs,  # type: ignore[arg-type]
    )  # fmt: skip
    assert batched == [cut(tokens) for tokens in alone]
    assert len({len(tokens) for tokens in batched}) > 1  # some row did leave early
