"""The local engine's attention equals transformers' SDPA attention bit for bit."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch", reason="needs the local extra")
sdpa = pytest.importorskip("transformers.integrations.sdpa_attention")

from empathybench.models.local_attention import shared_head_attention  # noqa: E402

pytestmark = pytest.mark.torch


@pytest.mark.parametrize("positions", [1, 3, 17])
def test_shared_head_attention_equals_transformers_sdpa(positions: int) -> None:
    generator = torch.Generator().manual_seed(positions)
    rows, heads, groups, length, dim = 5, 9, 3, 40, 16
    query = torch.randn(rows, heads, positions, dim, generator=generator)
    room = torch.randn(2, rows, heads // groups, length + 8, dim, generator=generator)
    key, value = room[0, :, :, :length], room[1, :, :, :length]  # views, as in the KV cache
    mask = torch.ones(rows, 1, positions, length, dtype=torch.bool)
    for row in range(rows):
        mask[row, :, :, : 2 * row] = False  # left padding
    module = SimpleNamespace(num_key_value_groups=groups, is_causal=True, training=False)
    ours, _ = shared_head_attention(module, query, key, value, mask, scaling=dim**-0.5)
    theirs, _ = sdpa.sdpa_attention_forward(module, query, key, value, mask, scaling=dim**-0.5)
    assert ours.shape == (rows, positions, heads, dim)
    assert torch.equal(ours, theirs)
