"""Which model a run used, and how it sampled: recorded in every run's manifest."""

from __future__ import annotations

from pydantic import Field

from empathybench.records.base import Record


class GenerationParams(Record):
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    max_tokens: int = Field(default=400, ge=1)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    seed: int | None = None


class ModelSpec(Record):
    """Which model, where, and how to sample from it. Never holds a key, only its variable."""

    provider: str
    name: str
    base_url: str | None = None
    api_key_env: str | None = None
    system_prompt: str | None = None
    """Replaces the scenario's system message when set."""
    params: GenerationParams = GenerationParams()
    options: dict[str, str | int | float | bool] = Field(default_factory=dict)
    """Provider-specific options (e.g. mock behaviour, local batch size)."""

    @property
    def id(self) -> str:
        return f"{self.provider}/{self.name}"
