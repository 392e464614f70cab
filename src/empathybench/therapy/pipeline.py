"""The therapy track from Python: answer a study's questions with a model, then judge them.

``run_therapy`` adds (or continues) one model source of a study directory; ``judge_therapy``
scores every source's answers on cognitive, emotional and behavioral empathy. Both have
``async`` twins; progress goes through a callback (``empathybench.progress``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from empathybench.api.judging import ModelOptions, plan_judges
from empathybench.api.paths import cache_file
from empathybench.api.running import RunOutcome, model_spec
from empathybench.judging.llm_judge import JudgeSettings
from empathybench.judging.offline_judge import OFFLINE_JUDGE
from empathybench.models.base import ModelSpec
from empathybench.models.defaults import DEFAULT_MODEL, default_connections
from empathybench.models.registry import recorded_spec, resolve_answer_mode, resolve_api_key
from empathybench.progress import ProgressCallback
from empathybench.runner import RunOptions, execute_run
from empathybench.runtime.directory_lock import hold_directory
from empathybench.runtime.event_loop import blocking_twin
from empathybench.runtime.run_store import RunStore
from empathybench.therapy.judging import TherapyJudgeOptions, TherapyJudgeResult, judge_study
from empathybench.therapy.prompt import THERAPIST_MAX_TOKENS
from empathybench.therapy.questions import BUNDLED_SAMPLE, QuestionSet, load_questions
from empathybench.therapy.study import Study

DEFAULT_STUDY = Path("studies/therapy")


async def run_therapy_async(
    model: str | ModelSpec = DEFAULT_MODEL,
    *,
    study: str | os.PathLike[str] = DEFAULT_STUDY,
    questions: QuestionSet | str | None = None,
    epochs: int = 1,
    answer_mode: str | None = None,
    max_connections: int | None = None,
    requests_per_minute: float | None = None,
    cache: str | os.PathLike[str] | bool = True,
    progress: ProgressCallback | None = None,
) -> RunOutcome:
    """Answer the study's questions with ``model`` under the therapist prompt (resumable).

    ``questions`` starts a new study (a ``QuestionSet``, or a source for ``load_questions``);
    a new study with none given starts from the bundled sample. ``model`` as an id gets the
    seed's reply limit (640 tokens). A source answered before keeps its answer mode.
    """
    directory = Path(os.fspath(study))
    if questions is None and not Study(directory).exists():
        questions = BUNDLED_SAMPLE
    loaded = load_questions(questions) if isinstance(questions, str) else questions
    spec = (
        recorded_spec(model)
        if isinstance(model, ModelSpec)
        else model_spec(model, max_tokens=THERAPIST_MAX_TOKENS)
    )
    earlier = RunStore(Study(directory).run_dir(spec.id))
    if answer_mode is None and earlier.exists():
        answer_mode = earlier.read_manifest().answer_mode
    mode = resolve_answer_mode(spec, answer_mode)
    resolve_api_key(spec)
    with hold_directory(directory):  # one process per study at a time
        opened = Study.create_or_open(directory, loaded)
        options = RunOptions(
            suite=opened.question_set(),
            suite_source=str(directory / "questions.jsonl"),
            spec=spec,
            run_dir=opened.run_dir(spec.id),
            epochs=epochs,
            max_connections=max_connections
            if max_connections is not None
            else default_connections(spec, "therapy"),
            requests_per_minute=requests_per_minute,
            cache_path=cache_file(cache),
            progress=progress,
            answer_mode=mode,
        )
        result = await execute_run(options)
    return RunOutcome(
        directory=options.run_dir,
        manifest=result.manifest,
        calls_made=result.calls_made,
        skipped=result.skipped,
        judging=None,
    )


run_therapy = blocking_twin(run_therapy_async, "run_therapy")


async def judge_therapy_async(
    study: str | os.PathLike[str] = DEFAULT_STUDY,
    *,
    judges: Sequence[str | ModelSpec] = (OFFLINE_JUDGE,),
    sources: Sequence[str] | None = None,
    allow_self_judge: bool = False,
    base_url: str | None = None,
    options: ModelOptions | None = None,
    max_connections: int = 8,
    max_reasks: int = 2,
    cache: str | os.PathLike[str] | bool = True,
    progress: ProgressCallback | None = None,
) -> TherapyJudgeResult:
    """Score every source's answers (or ``sources``') with ``judges`` (model ids and/or
    ``offline``, the bundled empathy scorer)."""
    plan = plan_judges(judges, base_url=base_url, options=options)
    return await judge_study(
        TherapyJudgeOptions(
            study_dir=Path(os.fspath(study)),
            judges=list(plan.llm),
            offline=list(plan.offline),
            sources=list(sources) if sources is not None else None,
            allow_self_judge=allow_self_judge,
            max_connections=max_connections,
            settings=JudgeSettings(max_reasks=max_reasks),
            cache_path=cache_file(cache),
            progress=progress,
        )
    )


judge_therapy = blocking_twin(judge_therapy_async, "judge_therapy")
