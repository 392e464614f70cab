"""What a run is given: the items it answers (``ItemSet``), its options, and the checks made
on them before any file is written or any model is called."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from empathybench.errors import ParameterError, UserError
from empathybench.models.base import ModelSpec
from empathybench.models.guided import AnswerMode
from empathybench.models.registry import refuse_guided_only_options, resolve_answer_mode
from empathybench.progress import ProgressCallback
from empathybench.prompts.strategies import get_strategy
from empathybench.records import (
    ChatMessage,
    JudgeRequest,
    Response,
    RunManifest,
    RunTrack,
    Suite,
)
from empathybench.runtime.cache import check_cache_path
from empathybench.runtime.pricing import Price
from empathybench.runtime.run_store import ItemKey, RunStore
from empathybench.validation import (
    check_count,
    check_directory_target,
    check_number,
)


class RunItem(Protocol):
    """One thing a model answers: a scenario, or a therapy question in the therapist prompt."""

    @property
    def id(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def prompt_version(self) -> str: ...
    @property
    def messages(self) -> Sequence[ChatMessage]: ...


class ItemSet(Protocol):
    """What a run answers: named, hashed (sha256 of its file), ordered items."""

    @property
    def name(self) -> str: ...
    @property
    def sha256(self) -> str: ...
    @property
    def track(self) -> RunTrack: ...
    @property
    def prompt_version(self) -> str: ...
    @property
    def items(self) -> Sequence[RunItem]: ...


@dataclass
class RunOptions:
    suite: ItemSet
    suite_source: str
    spec: ModelSpec
    run_dir: Path
    strategy: str = "plain"
    epochs: int = 1
    limit: int | None = None
    kinds: list[str] | None = None
    max_connections: int = 8
    requests_per_minute: float | None = None
    max_attempts: int = 6
    max_backoff_s: float = 30.0
    cache_path: Path | None = None
    prices: dict[str, Price] = field(default_factory=dict)
    progress: ProgressCallback | None = None
    """Called when the run starts and after every answer (see ``empathybench.progress``)."""
    answer_mode: AnswerMode | None = None
    """guided | free; None: guided for local models, free for the rest."""
    batch: bool = False
    """Answer through the provider's batch API (see ``runtime.batch``)."""
    batch_poll_s: float = 30.0
    judging: JudgeRequest | None = None
    """The judges the caller will score with, recorded for ``run --resume`` (None: keep
    what the manifest says)."""


MAX_EPOCHS = 1000
"""Most answers per item a run takes (the item list is built up front)."""


def check_run_options(options: RunOptions) -> None:
    """Refuse out-of-range settings before any file is written or model called."""
    check_count("epochs", options.epochs, maximum=MAX_EPOCHS)
    check_count("limit", options.limit)
    check_count("max_connections", options.max_connections)
    check_count("max_attempts", options.max_attempts)
    check_number("requests_per_minute", options.requests_per_minute, above=0)
    check_number("max_backoff_s", options.max_backoff_s, minimum=0)
    check_number("batch_poll_s", options.batch_poll_s, above=0)
    check_directory_target("run_dir", options.run_dir)
    check_cache_path(options.cache_path)


@dataclass
class RunResult:
    manifest: RunManifest
    store: RunStore
    responses: dict[ItemKey, Response]
    calls_made: int
    skipped: int


def select_items(item_set: ItemSet, limit: int | None, kinds: list[str] | None) -> list[RunItem]:
    if limit is not None and limit <= 0:
        raise ParameterError(f"limit must be a positive number, got {limit}", parameters=["limit"])
    if not item_set.items:
        raise UserError(f"{item_set.name} has no items (an empty suite)")
    chosen = [item for item in item_set.items if kinds is None or item.kind in kinds]
    if not chosen:
        raise ParameterError(
            f"kinds {kinds} match no items in {item_set.name}", parameters=["kinds"]
        )
    return chosen[:limit] if limit is not None else chosen


def run_answer_mode(
    spec: ModelSpec, strategy: str, requested: str | None, suite: ItemSet | None = None
) -> AnswerMode:
    """The answer mode of a run (see ``registry.resolve_answer_mode``).

    A strategy that asks for a reasoning line before the answer (chain-of-empathy,
    empathize-first) needs free answers: guided answers start with the fields. Local models
    then default to free, and an explicit ``guided`` is refused. The same holds for the
    original benchmark's items, which ask no question to guide.
    """
    mode = resolve_answer_mode(spec, requested)
    if mode == "guided" and isinstance(suite, Suite) and suite.origin == "original-benchmark":
        if requested is None:
            refuse_guided_only_options(spec, f"on {suite.name}, which is answered free")
            return "free"
        raise UserError(
            f"{suite.name}: the original benchmark's items ask no EMOTION or NEEDS_HELP "
            "question, so there is nothing to guide: use --answer-mode free"
        )
    if mode == "guided" and get_strategy(strategy).system_addendum is not None:
        if requested is None:
            refuse_guided_only_options(spec, f"with strategy={strategy}, answered free")
            return "free"
        raise ParameterError(
            f"strategy={strategy} asks for a line of reasoning before the answer, which "
            "guided answers leave no room for: use answer_mode=free",
            parameters=["strategy", "answer_mode"],
        )
    return mode
