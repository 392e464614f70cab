"""A run directory read once: manifest, suite, latest responses and the summary's judges.

Reports, summaries, item analysis, leaderboards and exports all start from ``RunData``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from empathybench.errors import UserError
from empathybench.records import Response, RunManifest, Scenario, Suite, Verdict
from empathybench.runtime.append_log import ItemKey
from empathybench.runtime.run_store import RunStore


def summary_judges(recorded: list[str]) -> list[str]:
    """The panel a summary uses: the LLM judges, or the offline judges when there are none.

    Offline (approximate) scores are never averaged with LLM judges' scores.
    """
    from empathybench.judging.offline_judge import is_offline_judge

    llm_judges = [judge for judge in recorded if not is_offline_judge(judge)]
    return llm_judges or list(recorded)


@dataclass(frozen=True)
class RunData:
    """Everything a run directory holds, read once: what reports and item analysis need."""

    directory: Path
    manifest: RunManifest
    suite: Suite
    responses: dict[ItemKey, Response]
    verdicts: dict[str, dict[ItemKey, Verdict]]
    """The summary's panel (``summary_judges``), judge id → latest verdict per item."""

    @property
    def model(self) -> str:
        return self.manifest.model.id

    @property
    def scenarios(self) -> dict[str, Scenario]:
        return {s.id: s for s in self.suite.scenarios}


def load_run_data(run_dir: Path, *, judges: list[str] | None = None) -> RunData:
    """Read a run directory with ``judges`` (default: ``summary_judges`` of the manifest)."""
    from empathybench.runner import load_run_suite

    store = RunStore(run_dir)
    manifest = store.read_manifest()
    suite = load_run_suite(manifest)
    recorded = [decision.judge for decision in manifest.judges]
    if judges is None:
        judges = summary_judges(recorded)
    missing = [judge for judge in judges if judge not in recorded]
    if missing:
        raise UserError(f"{run_dir}: no verdicts from {', '.join(missing)}")
    responses = store.latest_responses()
    if not responses:
        raise UserError(
            f"{run_dir}: the run has no responses yet; finish it with "
            f"`empathybench run --resume {run_dir}` before reporting on it"
        )
    return RunData(
        directory=run_dir,
        manifest=manifest,
        suite=suite,
        responses=responses,
        verdicts={judge: store.verdicts(judge).latest() for judge in judges},
    )
