"""The local engine's number format (local option ``dtype``): ``float32`` (default) or ``bfloat16``.

``bfloat16`` runs the whole model in bfloat16, as transformers does with
``dtype=torch.bfloat16``: weights, activations and the KV cache (matrix products accumulate in
float32; the rotary frequencies stay float32; logits are read as float32). SmolLM2 was trained
in bfloat16 and the bundled weights are 4-bit (Q4_1), so rounding them to bfloat16 changes them
far less than the quantisation already did. On 2 cores with AVX512-BF16 it answers the main job
about 1.7× faster.

It is not the default because its answers depend on the batch: rounding every activation to 8
significant bits turns the tiny differences in summation order that left-padding to another
width causes into different tokens, so an item answered in a 20-item run can read differently
from the same item in the 100-item run (7 of 20 replies in the recorded run; the answer fields
in 1 of 20). float32 answers were the same in every batch tried (a test holds it on mixed
items), so a resumed, limited or re-batched run reproduces the full run; this is measured, not
guaranteed: float32 matrix products of 1, 2, 3 or 7 rows can differ in the last bit from the
same rows in a larger product (bfloat16's do not; ``benchmarks/local_floor.py``), too little to
change any answer seen so far. Figures: ``benchmarks/local_dtype.py --runs``.
"""

from __future__ import annotations

from typing import Any

from empathybench.errors import UserError
from empathybench.models.local_weights import import_optional

DTYPES = ("float32", "bfloat16")
DEFAULT_DTYPE = "float32"


def dtype_option(options: dict[str, Any]) -> str:
    """The ``dtype`` option of a local spec (absent: ``DEFAULT_DTYPE``), checked."""
    value = options.get("dtype", DEFAULT_DTYPE)
    if value not in DTYPES:
        raise UserError(f"local option dtype must be one of {', '.join(DTYPES)}, not {value!r}")
    return str(value)


def use_dtype(model: Any, dtype: str) -> None:
    """Put ``model``'s parameters (float32 as loaded) in ``dtype``, in place.

    Buffers stay float32: they hold the rotary position frequencies, which in bfloat16 would
    put positions a few hundred tokens in off by a large fraction of a turn (loading with
    ``from_pretrained(dtype=...)`` keeps them float32 for the same reason).
    """
    if dtype == "float32":
        return
    kept = {name: buffer.clone() for name, buffer in model.named_buffers()}
    model.to(getattr(import_optional("torch"), dtype))
    for name, buffer in model.named_buffers():
        buffer.data = kept[name]
