"""Attention for the local engine: transformers' SDPA, minus the copied key/value heads.

For a forward of several query positions with a mask (prompt prefill, answer fields),
transformers repeats each key/value head for its query heads (``repeat_kv``) before calling
``scaled_dot_product_attention``: a copy of the whole KV cache, three times over for
SmolLM2, in every layer of every such forward. ``enable_gqa=True`` lets the kernel read the
shared heads in place; it computes the same values bit for bit (the same kernel, each query
head against its key/value head). Everything else (one query position, no mask, models
without grouped heads) goes to transformers' own SDPA function unchanged.
"""

from __future__ import annotations

from typing import Any

from empathybench.models.local_weights import import_optional

ATTENTION = "empathybench_sdpa"


def shared_head_attention(
    module: Any,
    query: Any,
    key: Any,
    value: Any,
    attention_mask: Any,
    dropout: float = 0.0,
    scaling: float | None = None,
    is_causal: bool | None = None,
    **kwargs: Any,
) -> tuple[Any, None]:
    """transformers' attention-function signature; output ``[batch, positions, heads, dim]``."""
    groups = getattr(module, "num_key_value_groups", 1)
    if query.shape[2] == 1 or groups == 1 or attention_mask is None or kwargs.get("softcap"):
        sdpa = import_optional("transformers.integrations.sdpa_attention")
        return sdpa.sdpa_attention_forward(  # type: ignore[no-any-return]
            module,
            query,
            key,
            value,
            attention_mask,
            dropout=dropout,
            scaling=scaling,
            is_causal=is_causal,
            **kwargs,
        )
    functional = import_optional("torch.nn.functional")
    output = functional.scaled_dot_product_attention(
        query,
        key,
        value,
        attn_mask=attention_mask,
        dropout_p=dropout,
        scale=scaling,
        enable_gqa=True,
    )
    return output.transpose(1, 2).contiguous(), None


def use_shared_head_attention(model: Any) -> None:
    """Switch a loaded SDPA model to ``shared_head_attention`` (others are left as they are)."""
    if getattr(model.config, "_attn_implementation", None) != "sdpa":
        return
    transformers = import_optional("transformers")
    masking = import_optional("transformers.masking_utils")
    transformers.AttentionInterface.register(ATTENTION, shared_head_attention)
    masking.AttentionMaskInterface.register(ATTENTION, masking.sdpa_mask)
    model.set_attn_implementation(ATTENTION)
