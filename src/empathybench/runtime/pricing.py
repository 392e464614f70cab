"""Token prices supplied by the user (a JSON or YAML file); never looked up online.

Format: ``{"openai/gpt-4o-mini": {"input_per_million": 0.15, "output_per_million": 0.6}}``.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from empathybench.errors import UserError
from empathybench.jsonl import read_json, read_text


class Price(BaseModel):
    model_config = ConfigDict(extra="forbid")
    input_per_million: float = Field(ge=0)
    output_per_million: float = Field(ge=0)

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (
            input_tokens * self.input_per_million + output_tokens * self.output_per_million
        ) / 1e6


def load_prices(path: Path) -> dict[str, Price]:
    if path.suffix == ".json":
        data = read_json(path)
    else:
        try:
            data = yaml.safe_load(read_text(path, "a YAML or JSON prices file"))
        except (yaml.YAMLError, RecursionError) as error:
            raise UserError(f"{path}: cannot parse prices ({error.__class__.__name__})") from None
    if not isinstance(data, dict):
        raise UserError(f"{path}: expected a mapping of model id to prices")
    try:
        return {str(model): Price.model_validate(entry) for model, entry in data.items()}
    except ValidationError as error:
        raise UserError(f"{path}: invalid price entry ({error.errors()[0]['msg']})") from None
