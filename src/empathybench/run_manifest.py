"""The manifest of a run: a new one for given options, and the check that an existing run
directory holds the same run (same track, suite, model, strategy, prompt and answer mode)."""

from __future__ import annotations

import uuid
from pathlib import Path

from empathybench.errors import ParameterError
from empathybench.models.base import ModelSpec
from empathybench.models.guided import AnswerMode
from empathybench.prompts.strategies import Strategy
from empathybench.records import RunManifest, RunTotals, Suite, SuiteRef
from empathybench.run_options import RunOptions
from empathybench.runtime import provenance
from empathybench.runtime.url_secrets import redact_url


def new_manifest(
    options: RunOptions, strategy: Strategy, n_items: int, answer_mode: AnswerMode
) -> RunManifest:
    now = provenance.now_iso()
    return RunManifest(
        run_id=uuid.uuid4().hex[:12],
        created_at=now,
        updated_at=now,
        status="running",
        suite=SuiteRef(
            name=options.suite.name,
            source=options.suite_source,
            sha256=options.suite.sha256,
            n=len(options.suite.items),
            origin=options.suite.origin if isinstance(options.suite, Suite) else "empathybench",
        ),
        model=recorded_model(options.spec),
        strategy=strategy.name,
        strategy_version=strategy.version,
        prompt_version=options.suite.prompt_version,
        epochs=options.epochs,
        limit=options.limit,
        kinds=options.kinds,
        max_connections=options.max_connections,
        requests_per_minute=options.requests_per_minute,
        package_versions=provenance.package_versions(),
        python=provenance.python_version(),
        platform=provenance.platform_name(),
        git_revision=provenance.git_revision(),
        totals=RunTotals(items=n_items),
        track=options.suite.track,
        answer_mode=answer_mode,
        judging=options.judging,
    )


def recorded_model(spec: ModelSpec) -> ModelSpec:
    """The model spec as a manifest records it: its server URL without credentials."""
    if spec.base_url:
        return spec.model_copy(update={"base_url": redact_url(spec.base_url)})
    return spec


def check_same_run(existing: RunManifest, fresh: RunManifest, directory: Path) -> None:
    mismatches = [
        name
        for name, old, new in (
            ("track", existing.track, fresh.track),
            ("suite", existing.suite.sha256, fresh.suite.sha256),
            ("model", existing.model, fresh.model),
            ("strategy", existing.strategy_version, fresh.strategy_version),
            ("prompt version", existing.prompt_version, fresh.prompt_version),
            ("answer mode", existing.answer_mode, fresh.answer_mode),
        )
        if old != new
    ]
    if mismatches:
        raise ParameterError(
            f"{directory} holds a different run ({', '.join(mismatches)} differ: "
            f"{existing.model.id} on "
            f"{existing.suite.name}); choose another run_dir or resume that run",
            parameters=["run_dir"],
        )
