"""Per-provider defaults shared by every stage that runs a model (benchmark and therapy).

One place for what a run uses when the caller leaves a setting out: the model, the reply
length and how many requests are in flight (for the local model: the batch size).
"""

from __future__ import annotations

from empathybench.models.base import ModelSpec
from empathybench.records import RunTrack

DEFAULT_MODEL = "local/smollm2"
"""The bundled SmolLM2-135M-Instruct (the local extra): runs with no key and no network."""

DEFAULT_MAX_TOKENS = 400
PROVIDER_MAX_TOKENS = {"local": 160}
"""A short reply keeps the bundled 135M model's run within minutes on two CPU cores."""

DEFAULT_CONNECTIONS = 8
PROVIDER_CONNECTIONS: dict[RunTrack, dict[str, int]] = {
    "scenarios": {"local": 100, "mock": 16},  # local: one batch for a 100-item standard suite
    "therapy": {"local": 64, "mock": 16},  # therapy answers are four times as long
}


def default_max_tokens(provider: str) -> int:
    """Reply length for a benchmark run on ``provider`` when none is given."""
    return PROVIDER_MAX_TOKENS.get(provider, DEFAULT_MAX_TOKENS)


def default_connections(spec: ModelSpec, track: RunTrack = "scenarios") -> int:
    """Requests in flight (local: the batch size) when none is given: the model's
    ``batch_size`` option if set, else the provider's default for ``track``."""
    per_provider = PROVIDER_CONNECTIONS[track].get(spec.provider, DEFAULT_CONNECTIONS)
    return int(spec.options.get("batch_size", per_provider))
