"""empathybench: measure, explain and steer the empathy of large language models.

The Python API (``docs/python-api.md``)::

    import empathybench as eb

    suite = eb.load_suite("standard-v6")
    run = eb.run(suite, model="mock/echo", run_dir="runs/x", judges=[], limit=5)
    summary = eb.summarize(run)

Importing the package loads no command-line, UI or torch code, and the names below load
their modules on first use (PEP 562), so ``import empathybench`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# The ``report`` subpackage is imported before the ``report`` function is bound: importing a
# submodule sets it as an attribute of its package only on its first import, so binding the
# function afterwards keeps ``empathybench.report`` the function for good.
import empathybench.report as _report_package  # noqa: F401
from empathybench.api.summaries import report, summarize
from empathybench.version import __version__  # first: modules below import it

_LAZY: dict[str, str] = {
    "DEFAULT_MODEL": "empathybench.models.defaults",
    "DEFAULT_SUITE": "empathybench.scenarios.suites",
    "DimensionSummary": "empathybench.analysis.summary",
    "EmpathyScores": "empathybench.scorer.empathy_scorer",
    "EvaluatedProbe": "empathybench.api.probes",
    "GenerationParams": "empathybench.models.base",
    "Interval": "empathybench.analysis.summary",
    "JudgeAgreement": "empathybench.api.scorer",
    "JudgeRunResult": "empathybench.judging.run_judges",
    "ModelSpec": "empathybench.models.base",
    "ParameterError": "empathybench.errors",
    "ProbeEvaluations": "empathybench.api.probes",
    "ProbeTraining": "empathybench.api.probes",
    "ProgressCallback": "empathybench.progress",
    "ProgressUpdate": "empathybench.progress",
    "ReportFiles": "empathybench.report.run_report",
    "RobustnessCheck": "empathybench.api.scorer_evaluation",
    "RunLike": "empathybench.api.paths",
    "RunOutcome": "empathybench.api.running",
    "RunSummary": "empathybench.analysis.summary",
    "Scenario": "empathybench.records",
    "ScorerEvaluation": "empathybench.api.scorer_evaluation",
    "ScorerTraining": "empathybench.api.scorer_training",
    "Steering": "empathybench.api.probes",
    "Suite": "empathybench.records",
    "UserError": "empathybench.errors",
    "default_judges": "empathybench.api.judging",
    "evaluate_probes": "empathybench.api.probes",
    "evaluate_scorer": "empathybench.api.scorer_evaluation",
    "generate_suite": "empathybench.api.suites",
    "judge": "empathybench.api.judging",
    "judge_async": "empathybench.api.judging",
    "load_suite": "empathybench.api.suites",
    "model_spec": "empathybench.api.running",
    "rescore_steering": "empathybench.api.probes",
    "resume": "empathybench.api.running",
    "resume_async": "empathybench.api.running",
    "run": "empathybench.api.running",
    "run_async": "empathybench.api.running",
    "score_text": "empathybench.api.scorer",
    "scorer_robustness": "empathybench.api.scorer_evaluation",
    "steer": "empathybench.api.probes",
    "train_probe": "empathybench.api.probes",
    "train_scorer": "empathybench.api.scorer_training",
}

if TYPE_CHECKING:
    from empathybench.analysis.summary import DimensionSummary, Interval, RunSummary
    from empathybench.api.judging import default_judges, judge, judge_async
    from empathybench.api.paths import RunLike
    from empathybench.api.probes import (
        EvaluatedProbe,
        ProbeEvaluations,
        ProbeTraining,
        Steering,
        evaluate_probes,
        rescore_steering,
        steer,
        train_probe,
    )
    from empathybench.api.running import (
        RunOutcome,
        model_spec,
        resume,
        resume_async,
        run,
        run_async,
    )
    from empathybench.api.scorer import JudgeAgreement, score_text
    from empathybench.api.scorer_evaluation import (
        RobustnessCheck,
        ScorerEvaluation,
        evaluate_scorer,
        scorer_robustness,
    )
    from empathybench.api.scorer_training import ScorerTraining, train_scorer
    from empathybench.api.suites import generate_suite, load_suite
    from empathybench.errors import ParameterError, UserError
    from empathybench.judging.run_judges import JudgeRunResult
    from empathybench.models.base import GenerationParams, ModelSpec
    from empathybench.models.defaults import DEFAULT_MODEL
    from empathybench.progress import ProgressCallback, ProgressUpdate
    from empathybench.records import Scenario, Suite
    from empathybench.report.run_report import ReportFiles
    from empathybench.scenarios.suites import DEFAULT_SUITE
    from empathybench.scorer.empathy_scorer import EmpathyScores


def __getattr__(name: str) -> Any:
    """Load a public name's module on first use."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'empathybench' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_SUITE",
    "DimensionSummary",
    "EmpathyScores",
    "EvaluatedProbe",
    "GenerationParams",
    "Interval",
    "JudgeAgreement",
    "JudgeRunResult",
    "ModelSpec",
    "ParameterError",
    "ProbeEvaluations",
    "ProbeTraining",
    "ProgressCallback",
    "ProgressUpdate",
    "ReportFiles",
    "RobustnessCheck",
    "RunLike",
    "RunOutcome",
    "RunSummary",
    "Scenario",
    "ScorerEvaluation",
    "ScorerTraining",
    "Steering",
    "Suite",
    "UserError",
    "__version__",
    "default_judges",
    "evaluate_probes",
    "evaluate_scorer",
    "generate_suite",
    "judge",
    "judge_async",
    "load_suite",
    "model_spec",
    "report",
    "rescore_steering",
    "resume",
    "resume_async",
    "run",
    "run_async",
    "score_text",
    "scorer_robustness",
    "steer",
    "summarize",
    "train_probe",
    "train_scorer",
]
