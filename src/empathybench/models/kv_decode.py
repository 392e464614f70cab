"""The one sampler and KV-cache decoding loop, shared by the local engine and steering.

``choose_tokens`` picks each row's next token: argmax at temperature 0, else top-p (nucleus)
sampling with the row's own seeded generator, so a row's text does not depend on its batch.
``KVBatch`` holds a batch's KV cache, attention mask, positions and last logits, feeds rows
their tokens (left-padded, pads masked out; optionally rolled back) and drops finished rows.
``decode_loop`` samples, asks the caller whether each row goes on, drops the rows that
ended, and feeds the rest their token, until no row is left. ``in_place_layer`` is the cache
layer the local engine preallocates so a decoding step does not copy the whole cache.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from empathybench.models.local_weights import cache_argument, import_optional


def choose_tokens(
    logits: Any, temperature: float, top_p: float | None, generators: list[Any]
) -> Any:
    """Next token per row: argmax at temperature 0, else top-p sampling with the row's generator."""
    torch = import_optional("torch")
    if temperature <= 0:
        return logits.argmax(dim=-1)
    probs = torch.softmax(logits / temperature, dim=-1)
    if top_p is not None and top_p < 1:
        ordered, order = probs.sort(dim=-1, descending=True)
        ordered[ordered.cumsum(dim=-1) - ordered > top_p] = 0
        probs = torch.zeros_like(probs).scatter_(-1, order, ordered)
    return torch.cat(
        [
            torch.multinomial(row, 1, generator=generator)
            for row, generator in zip(probs, generators, strict=True)
        ]
    )


class KVBatch:
    """The batched KV cache of a model's rows, with left-padded appends and rollback."""

    def __init__(
        self, model: Any, pad: int, cache: Any, mask: Any, logits: Any, positions: Any
    ) -> None:
        self.model, self.pad, self.cache, self.mask = model, pad, cache, mask
        self.logits, self.positions = logits, positions

    def extend(self, tokens: list[list[int]], keep: bool = True) -> Any:
        """Feed each row its tokens (rows may differ in count; pads are masked out).

        Returns the logits ``[rows, n, vocab]`` (``n`` = the longest row; only the last
        position when ``keep``), or None when no row had a token. With ``keep=False`` the
        cache (an ``in_place_layer`` one), mask and positions are rolled back afterwards.
        """
        torch = import_optional("torch")
        width = max((len(row) for row in tokens), default=0)
        if width == 0:
            return None
        rows = len(tokens)
        ids = torch.full((rows, width), self.pad, dtype=torch.long)
        own = torch.zeros((rows, width), dtype=torch.long)
        for row, row_tokens in enumerate(tokens):
            if row_tokens:
                ids[row, width - len(row_tokens) :] = torch.tensor(row_tokens)
                own[row, width - len(row_tokens) :] = 1
        positions = self.positions[:, None] + own.cumsum(-1)
        mask = torch.cat([self.mask, own], dim=1)
        lengths = [] if keep else [layer.length for layer in self.cache.layers]
        logits = self.model(
            input_ids=ids,
            attention_mask=mask,
            position_ids=positions,
            **cache_argument(self.model, self.cache),
            use_cache=True,
            logits_to_keep=1 if keep else 0,  # 0: all positions (a look-ahead scores them all)
        ).logits.float()
        if keep:
            self.mask, self.positions = mask, positions[:, -1]
            fed = own[:, -1].bool()
            if bool(fed.all()):  # every decoding step
                self.logits = logits[:, -1]
            else:
                self.logits = torch.where(fed[:, None], logits[:, -1], self.logits)
        else:
            for layer, length in zip(self.cache.layers, lengths, strict=True):
                layer.truncate(length)
        return logits

    def select(self, keep: list[int]) -> None:
        """Keep only the rows ``keep`` (ascending)."""
        torch = import_optional("torch")
        index = torch.tensor(keep)
        self.cache.batch_select_indices(index)
        self.mask, self.positions = self.mask[index], self.positions[index]
        self.logits = self.logits[index]


def decode_loop(
    batch: KVBatch,
    temperature: float,
    top_p: float | None,
    generators: list[Any],
    accept: Callable[[int, int], bool],
    *,
    control: Callable[[Any, list[int]], Any] | None = None,
    on_select: Callable[[list[int]], None] | None = None,
    stopping: threading.Event | None = None,
) -> None:
    """Sample from ``batch.logits`` until every row has ended.

    ``accept(row, token)`` (``row``: the row's index in the starting batch) records the token
    and says whether the row goes on; ``control(logits, rows)`` may adjust the logits first
    (``rows``: the starting indices of the rows still in the batch); ``on_select(keep)`` hears
    which current rows stay when some ended. ``stopping`` aborts between steps.
    """
    active = list(range(len(generators)))
    while True:
        logits = batch.logits if control is None else control(batch.logits, active)
        chosen = choose_tokens(logits, temperature, top_p, generators).tolist()
        keep = [row for row, token in enumerate(chosen) if accept(active[row], token)]
        if not keep:
            return
        if stopping is not None and stopping.is_set():
            raise RuntimeError("the local model was unloaded (the process is exiting)")
        if len(keep) < len(active):
            batch.select(keep)
            if on_select is not None:
                on_select(keep)
            active, generators = [active[r] for r in keep], [generators[r] for r in keep]
        batch.extend([[chosen[row]] for row in keep])


_LAYER_CLASS: Any = None


def in_place_layer() -> Any:
    """A transformers ``DynamicLayer`` that appends into preallocated room, not by ``torch.cat``.

    ``torch.cat`` copies the whole cache at every step, which was half the decoding time at
    large batches; here a step writes one position and attention reads a view.
    """
    global _LAYER_CLASS
    if _LAYER_CLASS is None:

        class InPlaceLayer(import_optional("transformers.cache_utils").DynamicLayer):  # type: ignore[misc]
            def __init__(self, keys: Any, values: Any, length: int) -> None:
                super().__init__()
                self.lazy_initialization(keys, values)
                self.buffers, self.length = [keys, values], length
                self.keys, self.values = keys[:, :, :length], values[:, :, :length]

            def update(
                self, key_states: Any, value_states: Any, *args: Any, **kwargs: Any
            ) -> tuple[Any, Any]:
                start, end = self.length, self.length + key_states.shape[2]
                self.buffers[0][:, :, start:end] = key_states  # fails loudly when out of room
                self.buffers[1][:, :, start:end] = value_states
                self.length = end
                self.keys, self.values = (b[:, :, :end] for b in self.buffers)
                return self.keys, self.values

            def batch_select_indices(self, indices: Any) -> None:
                """Keep the rows ``indices`` (ascending), moving them up in place: only the
                rows that move are copied, and only their filled positions."""
                rows = indices.tolist()
                first = next((new for new, old in enumerate(rows) if new != old), len(rows))
                if first < len(rows):
                    moved = indices[first:]
                    for buffer in self.buffers:
                        buffer[first : len(rows), :, : self.length] = buffer[
                            moved, :, : self.length
                        ]
                self.buffers = [b[: len(rows)] for b in self.buffers]
                self.keys, self.values = (b[:, :, : self.length] for b in self.buffers)

            def truncate(self, length: int) -> None:
                """Forget the positions from ``length`` on (a rolled-back look-ahead)."""
                self.length = length
                self.keys, self.values = (b[:, :, :length] for b in self.buffers)

        _LAYER_CLASS = InPlaceLayer
    return _LAYER_CLASS
