"""Read pooled activations of many layers in one forward pass, with plain forward hooks.

A prompt and its completion are tokenised apart and joined as ids, so the completion's tokens
are known exactly. Pooling covers completion tokens only (a masked mean, or the last one), so a
BOS token, the chat template and the prompt never enter the average; it is done in float32
whatever the model's dtype. Position ids follow the attention mask, so left and right padding
give the same activations. Hooks are removed when reading ends, even on an exception, and a
forward pass stops after the last layer it needs unless log-likelihoods are wanted.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from empathybench.errors import ParameterError, UserError
from empathybench.probes.layers import decoder_layers

Pooling = Literal["mean", "last"]
PromptFormat = Literal["auto", "chat", "plain"]
Matrix = np.ndarray[Any, np.dtype[np.float32]]


@dataclass(frozen=True)
class Example:
    prompt_ids: tuple[int, ...]
    completion_ids: tuple[int, ...]

    @property
    def length(self) -> int:
        return len(self.prompt_ids) + len(self.completion_ids)


def resolve_format(tokenizer: Any, prompt_format: PromptFormat) -> Literal["chat", "plain"]:
    """``auto`` is the chat template when the tokenizer has one, else plain text."""
    has_template = bool(getattr(tokenizer, "chat_template", None))
    if prompt_format == "chat" and not has_template:
        raise ParameterError(
            "prompt_format=chat: this tokenizer has no chat template", parameters=["prompt_format"]
        )
    if prompt_format == "auto":
        return "chat" if has_template else "plain"
    return prompt_format


def encode_prompt(
    tokenizer: Any, prompt: str, prompt_format: Literal["chat", "plain"]
) -> list[int]:
    if prompt_format == "chat":
        text = tokenizer.apply_chat_template(
            [{"role": "user", "content": prompt}], add_generation_prompt=True, tokenize=False
        )
        return list(tokenizer(text, add_special_tokens=False).input_ids)
    return list(tokenizer(prompt + "\n", add_special_tokens=True).input_ids)


def encode_examples(
    tokenizer: Any, items: Sequence[tuple[str, str]], prompt_format: PromptFormat = "auto"
) -> list[Example]:
    """``(prompt, completion)`` pairs as token ids (the completion has no special tokens)."""
    resolved = resolve_format(tokenizer, prompt_format)
    prompts: dict[str, tuple[int, ...]] = {}
    examples = []
    for prompt, completion in items:
        if prompt not in prompts:
            prompts[prompt] = tuple(encode_prompt(tokenizer, prompt, resolved))
        completion_ids = tuple(tokenizer(completion, add_special_tokens=False).input_ids)
        examples.append(Example(prompts[prompt], completion_ids))
    return examples


@dataclass
class Batch:
    input_ids: Any
    attention_mask: Any
    position_ids: Any
    completion_mask: Any


def make_batch(examples: Sequence[Example], pad_id: int, padding_side: str = "right") -> Batch:
    import torch

    width = max(e.length for e in examples)
    ids = torch.full((len(examples), width), pad_id, dtype=torch.long)
    attention = torch.zeros((len(examples), width), dtype=torch.long)
    completion = torch.zeros((len(examples), width), dtype=torch.bool)
    for row, example in enumerate(examples):
        tokens = [*example.prompt_ids, *example.completion_ids]
        start = 0 if padding_side == "right" else width - len(tokens)
        ids[row, start : start + len(tokens)] = torch.tensor(tokens, dtype=torch.long)
        attention[row, start : start + len(tokens)] = 1
        completion[row, start + len(example.prompt_ids) : start + len(tokens)] = True
    positions = (attention.cumsum(-1) - 1).clamp(min=0)
    return Batch(ids, attention, positions, completion)


@contextlib.contextmanager
def removing_hooks() -> Iterator[list[Any]]:
    """Collect hook handles; every one is removed on exit, also after an exception."""
    handles: list[Any] = []
    try:
        yield handles
    finally:
        for handle in handles:
            handle.remove()


def block_output(output: Any) -> Any:
    """The hidden-state tensor of a decoder block's output (a tensor or a tuple)."""
    return output[0] if isinstance(output, tuple) else output


def pool(hidden: Any, mask: Any, pooling: Pooling) -> Any:
    """Masked mean or last masked position of ``hidden`` (B, T, d) in float32; NaN if no token."""
    import torch

    hidden32 = hidden.float()
    weights = mask.to(torch.float32)
    counts = weights.sum(dim=1, keepdim=True)
    if pooling == "mean":
        pooled = (hidden32 * weights.unsqueeze(-1)).sum(dim=1) / counts.clamp(min=1.0)
    else:
        width = mask.shape[1]
        last = width - 1 - torch.flip(mask.to(torch.long), dims=[1]).argmax(dim=1)
        pooled = hidden32[torch.arange(hidden.shape[0]), last]
    return torch.where(counts > 0, pooled, torch.full_like(pooled, float("nan")))


class _StopForward(Exception):
    """Raised by the last hook needed, to skip the rest of the network."""


@dataclass
class Readout:
    activations: Matrix
    """(examples, layers, hidden) float32, pooled over completion tokens."""
    nll: Matrix | None = None
    """Mean negative log-likelihood per completion token (NaN for an empty completion)."""


def read_examples(
    model: Any,
    examples: Sequence[Example],
    layers: Sequence[int],
    *,
    pad_id: int,
    pooling: Pooling = "mean",
    batch_size: int = 16,
    layers_path: str | None = None,
    padding_side: str = "right",
    with_nll: bool = False,
) -> Readout:
    """Pooled block outputs at ``layers`` for every example, one forward pass per batch."""
    import torch

    if not examples:
        raise UserError("nothing to read: no examples")
    blocks = decoder_layers(model, layers_path)
    order = sorted(range(len(examples)), key=lambda i: examples[i].length)  # less padding
    hidden_size = int(model.config.hidden_size)
    activations = torch.zeros((len(examples), len(layers), hidden_size), dtype=torch.float32)
    nll = torch.full((len(examples),), float("nan")) if with_nll else None
    state: dict[str, Any] = {}
    stop_at = None if with_nll else max(layers)

    def reader(slot: int, layer: int) -> Any:
        def hook(_module: Any, _inputs: Any, output: Any) -> None:
            rows, mask = state["rows"], state["mask"]
            activations[rows, slot] = pool(block_output(output), mask, pooling)
            if layer == stop_at:
                raise _StopForward

        return hook

    base = model.base_model
    with torch.inference_mode(), removing_hooks() as handles:
        for slot, layer in enumerate(layers):
            handles.append(blocks[layer].register_forward_hook(reader(slot, layer)))
        for start in range(0, len(order), batch_size):
            rows = order[start : start + batch_size]
            batch = make_batch([examples[i] for i in rows], pad_id, padding_side)
            state["rows"], state["mask"] = torch.tensor(rows), batch.completion_mask
            inputs = {
                "input_ids": batch.input_ids,
                "attention_mask": batch.attention_mask,
                "position_ids": batch.position_ids,
                "use_cache": False,
            }
            try:
                output = base(**inputs)
            except _StopForward:
                continue
            if nll is not None:
                nll[state["rows"]] = _completion_nll(model, output.last_hidden_state, batch)
    return Readout(
        activations=activations.numpy(),
        nll=None if nll is None else nll.numpy().astype(np.float32),
    )


def _completion_nll(model: Any, hidden: Any, batch: Batch) -> Any:
    """Mean NLL of each row's completion tokens, computing logits only where needed."""
    import torch

    targets = batch.completion_mask[:, 1:]  # position t predicts token t + 1
    predicting = hidden[:, :-1][targets]
    logits = model.get_output_embeddings()(predicting).float()
    token_nll = -torch.log_softmax(logits, dim=-1).gather(
        1, batch.input_ids[:, 1:][targets].unsqueeze(1)
    )[:, 0]
    row_of_token = torch.arange(hidden.shape[0]).unsqueeze(1).expand_as(targets)[targets]
    totals = torch.zeros(hidden.shape[0]).index_add_(0, row_of_token, token_nll)
    counts = targets.sum(dim=1)
    return torch.where(counts > 0, totals / counts.clamp(min=1), torch.nan)


def read_activations(
    model: Any,
    tokenizer: Any,
    items: Sequence[tuple[str, str]],
    layers: Sequence[int],
    *,
    pooling: Pooling = "mean",
    prompt_format: PromptFormat = "auto",
    batch_size: int = 16,
    layers_path: str | None = None,
) -> Matrix:
    """Pooled activations (items, layers, hidden) of ``(prompt, completion)`` texts."""
    examples = encode_examples(tokenizer, items, prompt_format)
    empty = [i for i, e in enumerate(examples) if not e.completion_ids]
    if empty:
        raise UserError(f"completion {empty[0]} is empty: nothing to pool over")
    readout = read_examples(
        model,
        examples,
        layers,
        pad_id=int(tokenizer.pad_token_id),
        pooling=pooling,
        batch_size=batch_size,
        layers_path=layers_path,
    )
    return readout.activations
