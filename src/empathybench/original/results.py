"""The original tester's results files, imported as run folders.

Its tester writes ``baseline_results_<model>[_eval_<judge>].json``: one JSON object keyed by
item id, each entry holding the ``model_response``, the item's ``actor_context`` and
``expected_behavior``, its ``domain`` and, when a judge ran, six ``scores`` in [0, 1].
Importing it writes a run folder — the items (as an original item file), the responses, and
the original judge's scores as a verdict file — so the same responses can be judged again
with ``empathybench judge`` and compared side by side with the published numbers.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from empathybench.errors import UserError
from empathybench.judging.rubric import RUBRIC_VERSION
from empathybench.models.base import ModelSpec
from empathybench.original.items import (
    DEFAULT_TARGET_PROMPT,
    ORIGINAL_PROMPT_VERSION,
    ActorContext,
    ExpectedBehavior,
    _Lenient,
    parse_original_items,
    read_json,
)
from empathybench.prompts.strategies import get_strategy
from empathybench.records import (
    DIMENSIONS,
    DimensionScore,
    JudgeDecision,
    Response,
    RunManifest,
    RunTotals,
    Scenario,
    SuiteRef,
    Verdict,
)
from empathybench.runtime import provenance
from empathybench.runtime.run_store import RunStore

RESULTS_NAME = re.compile(r"^baseline_results_(?P<model>.+?)(?:_eval_(?P<judge>.+))?$")
ITEMS_FILE = "original-items.json"
"""The items a run imported without ``--suite`` was on, rebuilt from the results file."""
IMPORTED_PROVIDER = "original-results"
"""The provider recorded for imported responses (no model is called)."""
JUDGE_PREFIX = "original/"
"""Imported verdicts are recorded as judge ``original/<judge named in the file name>``."""


class OriginalResult(_Lenient):
    model_response: str
    expected_behavior: ExpectedBehavior
    actor_context: ActorContext
    domain: str = ""
    scores: dict[str, Any] | None = None


@dataclass(frozen=True)
class ImportResult:
    run_dir: Path
    model: str
    judge: str | None
    responses: int
    items: int
    published: dict[str, float]
    """The judge's means as the original tester computed them: every entry, every dimension
    (missing scores count 0), whatever applies; empty when the file holds no scores."""


def names_from_file(path: Path) -> tuple[str | None, str | None]:
    """(model, judge) as the tester wrote them into the file name ('/' became '_')."""
    match = RESULTS_NAME.match(path.stem)
    if match is None:
        return None, None
    return match["model"], match["judge"]


def read_results(path: Path) -> dict[str, OriginalResult]:
    data = read_json(path)
    if isinstance(data, list):
        raise UserError(
            f"{path}: a JSON array, which is the original benchmark's item list, not a results "
            "file: run it with `empathybench run --suite FILE`"
        )
    if not isinstance(data, dict) or not data:
        raise UserError(f"{path}: expected the original tester's results (an object keyed by id)")
    results = {}
    for item_id, entry in data.items():
        if not isinstance(entry, dict) or "model_response" not in entry:
            raise UserError(
                f"{path}: entry {item_id!r} holds no model_response (not a results file)"
            )
        try:
            results[item_id] = OriginalResult.model_validate(entry)
        except ValidationError as error:
            problem = error.errors()[0]
            where = ".".join(str(p) for p in problem["loc"])
            raise UserError(f"{path}: entry {item_id!r}: {where}: {problem['msg']}") from None
    return results


def rebuilt_items(results: dict[str, OriginalResult]) -> list[dict[str, Any]]:
    """The original items behind a results file (its tester does not repeat the system prompt:
    the original generator's one is used)."""
    return [
        {
            "id": item_id,
            "scenario_domain": result.domain,
            "actor_context": result.actor_context.model_dump(),
            "target_prompt": DEFAULT_TARGET_PROMPT,
            "expected_behavior": result.expected_behavior.model_dump(),
        }
        for item_id, result in results.items()
    ]


def _score(value: object) -> DimensionScore:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        return DimensionScore(status="unscored", reason=f"not a score in [0, 1]: {value!r}")
    return DimensionScore(status="scored", value=float(value), rationale="imported")


def imported_verdict(
    scenario: Scenario, scores: dict[str, Any], *, run_id: str, judge: str
) -> Verdict:
    """The original judge's scores on the dimensions our rubric applies to this item; the
    file's raw scores are kept whole in ``raw_outputs``."""
    values: dict[str, DimensionScore] = {}
    for dimension in DIMENSIONS:
        if dimension not in scenario.dimensions:
            values[dimension] = DimensionScore(
                status="na", reason=f"does not apply to {scenario.kind} items"
            )
        elif dimension in scores:
            values[dimension] = _score(scores[dimension])
        else:
            values[dimension] = DimensionScore(status="unscored", reason="missing in the file")
    return Verdict(
        run_id=run_id,
        scenario_id=scenario.id,
        epoch=0,
        judge=judge,
        rubric_version=f"original-tester/{RUBRIC_VERSION}",
        scores=values,
        raw_outputs=[json.dumps(scores, sort_keys=True)],
        finished_at=provenance.now_iso(),
    )


def published_means(results: dict[str, OriginalResult]) -> dict[str, float]:
    """The tester's own arithmetic: mean over scored entries of each of the six keys."""
    scored = [r.scores for r in results.values() if r.scores is not None]
    if not scored:
        return {}
    means: dict[str, float] = {}
    for dimension in DIMENSIONS:
        values = [s.get(dimension, 0) for s in scored]
        numbers = [float(v) for v in values if isinstance(v, int | float)]
        means[dimension] = sum(numbers) / len(scored)
    means["overall"] = sum(means.values()) / len(DIMENSIONS)
    return means


def _check_empty(run_dir: Path) -> None:
    if run_dir.exists() and not run_dir.is_dir():
        raise UserError(f"{run_dir}: is a file, expected a new run directory")
    if run_dir.is_dir() and any(run_dir.iterdir()):
        raise UserError(f"{run_dir}: not empty; import into a new run directory")


def import_results(
    path: Path,
    run_dir: Path,
    *,
    suite_path: Path | None = None,
    model: str | None = None,
    judge: str | None = None,
) -> ImportResult:
    """Write ``run_dir`` from the tester's results file at ``path`` (see the module doc)."""
    from empathybench.scenarios.suites import load_suite

    if not path.is_file():
        raise UserError(f"{path}: no such file")
    file_model, file_judge = names_from_file(path)
    model = model or file_model
    if not model:
        raise UserError(
            f"{path}: the file name does not say the model "
            "(baseline_results_<model>_eval_<judge>.json): give the model name"
        )
    judge = judge or file_judge
    results = read_results(path)
    has_scores = any(r.scores is not None for r in results.values())
    if has_scores and not judge:
        raise UserError(f"{path}: the file holds scores but its name does not say the judge")
    _check_empty(run_dir)
    if suite_path is not None:
        suite = load_suite(str(suite_path))
        if suite.origin != "original-benchmark":
            raise UserError(f"{suite_path}: not an original benchmark item file")
        unknown = sorted(set(results) - {s.id for s in suite.scenarios})
        if unknown:
            raise UserError(
                f"{path}: {len(unknown)} result(s) for items not in {suite_path}: "
                f"{', '.join(unknown[:3])}"
            )
        run_dir.mkdir(parents=True, exist_ok=True)
    else:
        items = rebuilt_items(results)
        parse_original_items(items, str(path))
        run_dir.mkdir(parents=True, exist_ok=True)
        suite_path = run_dir / ITEMS_FILE
        suite_path.write_text(json.dumps(items, indent=2), encoding="utf-8")
        suite = load_suite(str(suite_path))
    scenarios = {s.id: s for s in suite.scenarios}

    spec = ModelSpec(provider=IMPORTED_PROVIDER, name=model)
    run_id = uuid.uuid4().hex[:12]
    judge_id = f"{JUDGE_PREFIX}{judge}" if has_scores and judge else None
    store = RunStore(run_dir)
    strategy = get_strategy("plain")
    now = provenance.now_iso()
    with store.responses:
        for item_id, result in results.items():
            text = result.model_response
            store.responses.append(
                Response(
                    run_id=run_id,
                    scenario_id=item_id,
                    epoch=0,
                    model=spec.id,
                    strategy=strategy.name,
                    request_key="imported-" + hashlib.sha256(text.encode()).hexdigest()[:24],
                    text=text,
                    latency_s=0.0,
                    attempts=0,
                    cached=False,
                    provider_model=model,
                    finished_at=now,
                )
            )
    decisions = []
    if judge_id is not None:
        log = store.verdicts(judge_id)
        with log:
            for item_id, result in results.items():
                if result.scores is not None:
                    log.append(
                        imported_verdict(
                            scenarios[item_id], result.scores, run_id=run_id, judge=judge_id
                        )
                    )
        decisions.append(
            JudgeDecision(
                judge=judge_id,
                judge_family=None,
                tested_family=None,
                same_family=False,
                allowed=True,
                reason=f"imported from the original tester's results file {path.name}",
            )
        )
    manifest = RunManifest(
        run_id=run_id,
        created_at=now,
        updated_at=now,
        status="complete" if len(results) == len(scenarios) else "incomplete",
        suite=SuiteRef(
            name=suite.name,
            source=str(suite_path.resolve()),
            sha256=suite.sha256,
            n=len(scenarios),
            origin="original-benchmark",
        ),
        model=spec,
        strategy=strategy.name,
        strategy_version=strategy.version,
        prompt_version=ORIGINAL_PROMPT_VERSION,
        epochs=1,
        limit=None,
        kinds=None,
        max_connections=1,
        requests_per_minute=None,
        package_versions=provenance.package_versions(),
        python=provenance.python_version(),
        platform=provenance.platform_name(),
        git_revision=provenance.git_revision(),
        totals=RunTotals(items=len(scenarios), completed=len(results)),
        judges=decisions,
        answer_mode="free",
    )
    store.write_manifest(manifest)
    return ImportResult(
        run_dir=run_dir,
        model=model,
        judge=judge_id,
        responses=len(results),
        items=len(scenarios),
        published=published_means(results),
    )
