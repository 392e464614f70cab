"""The Inspect tasks: one per bundled suite, one for any suite file, one for generated suites.

- ``empathybench/<suite>`` for every suite in the bundled index (``standard_v1``, …; the
  name with ``-`` as ``_``), registered from ``suites.json`` when this module is imported,
  so a newly bundled suite gets its task with no code change;
- ``empathybench/suite -T suite=NAME_OR_PATH`` for a bundled suite by name or a suite JSONL;
- ``empathybench/generated -T n=… -T seed=… -T template_version=…`` for a suite generated on
  the fly by ``scenarios.generator.generate``.

Every task takes ``-T strategy=…`` (a prompt strategy, ``plain`` by default) and
``-T allow_self_judge=true`` (let a grader from the tested model's family judge). The
generation defaults (temperature, max tokens) are the runner's; Inspect's ``--temperature``
and ``--max-tokens`` override them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from inspect_ai import Task, task
from inspect_ai.model import GenerateConfig
from inspect_ai.solver import generate

from empathybench.inspect_eval.dataset import scenario_dataset
from empathybench.inspect_eval.scorer import GRADER_ROLE, empathy_scorer, self_judge_guard
from empathybench.judging.judge_prompt import JUDGE_PROMPT_VERSION
from empathybench.judging.rubric import RUBRIC_VERSION
from empathybench.models.base import GenerationParams
from empathybench.prompts.strategies import get_strategy
from empathybench.records import Scenario
from empathybench.scenarios.generator import generate as generate_scenarios
from empathybench.scenarios.suites import bundled_suites, load_suite
from empathybench.scenarios.templates import DEFAULT_TEMPLATE_VERSION


def benchmark_task(
    name: str,
    scenarios: Iterable[Scenario],
    *,
    strategy: str,
    allow_self_judge: bool,
    provenance: dict[str, object],
) -> Task:
    """A task over ``scenarios``: the runner's messages, one generation, our scorer."""
    chosen = get_strategy(strategy)
    defaults = GenerationParams()
    return Task(
        dataset=scenario_dataset(name, scenarios, chosen),
        solver=[self_judge_guard(allow_self_judge), generate()],
        scorer=empathy_scorer(allow_self_judge=allow_self_judge),
        config=GenerateConfig(temperature=defaults.temperature, max_tokens=defaults.max_tokens),
        metadata={
            **provenance,
            "strategy": chosen.name,
            "strategy_version": chosen.version,
            "rubric_version": RUBRIC_VERSION,
            "judge_prompt_version": JUDGE_PROMPT_VERSION,
            "grader_role": GRADER_ROLE,
        },
    )


def suite_file_task(suite: str, *, strategy: str, allow_self_judge: bool) -> Task:
    loaded = load_suite(suite)
    return benchmark_task(
        loaded.name,
        loaded.scenarios,
        strategy=strategy,
        allow_self_judge=allow_self_judge,
        provenance={"suite": loaded.name, "suite_source": suite, "suite_sha256": loaded.sha256},
    )


@task
def suite(suite: str, strategy: str = "plain", allow_self_judge: bool = False) -> Task:
    """A bundled suite by name (``standard-v6`` to ``standard-v1``) or a suite
    JSONL file."""
    return suite_file_task(suite, strategy=strategy, allow_self_judge=allow_self_judge)


@task
def generated(
    n: int = 100,
    seed: int = 0,
    template_version: str = DEFAULT_TEMPLATE_VERSION,
    strategy: str = "plain",
    allow_self_judge: bool = False,
) -> Task:
    """``n`` scenarios generated for ``seed`` from template version ``template_version``."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive whole number, got {n!r}")
    name = f"generated-{template_version}-n{n}-seed{seed}"
    return benchmark_task(
        name,
        list(generate_scenarios(n, seed, template_version=template_version)),
        strategy=strategy,
        allow_self_judge=allow_self_judge,
        provenance={
            "suite": name,
            "generator": {"n": n, "seed": seed, "template_version": template_version},
        },
    )


def task_name(suite_name: str) -> str:
    """The task name of a bundled suite: ``standard-v1`` → ``standard_v1``."""
    return suite_name.replace("-", "_")


def _bundled_task(suite_name: str) -> Callable[..., Task]:
    def bundled(strategy: str = "plain", allow_self_judge: bool = False) -> Task:
        return suite_file_task(suite_name, strategy=strategy, allow_self_judge=allow_self_judge)

    bundled.__name__ = task_name(suite_name)
    bundled.__qualname__ = bundled.__name__
    bundled.__doc__ = f"The bundled suite {suite_name}."
    return task(name=bundled.__name__)(bundled)


BUNDLED_TASKS: dict[str, Callable[..., Task]] = {
    task_name(name): _bundled_task(name) for name in bundled_suites()
}
"""One registered task per bundled suite, by task name."""
