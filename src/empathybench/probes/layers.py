"""Find the decoder blocks of a Hugging Face causal language model.

Layer numbering, used everywhere in this package: probe layer ``i`` is the output of decoder
block ``i`` (0-based), which is ``hidden_states[i + 1]`` of a forward pass with
``output_hidden_states=True``. The probe reads and the steering hook writes this same tensor.
(For the last block, transformers replaces ``hidden_states[-1]`` by the output of the final
norm; the hooks here see the block's own output.)
"""

from __future__ import annotations

import re
from typing import Any

from empathybench.errors import ParameterError, UserError

# model_type -> attribute path of the decoder blocks (a ModuleList) from the top-level model.
FAMILY_LAYER_PATHS: dict[str, str] = {
    "llama": "model.layers",
    "qwen2": "model.layers",
    "qwen3": "model.layers",
    "mistral": "model.layers",
    "mixtral": "model.layers",
    "gemma": "model.layers",
    "gemma2": "model.layers",
    "phi3": "model.layers",
    "gpt2": "transformer.h",
    "gpt_neox": "gpt_neox.layers",
}
FALLBACK_LAYER_PATHS = (
    "model.layers",
    "transformer.h",
    "gpt_neox.layers",
    "model.decoder.layers",
    "transformer.layers",
    "layers",
)


def _attribute(root: Any, path: str) -> Any:
    value = root
    for part in path.split("."):
        value = getattr(value, part, None)
        if value is None:
            return None
    return value


def _is_block_list(value: Any) -> bool:
    torch = __import__("torch")
    return isinstance(value, torch.nn.ModuleList) and len(value) > 0


def decoder_layers(model: Any, layers_path: str | None = None) -> Any:
    """The ``ModuleList`` of decoder blocks; ``layers_path`` (e.g. ``model.layers``) overrides."""
    if layers_path:
        found = _attribute(model, layers_path)
        if not _is_block_list(found):
            raise UserError(f"{layers_path!r} is not a list of decoder blocks in this model")
        return found
    model_type = str(getattr(getattr(model, "config", None), "model_type", ""))
    candidates = [FAMILY_LAYER_PATHS[model_type]] if model_type in FAMILY_LAYER_PATHS else []
    for path in (*candidates, *FALLBACK_LAYER_PATHS):
        found = _attribute(model, path)
        if _is_block_list(found):
            return found
    raise ParameterError(
        f"cannot find the decoder blocks of a {model_type or 'model'!r} model: "
        "pass layers_path (the attribute path of its block list, e.g. model.layers)",
        parameters=["layers_path"],
    )


def layer_count(model: Any, layers_path: str | None = None) -> int:
    return len(decoder_layers(model, layers_path))


def parse_layer_selection(text: str | None, count: int) -> list[int]:
    """``None``/``all`` -> every layer; ``"3,5,8-12"`` -> those (``-1`` is the last layer)."""
    if text is None or text.strip() in ("", "all"):
        return list(range(count))
    chosen: set[int] = set()
    for part in (p.strip() for p in text.split(",")):
        span = re.fullmatch(r"(\d+)-(\d+)", part)
        if span:
            chosen.update(range(int(span[1]), int(span[2]) + 1))
        elif re.fullmatch(r"-?\d+", part):
            chosen.add(int(part) + count if int(part) < 0 else int(part))
        else:
            raise UserError(f"bad layer selection {text!r}: use all, or e.g. 4,8,12-20")
    bad = sorted(i for i in chosen if not 0 <= i < count)
    if bad or not chosen:
        raise UserError(f"layer(s) {bad} out of range: this model has layers 0-{count - 1}")
    return sorted(chosen)
