"""An Inspect model as an empathybench ``ModelAPI``, so our LLM judge runs unchanged on it.

The scorer hands the ``grader`` role's model to ``llm_judge.judge_response`` through this
adapter: same prompt, validation, re-asks and no-reply rule as ``empathybench judge``.
Inspect retries transport errors itself, so a failure that reaches us is final (``client``,
never retried again): the judge records the dimensions as unscored with the reason.
"""

from __future__ import annotations

from inspect_ai.model import GenerateConfig, Model, ResponseSchema
from inspect_ai.util import JSONSchema

from empathybench.inspect_eval.dataset import to_inspect_messages
from empathybench.models.base import ModelCallError, ModelOutput, ModelRequest, ModelSpec


def spec_of(model_name: str) -> ModelSpec:
    """An Inspect model name (``provider/name``, e.g. ``openai/gpt-4o``) as a ModelSpec, for
    the self-judge guard: the family is read from the name, as for our own model ids."""
    provider, _, name = model_name.partition("/")
    return ModelSpec(provider=provider, name=name or provider)


class InspectJudgeModel:
    """``ModelAPI`` over an Inspect ``Model`` (the judge side only: no guided answers)."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.spec = spec_of(str(model))

    async def generate(self, request: ModelRequest) -> ModelOutput:
        config = GenerateConfig(
            temperature=request.params.temperature,
            max_tokens=request.params.max_tokens,
            top_p=request.params.top_p,
            seed=request.params.seed,
            response_schema=(
                ResponseSchema(
                    name="judgement", json_schema=JSONSchema.model_validate(request.json_schema)
                )
                if request.json_schema is not None
                else None
            ),
        )
        try:
            output = await self.model.generate(to_inspect_messages(request.messages), config=config)
        except Exception as error:  # Inspect has already retried what can be retried
            raise ModelCallError("client", f"{type(error).__name__}: {error}") from error
        if output.error:
            raise ModelCallError("client", output.error)
        usage = output.usage
        return ModelOutput(
            text=output.completion,
            stop_reason="length" if output.stop_reason == "max_tokens" else "stop",
            input_tokens=usage.input_tokens if usage else None,
            output_tokens=usage.output_tokens if usage else None,
            provider_model=output.model or None,
        )

    async def aclose(self) -> None:
        """Inspect owns the model's connections."""
