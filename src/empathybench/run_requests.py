"""One answer of a run: the request of an (item, epoch), its cache key, the call through the
shared ``runtime.model_call.generate`` (cache → retries → attempts), and the ``Response``
record it becomes; plus the running totals."""

from __future__ import annotations

import time
from collections.abc import Sequence

from empathybench.models.base import ModelAPI, ModelCallError, ModelOutput, ModelRequest
from empathybench.models.guided import AnswerGuide, AnswerMode
from empathybench.prompts.answer_guide import answer_guide
from empathybench.prompts.strategies import Strategy, apply_strategy
from empathybench.records import CallError, ChatMessage, Response, Scenario, TokenUsage
from empathybench.run_options import RunItem, RunOptions
from empathybench.runtime import provenance
from empathybench.runtime.cache import ResponseCache, cache_key
from empathybench.runtime.model_call import Attempts, generate
from empathybench.runtime.retry import RateLimiter


def item_guide(item: RunItem, messages: Sequence[ChatMessage]) -> AnswerGuide:
    """The answer guide of an item as sent: its format, its scene's people as PERSON values."""
    names = [person.name for person in item.participants] if isinstance(item, Scenario) else []
    return answer_guide(messages, names)


class RunningTotals:
    def __init__(self, items: int) -> None:
        self.items, self.completed, self.errors, self.cached = items, 0, 0, 0
        self.input_tokens = self.output_tokens = 0

    def add(self, response: Response) -> None:
        self.completed += response.ok
        self.errors += not response.ok
        self.cached += response.cached
        self.input_tokens += response.usage.input_tokens
        self.output_tokens += response.usage.output_tokens


def prepare_request(
    options: RunOptions,
    strategy: Strategy,
    item: RunItem,
    epoch: int,
    run_id: str,
    answer_mode: AnswerMode,
) -> tuple[ModelRequest, str, dict[str, object]]:
    """The request of one (item, epoch), its cache key and the fields of its ``Response``."""
    spec = options.spec
    params = spec.params
    if options.epochs > 1 and params.seed is not None:
        params = params.model_copy(update={"seed": params.seed + epoch})
    messages = apply_strategy(strategy, item.messages, spec.system_prompt)
    request = ModelRequest(
        messages=messages,
        params=params,
        guide=item_guide(item, messages) if answer_mode == "guided" else None,
    )
    key = cache_key(
        spec,
        request,
        epoch=epoch,
        versions={"strategy": strategy.version, "prompt": item.prompt_version},
    )
    common: dict[str, object] = {
        "run_id": run_id,
        "scenario_id": item.id,
        "epoch": epoch,
        "model": spec.id,
        "strategy": strategy.name,
        "request_key": key,
    }
    return request, key, common


async def answer_item(
    model: ModelAPI,
    options: RunOptions,
    strategy: Strategy,
    item: RunItem,
    epoch: int,
    run_id: str,
    cache: ResponseCache | None,
    limiter: RateLimiter,
    answer_mode: AnswerMode,
) -> Response:
    request, key, common = prepare_request(options, strategy, item, epoch, run_id, answer_mode)
    attempts = Attempts()
    started = time.perf_counter()
    try:
        generated = await generate(
            model,
            request,
            key=key,
            cache=cache,
            max_attempts=options.max_attempts,
            max_backoff_s=options.max_backoff_s,
            limiter=limiter,
            attempts=attempts,
        )
    except Exception as error:  # an adapter bug must not lose the run either: record it
        if isinstance(error, ModelCallError):
            failure = CallError(kind=error.kind, message=error.message, status=error.status)
        else:
            failure = CallError(kind="internal", message=f"{type(error).__name__}: {error}")
        return Response(
            **common,
            text=None,
            latency_s=round(time.perf_counter() - started, 4),
            attempts=attempts.count,
            cached=False,
            error=failure,
            finished_at=provenance.now_iso(),
        )
    if generated.cached:
        return response_from_output(common, generated.output, latency=0.0, attempts=0, cached=True)
    return response_from_output(
        common,
        generated.output,
        latency=time.perf_counter() - started,
        attempts=attempts.count,
        cached=False,
    )


def response_from_output(
    common: dict[str, object], output: ModelOutput, *, latency: float, attempts: int, cached: bool
) -> Response:
    return Response.model_validate(
        {
            **common,
            "text": output.text,
            "reasoning": output.reasoning,
            "stop_reason": output.stop_reason,
            "refusal": output.refusal,
            "usage": TokenUsage(
                input_tokens=output.input_tokens or 0, output_tokens=output.output_tokens or 0
            ),
            "latency_s": round(latency, 4),
            "attempts": attempts,
            "cached": cached,
            "provider_model": output.provider_model,
            "finished_at": provenance.now_iso(),
        }
    )
