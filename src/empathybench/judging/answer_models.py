"""A judge's answer as a pydantic model: one class gives the structured-output schema sent
with the request and the validation of the answer read back (``ask_judge`` re-asks with the
validation error).

The schema is the model's JSON schema in the strict shape providers accept for structured
output: no titles or defaults, every property required, no other properties.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from empathybench.judging.llm_judge import JudgeAnswerError

AnswerT = TypeVar("AnswerT", bound=BaseModel)


_NOT_SENT = frozenset({"title", "default"})


def _bare(node: object) -> object:
    """``node`` without titles and defaults (every property is required, so none applies)."""
    if isinstance(node, dict):
        return {key: _bare(value) for key, value in node.items() if key not in _NOT_SENT}
    if isinstance(node, list):
        return [_bare(value) for value in node]
    return node


def answer_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The structured-output schema of ``model``'s answers."""
    schema = _bare(model.model_json_schema())
    assert isinstance(schema, dict)
    properties = schema.get("properties", {})
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _problem(error: ValidationError) -> str:
    """The validation errors in one line a judge can act on ("emotion: …; needs_help: …")."""
    parts = []
    for detail in error.errors(include_url=False):
        where = ".".join(str(part) for part in detail["loc"]) or "answer"
        parts.append(f"{where}: {detail['msg']}")
    return "; ".join(parts)


def answer_validator(model: type[AnswerT]) -> Callable[[dict[str, object]], AnswerT]:
    """``ask_judge``'s ``validate`` for ``model``: the answer, or JudgeAnswerError saying why."""

    def validate(data: dict[str, object]) -> AnswerT:
        try:
            return model.model_validate(data)
        except ValidationError as error:
            raise JudgeAnswerError(_problem(error)) from None

    return validate
