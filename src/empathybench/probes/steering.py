"""Activation steering: add ``alpha * sigma * u`` to one block's output while generating.

``u`` is a probe's unit direction and ``sigma`` the spread of the training projections on it
at that layer, so ``alpha`` is in units of the data's own spread and means the same thing in
every model and layer. The hook adds to positions at or after ``start`` (the first generated
position; prompts are left-padded to a common length), registered ahead of any reading hook
so that readers see the steered tensor. Generation is the local engine's own sampler and
KV-cache loop (``models.kv_decode``): one seeded random generator per row, so a row's text
does not depend on its batch mates, and finished rows leave the batch (their coefficients
with them); outputs are token ids, cut by count (``max_new_tokens``) or at an
end-of-sequence token.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from empathybench.models.kv_decode import KVBatch, decode_loop
from empathybench.models.local_weights import cache_argument
from empathybench.probes.activations import block_output
from empathybench.probes.layers import decoder_layers


@dataclass
class SteeringState:
    scale: Any
    """The coefficient of each row still in the batch (one number: every row)."""
    seen: int = 0
    """Positions the hooked block has processed so far (the offset of the next call)."""
    calls: int = 0

    def select(self, keep: list[int]) -> None:
        """Rows ``keep`` stay in the batch (the others finished)."""
        if len(self.scale) > 1:
            self.scale = self.scale[keep]


@contextlib.contextmanager
def steering(
    model: Any,
    layer: int,
    direction: Sequence[float] | np.ndarray[Any, Any],
    coefficients: float | Sequence[float],
    *,
    start: int = 0,
    layers_path: str | None = None,
) -> Iterator[SteeringState]:
    """Within the block, block ``layer`` adds ``coefficients[row] * direction`` at positions
    ``>= start`` of each forward call sequence (counted across KV-cache calls).

    ``coefficients`` is one number or one per batch row (``alpha * sigma``); the addition is
    done in float32 and cast back to the block's dtype. The hook is always removed on exit.
    """
    import torch

    block = decoder_layers(model, layers_path)[layer]
    vector = torch.as_tensor(np.asarray(direction, dtype=np.float32))
    scale = torch.as_tensor(np.atleast_1d(np.asarray(coefficients, dtype=np.float32)))
    state = SteeringState(scale)

    def hook(_module: Any, _inputs: Any, output: Any) -> Any:
        hidden = block_output(output)
        width = hidden.shape[1]
        positions = torch.arange(state.seen, state.seen + width)
        state.seen += width
        state.calls += 1
        active = (positions >= start).to(torch.float32)
        if not bool(active.any()):
            return None
        delta = state.scale.view(-1, 1, 1) * vector.view(1, 1, -1) * active.view(1, -1, 1)
        steered = (hidden.float() + delta.to(hidden.device)).to(hidden.dtype)
        return (steered, *output[1:]) if isinstance(output, tuple) else steered

    handle = block.register_forward_hook(hook, prepend=True)
    try:
        yield state
    finally:
        handle.remove()


@dataclass(frozen=True)
class SteeringPlan:
    layer: int
    direction: np.ndarray[Any, Any]
    coefficients: Sequence[float]
    """``alpha * sigma`` for each row."""


def generate(
    model: Any,
    prompts: Sequence[Sequence[int]],
    *,
    pad_id: int,
    stop_ids: set[int],
    max_new_tokens: int,
    seeds: Sequence[int],
    temperature: float = 0.7,
    top_p: float = 0.95,
    plan: SteeringPlan | None = None,
    layers_path: str | None = None,
) -> list[list[int]]:
    """New token ids for each prompt (without the stop token), using the KV cache."""
    import torch

    rows = len(prompts)
    width = max(len(p) for p in prompts)
    ids = torch.full((rows, width), pad_id, dtype=torch.long)
    attention = torch.zeros((rows, width), dtype=torch.long)
    for row, prompt in enumerate(prompts):
        ids[row, width - len(prompt) :] = torch.tensor(list(prompt), dtype=torch.long)
        attention[row, width - len(prompt) :] = 1
    positions = (attention.cumsum(-1) - 1).clamp(min=0)
    generators = [torch.Generator().manual_seed(int(seed)) for seed in seeds]
    outputs: list[list[int]] = [[] for _ in range(rows)]

    def accept(row: int, token: int) -> bool:
        if token in stop_ids:
            return False
        outputs[row].append(token)
        return len(outputs[row]) < max_new_tokens

    hooked = (
        steering(
            model,
            plan.layer,
            plan.direction,
            plan.coefficients,
            start=width,
            layers_path=layers_path,
        )
        if plan is not None
        else contextlib.nullcontext()
    )
    from transformers import DynamicCache

    with torch.inference_mode(), hooked as state:
        if max_new_tokens < 1:
            return outputs
        cache = DynamicCache()
        logits = model(
            input_ids=ids,
            attention_mask=attention,
            position_ids=positions,
            **cache_argument(model, cache),
            use_cache=True,
            logits_to_keep=1,
        ).logits[:, -1]
        batch = KVBatch(model, pad_id, cache, attention, logits.float(), positions[:, -1])
        select = state.select if isinstance(state, SteeringState) else None
        decode_loop(batch, temperature, top_p, generators, accept, on_select=select)
    return outputs
