"""``evaluate_scorer`` and ``scorer_robustness``: a trained head's held-out figures and its
behaviour under perturbations (``empathybench scorer eval | robustness``)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from empathybench.api.paths import PathArg, optional_path
from empathybench.api.scorer import (
    MAX_RESAMPLES,
    JudgeAgreement,
    Split,
    Task,
    offline_judge_agreement,
    write_json,
)
from empathybench.errors import UserError

if TYPE_CHECKING:
    from empathybench.scorer.agreement import AgreementReport
    from empathybench.scorer.empathy_scorer import EmpathyEvaluation
    from empathybench.scorer.heads import RegressionHead
    from empathybench.scorer.robustness import PerturbationRow, RobustnessSummary


@dataclass(frozen=True)
class ScorerEvaluation:
    """Held-out figures of a head: an empathy scorer's Spearman agreement (beside length and
    lexicon baselines) and test MSE, or an offline judge's agreement with labels."""

    task: Task
    agreement: AgreementReport | None = None
    mse: EmpathyEvaluation | None = None
    judge_agreement: JudgeAgreement | None = None
    output: Path | None = None

    def to_json(self) -> dict[str, Any]:
        """What ``output`` receives."""
        if self.judge_agreement is not None:
            return self.judge_agreement.to_json()
        data: dict[str, Any] = {}
        if self.agreement is not None:
            data["agreement"] = self.agreement.model_dump(mode="json")
        if self.mse is not None:
            data["mse"] = self.mse.model_dump(mode="json")
        return data


@dataclass(frozen=True)
class RobustnessCheck:
    """One text under each perturbation, and mean changes over the labels' test replies."""

    rows: list[PerturbationRow]
    summary: RobustnessSummary
    output: Path | None = field(default=None)

    def to_json(self) -> dict[str, Any]:
        return {
            "table": [row.model_dump(mode="json") for row in self.rows],
            "summary": self.summary.model_dump(mode="json"),
        }


def _check_results_output(output: Path | None, inputs: list[object], force: bool) -> None:
    from empathybench.runtime.output_guard import (
        check_output_file,
        refuse_input_as_output,
        whole_json_object,
    )

    if output is None:
        return
    refuse_input_as_output(output, [value for value in inputs if value], "output")
    check_output_file(output, kind="JSON results file", same_kind=whole_json_object, force=force)


def _load_any_head(head: Path | None, task: str, method: str) -> RegressionHead:
    from empathybench.scorer.empathy_scorer import resolve_head_dir
    from empathybench.scorer.heads import load_head

    if head is not None:
        return load_head(resolve_head_dir(head))
    from empathybench.judging.offline_judge import BUNDLED_JUDGE_HEAD
    from empathybench.scorer.empathy_data import bundled_data_path
    from empathybench.scorer.empathy_scorer import BUNDLED_HEADS, METHODS

    if task == "judge":
        return load_head(bundled_data_path(f"heads/{BUNDLED_JUDGE_HEAD}"))
    if method not in BUNDLED_HEADS:
        raise UserError(f"unknown scorer method {method!r}: use {' or '.join(METHODS)}")
    return load_head(bundled_data_path(f"heads/{BUNDLED_HEADS[method]}"))


def _evaluate_empathy_head(
    loaded: RegressionHead,
    data: str | None,
    split: str,
    batch: str | None,
    messages: bool,
    resamples: int,
) -> ScorerEvaluation:
    from empathybench.scorer.agreement import agreement_report, with_mean
    from empathybench.scorer.empathy_data import BUNDLED_EMPATHY_LABELS, load_empathy_labels
    from empathybench.scorer.empathy_scorer import EmpathyScorer, evaluate_empathy_scorer
    from empathybench.scorer.encoder import load_encoder

    labels = load_empathy_labels(data or BUNDLED_EMPATHY_LABELS)
    scorer = EmpathyScorer(encoder=load_encoder(loaded.config.encoder), head=loaded)
    records = labels.records if split == "all" else labels.part(split)
    if batch is not None:
        prefixes = tuple(part.strip() for part in batch.split(",") if part.strip())
        records = [r for r in records if (r.batch or "").startswith(prefixes)]
    if len(records) < 3:
        raise UserError(f"{labels.name}: fewer than 3 labelled replies in that selection")
    predicted = scorer.predict(
        [r.response for r in records], messages=[r.prompt for r in records] if messages else None
    )
    selection = f"{split} split" + (f", batch {batch}*" if batch else "")
    selection += ", replies with their messages" if messages else ", replies alone"
    report = agreement_report(
        records,
        {
            f"{scorer.method} head": (
                f"{scorer.method} method, trained on {loaded.config.data.get('name', '?')}",
                with_mean(predicted),
            )
        },
        labels=labels.name,
        selection=selection,
        resamples=resamples,
    )
    mse = evaluate_empathy_scorer(scorer, labels) if split == "test" and batch is None else None
    return ScorerEvaluation("empathy", agreement=report, mse=mse)


def evaluate_scorer(
    head: PathArg | None = None,
    *,
    task: Task = "empathy",
    method: str = "signals",
    data: str | None = None,
    split: Split = "test",
    batch: str | None = None,
    messages: bool = True,
    resamples: int = 1000,
    output: PathArg | None = None,
    force: bool = False,
) -> ScorerEvaluation:
    """Held-out figures of ``head`` (default: the bundled head of ``task``/``method``) on
    ``data`` (default: the bundled labels); ``output`` receives them as JSON.

    Empathy heads: Spearman with the labels of ``split`` (optionally only the writing
    ``batch`` starting so; comma-separated: any of them) beside length and lexicon baselines,
    with ``resamples`` bootstrap resamples, and test MSE. Judge heads: agreement with the
    labels' test split and the calibration set. An existing ``output`` that is not a JSON
    results file is refused unless ``force``; one of the inputs always is.
    """
    from empathybench.validation import check_count, check_file_target

    head, output = optional_path(head), optional_path(output)
    check_file_target("output", output)
    _check_results_output(output, [*(data or "").split(","), head], force)
    check_count("resamples", resamples, minimum=100, maximum=MAX_RESAMPLES)
    if task not in ("empathy", "judge"):
        raise UserError(f"unknown task {task!r}: use empathy or judge")
    if split not in ("test", "train", "all"):
        raise UserError(f"unknown split {split!r}: use test, train or all")
    loaded = _load_any_head(head, task, method)
    if loaded.config.task == "empathy":
        evaluation = _evaluate_empathy_head(loaded, data, split, batch, messages, resamples)
    else:
        from empathybench.judging.judge_calibration import load_calibration
        from empathybench.judging.offline_data import DEFAULT_JUDGE_TRAINING, load_judge_labels
        from empathybench.judging.offline_judge import OfflineJudge, head_directory
        from empathybench.scorer.empathy_scorer import resolve_head_dir

        judge = OfflineJudge(
            loaded,
            judge_id=f"offline:{head.name}" if head else "offline",
            calibration=load_calibration(
                resolve_head_dir(head) if head else head_directory("offline")
            ),
        )
        labels = load_judge_labels(data or ",".join(DEFAULT_JUDGE_TRAINING))
        test = [r for r in labels.records if r.split == "test"]
        agreement = offline_judge_agreement(judge, test, f"{labels.name} (test split)")
        evaluation = ScorerEvaluation("judge", judge_agreement=agreement)
    write_json(output, evaluation.to_json())
    return replace(evaluation, output=output)


def scorer_robustness(
    text: str | None = None,
    *,
    head: PathArg | None = None,
    data: str | None = None,
    seed: int = 0,
    output: PathArg | None = None,
    force: bool = False,
) -> RobustnessCheck:
    """The seed study's adversarial table for ``text`` (default: its example), and the mean
    change of each perturbation over the test replies of ``data`` (default: bundled labels)."""
    from empathybench.scorer.empathy_data import BUNDLED_EMPATHY_LABELS, load_empathy_labels
    from empathybench.scorer.empathy_scorer import load_empathy_scorer
    from empathybench.scorer.robustness import EXAMPLE_TEXT, robustness_summary, robustness_table
    from empathybench.validation import check_file_target, check_seed

    head, output = optional_path(head), optional_path(output)
    check_file_target("output", output)
    _check_results_output(output, [data, head], force)
    check_seed("seed", seed)
    scorer = load_empathy_scorer(head)
    rows = robustness_table(scorer, text or EXAMPLE_TEXT, seed=seed)
    labels = load_empathy_labels(data or BUNDLED_EMPATHY_LABELS)
    texts = [r.response for r in labels.part("test")] or [r.response for r in labels.records]
    check = RobustnessCheck(rows, robustness_summary(scorer, texts, seed=seed), output)
    write_json(output, check.to_json())
    return check
