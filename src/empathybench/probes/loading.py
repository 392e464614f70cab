"""Load a model for probing and steering: ``local/smollm2``, ``local/PATH`` or ``hf:PATH``.

Torch and transformers come from the ``local`` extra and are imported only here, on first use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from empathybench.errors import ParameterError, UserError
from empathybench.models.local_weights import INSTALL_HINT

DType = Literal["float32", "bfloat16", "float16"]


@dataclass
class LoadedModel:
    model_id: str
    model: Any
    tokenizer: Any

    @property
    def model_type(self) -> str:
        return str(getattr(self.model.config, "model_type", "unknown"))


def require_torch() -> Any:
    """The torch module, or a one-line UserError naming the extra to install."""
    try:
        import torch
        import transformers  # noqa: F401
    except ImportError:
        raise UserError(f"probes need torch and transformers: {INSTALL_HINT}") from None
    return torch


def set_threads(threads: int | None) -> None:
    if threads is not None:
        if threads < 1:
            raise ParameterError(
                f"threads must be at least 1, got {threads}", parameters=["threads"]
            )
        require_torch().set_num_threads(threads)


def load_probe_model(model_id: str, dtype: DType = "float32") -> LoadedModel:
    """Resolve a model id and load the model (eval mode) and its tokenizer on CPU."""
    torch = require_torch()
    torch_dtype = getattr(torch, dtype)
    if model_id.startswith("local/"):
        from empathybench.models.local_weights import load_model, resolve_source

        directory, gguf = resolve_source(model_id.removeprefix("local/"))
        try:
            model, tokenizer = load_model(directory, gguf)
        except (OSError, ValueError) as error:
            raise UserError(f"cannot load {model_id}: {error}") from None
        model = model.to(torch_dtype)
    elif model_id.startswith("hf:"):
        import transformers

        path = model_id.removeprefix("hf:")
        if not path:
            raise UserError("hf: needs a model directory (or hub id): hf:PATH")
        try:
            tokenizer = transformers.AutoTokenizer.from_pretrained(path)
            model = transformers.AutoModelForCausalLM.from_pretrained(path, dtype=torch_dtype)
        except (OSError, ValueError) as error:
            first = str(error).strip().splitlines()[0] if str(error).strip() else type(error)
            raise UserError(f"cannot load {model_id}: {first}") from None
    else:
        raise UserError(
            f"unknown probe model {model_id!r}: use local/smollm2, local/PATH or hf:PATH"
        )
    model.eval()
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    return LoadedModel(model_id=model_id, model=model, tokenizer=tokenizer)
