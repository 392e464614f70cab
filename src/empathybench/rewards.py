"""Rewards for reinforcement learning: the benchmark as a training signal.

``empathy_reward`` has the signature TRL's GRPO trainer gives reward functions
(``prompts``, ``completions`` and every dataset column as a keyword list) and returns one
float in [0, 1] per completion: the mean of the item's applicable dimensions, with Emotion
Recognition and Assistance Needed scored exactly from the answer lines and the text
dimensions by the offline judge, in one batch. A completion with no reply to the person
(``judging.no_reply``) gets 0, whatever its answer lines say: skipping the reply must never pay.

``training_prompts`` makes the matching dataset: generated items that never share a prompt
with a bundled standard suite, so a model trained on them is still measured on unseen items.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from empathybench.errors import UserError
from empathybench.judging.answer_parser import help_answer_correct, parse_answer
from empathybench.judging.no_reply import check_reply
from empathybench.judging.rubric import answer_dimensions
from empathybench.records import Scenario

if TYPE_CHECKING:
    from empathybench.judging.offline_judge import OfflineJudge

Completion = str | Sequence[dict[str, Any]]
"""A completion as TRL passes it: text, or conversational messages."""


def completion_text(completion: Completion) -> str:
    """The text of a completion (the assistant messages' content, joined)."""
    if isinstance(completion, str):
        return completion
    parts = [
        str(message.get("content") or "")
        for message in completion
        if isinstance(message, dict) and message.get("role", "assistant") == "assistant"
    ]
    return "\n".join(parts)


@cache
def _judge() -> OfflineJudge:
    from empathybench.judging.offline_judge import load_offline_judge

    return load_offline_judge()


@cache
def _bundled_scenarios() -> dict[str, Scenario]:
    from empathybench.scenarios.suites import bundled_suites, load_suite

    return {s.id: s for name in bundled_suites() for s in load_suite(name).scenarios}


def _scenarios(
    n: int, scenario: Sequence[str] | None, scenario_id: Sequence[str] | None
) -> list[Scenario]:
    if scenario is not None:
        if len(scenario) != n:
            raise UserError(f"scenario has {len(scenario)} entries for {n} completions")
        return [Scenario.model_validate_json(text) for text in scenario]
    if scenario_id is None:
        raise UserError(
            "empathy_reward needs each completion's item: a `scenario` column (JSON, as "
            "training_prompts makes it) or a `scenario_id` of a bundled suite"
        )
    if len(scenario_id) != n:
        raise UserError(f"scenario_id has {len(scenario_id)} entries for {n} completions")
    known = _bundled_scenarios()
    missing = [i for i in scenario_id if i not in known]
    if missing:
        raise UserError(
            f"unknown scenario_id {missing[0]!r}: pass the `scenario` column for generated items"
        )
    return [known[i] for i in scenario_id]


def empathy_reward(
    prompts: Sequence[Any],
    completions: Sequence[Completion],
    scenario_id: Sequence[str] | None = None,
    scenario: Sequence[str] | None = None,
    **kwargs: Any,
) -> list[float]:
    """One reward in [0, 1] per completion, in order (see the module doc)."""
    del prompts, kwargs  # the item says everything the prompt does
    texts = [completion_text(c) for c in completions]
    items = _scenarios(len(texts), scenario, scenario_id)
    checks = [check_reply(text, item) for item, text in zip(items, texts, strict=True)]
    replied = [i for i, check in enumerate(checks) if check.no_reply is None]
    verdicts = (
        _judge().judge([(items[i], texts[i]) for i in replied], run_id="reward") if replied else []
    )
    by_index = dict(zip(replied, verdicts, strict=True))
    rewards = []
    for index, (item, text) in enumerate(zip(items, texts, strict=True)):
        verdict = by_index.get(index)
        if verdict is None:
            rewards.append(0.0)
            continue
        values = [
            score.value
            for score in verdict.scores.values()
            if score.status == "scored" and score.value is not None
        ]
        parsed = parse_answer(text, item.options)
        for dimension in answer_dimensions(item):
            if dimension == "emotion_recognition":
                values.append(float(parsed.letter == item.correct_letter))
            else:
                values.append(float(help_answer_correct(item, parsed)))
        rewards.append(sum(values) / len(values) if values else 0.0)
    return rewards


def training_prompts(
    n: int, seed: int, *, template_version: str | None = None
) -> list[dict[str, Any]]:
    """``n`` generated training items (``prompt`` as chat messages, ``scenario_id``,
    ``scenario`` JSON for ``empathy_reward``), none sharing a prompt with a bundled suite.

    ``datasets.Dataset.from_list(training_prompts(...))`` makes a GRPO training set.
    """
    from empathybench.jsonl import canonical_json
    from empathybench.scenarios.generator import generate, prompt_digest
    from empathybench.scenarios.templates import DEFAULT_TEMPLATE_VERSION

    if n < 1:
        raise UserError(f"n must be at least 1, got {n}")
    excluded = {
        prompt_digest([(m.role, m.content) for m in s.messages])
        for s in _bundled_scenarios().values()
    }
    version = template_version or DEFAULT_TEMPLATE_VERSION
    rows: list[dict[str, Any]] = []
    extra = 0
    while len(rows) < n:
        rows.clear()
        for item in generate(n + extra, seed, template_version=version):
            digest = prompt_digest([(m.role, m.content) for m in item.messages])
            if digest in excluded:
                continue
            rows.append(
                {
                    "prompt": [{"role": m.role, "content": m.content} for m in item.messages],
                    "scenario_id": item.id,
                    "scenario": canonical_json(item),
                }
            )
        extra += max(1, n - len(rows))
    return rows[:n]
