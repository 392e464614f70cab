"""Model families, so that no model judges its own family's answers.

A judge from the tested model's family is refused unless the user explicitly allows it
(``--allow-self-judge``); the decision is recorded in the run manifest. Families are matched
on the model name (the part after the provider), so routed ids such as
``openrouter/anthropic/claude-…`` or ``ollama/llama3.1`` are recognised too.
"""

from __future__ import annotations

import re

from empathybench.errors import ParameterError
from empathybench.models.base import ModelSpec
from empathybench.records import JudgeDecision

# (family, pattern on the lower-cased model name). First match wins; keep specific first.
FAMILY_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (family, re.compile(pattern))
    for family, pattern in (
        ("openai", r"(^|/)(gpt|chatgpt|o[1-9](-|$)|o[1-9]-mini|davinci|text-davinci|openai)"),
        ("anthropic", r"(^|/)(claude|anthropic)"),
        ("google", r"(^|/)(gemini|gemma|palm|bard|google)"),
        ("qwen", r"(^|/)(qwen|qwq|alibaba)"),
        ("deepseek", r"(^|/)deepseek"),
        ("meta-llama", r"(^|/)(llama|meta-llama|codellama)"),
        ("mistral", r"(^|/)(mistral|mixtral|codestral|ministral|magistral|pixtral|devstral)"),
        ("microsoft-phi", r"(^|/)(phi-?\d|microsoft)"),
        ("xai", r"(^|/)(grok|x-ai|xai)"),
        ("cohere", r"(^|/)(command|cohere|aya)"),
        ("huggingface-smollm", r"(^|/|^local/)(smollm)"),
        ("inception", r"(^|/)(mercury|inception)"),
        ("moonshot", r"(^|/)(kimi|moonshot)"),
        ("zhipu", r"(^|/)(glm|zhipu|chatglm)"),
        ("01-ai", r"(^|/)(yi-|01-ai)"),
        ("amazon", r"(^|/)(nova|titan|amazon)"),
    )
)


def family_of(spec: ModelSpec) -> str | None:
    """The family of a model, or None when it is not in the map."""
    if spec.provider == "mock":
        return f"mock:{spec.name.split('-')[0]}"  # mock/judge-a and mock/judge-b: one family
    name = spec.name.lower()
    if spec.provider == "local" and name in ("smollm2", "smollm"):
        return "huggingface-smollm"
    for family, pattern in FAMILY_PATTERNS:
        if pattern.search(name):
            return family
    if spec.provider == "anthropic":
        return "anthropic"
    if spec.provider == "deepseek":
        return "deepseek"
    return None


def check_judge(
    tested: ModelSpec,
    judge: ModelSpec,
    *,
    allow_self_judge: bool,
    allow_with: str = "allow_self_judge=True",
) -> JudgeDecision:
    """Refuse a judge from the tested model's family unless explicitly allowed.

    ``allow_with`` is how the caller's user allows it: the library parameter by default (the
    CLI shows it as ``--allow-self-judge``), or e.g. an Inspect task argument.
    """
    tested_family, judge_family = family_of(tested), family_of(judge)
    same = tested.id == judge.id or (tested_family is not None and tested_family == judge_family)
    if same and not allow_self_judge:
        raise ParameterError(
            f"judge {judge.id} is from the same family as the tested model {tested.id} "
            f"({judge_family or 'same model'}): a model must not judge its own family; choose "
            f"another judge or pass {allow_with} (the decision is recorded in the manifest)",
            parameters=["allow_self_judge"],
        )
    if same:
        reason = f"same family, allowed explicitly with {allow_with}"
    elif tested_family is None or judge_family is None:
        reason = "family unknown for one side: treated as different (check the family map)"
    else:
        reason = "different families"
    return JudgeDecision(
        judge=judge.id,
        judge_family=judge_family,
        tested_family=tested_family,
        same_family=same,
        allowed=True,
        reason=reason,
    )
