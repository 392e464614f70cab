"""A therapy study directory: one question set, answered by several sources.

```
STUDY/
  study.json          what was asked (question source, hash, prompt version) and judge decisions
  questions.jsonl     the chosen questions, with the human reference answers when present
  runs/<model>/       one ordinary run directory per model (the runner's store, track "therapy")
  verdicts/<judge>/<source>.jsonl   C/E/B verdicts, one file per judge and source
```

A source is a model id (``local/smollm2``) or ``human`` — the reference answers that came
with the questions, as in the seed study. Running a model again resumes its run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field

from empathybench.errors import ParameterError, UserError
from empathybench.jsonl import atomic_write_text, pretty_json, read_json_record, read_records
from empathybench.records import SCHEMA_VERSION, JudgeDecision, Record
from empathybench.runtime.append_log import AppendLog, ItemKey
from empathybench.runtime.directory_lock import LOCK_FILE
from empathybench.runtime.provenance import now_iso
from empathybench.runtime.run_store import RunStore, judge_slug
from empathybench.therapy.prompt import (
    THERAPIST_PROMPT_SOURCE,
    THERAPIST_PROMPT_VERSION,
)
from empathybench.therapy.questions import QuestionSet, TherapyQuestion, write_questions
from empathybench.therapy.verdicts import TherapyVerdict

STUDY_FILE = "study.json"
QUESTIONS_FILE = "questions.jsonl"
RUNS_DIR = "runs"
VERDICTS_DIR = "verdicts"
HUMAN = "human"


class SourceDecision(Record):
    """A judge's self-judge check against one source (human sources need none)."""

    source: str
    decision: JudgeDecision


class StudyInfo(Record):
    schema_version: int = SCHEMA_VERSION
    created_at: str
    questions_source: str
    """What the user asked for (``sample-v1``, a file, ``hub:…``)."""
    questions_name: str
    questions_sha256: str
    n: int
    with_references: int
    prompt_version: str = THERAPIST_PROMPT_VERSION
    prompt_source: str = THERAPIST_PROMPT_SOURCE
    judges: list[SourceDecision] = Field(default_factory=list)


@dataclass(frozen=True)
class SourceAnswer:
    source: str
    question_id: str
    epoch: int
    text: str


class Study:
    """Read and extend a study directory."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    # -- creation and reading -------------------------------------------------------------
    @classmethod
    def create_or_open(cls, directory: Path, questions: QuestionSet | None) -> Study:
        """Open ``directory``; create it from ``questions`` when it holds no study yet."""
        study = cls(directory)
        if study.exists():
            if questions is not None and questions.sha256 != study.info().questions_sha256:
                raise ParameterError.about(
                    ("study", "questions"),
                    f"{directory} already holds a study of other questions "
                    f"({study.info().questions_name}, {study.info().n} questions); use another "
                    "study directory or leave the questions out to add a source to it",
                )
            return study
        if questions is None:
            raise ParameterError(
                f"{directory}: no study here yet; give questions to start one",
                parameters=["questions"],
            )
        if directory.exists() and any(p.name != LOCK_FILE for p in directory.iterdir()):
            raise UserError(f"{directory}: exists and is not a therapy study directory")
        write_questions(directory / QUESTIONS_FILE, questions.questions)
        study.write_info(
            StudyInfo(
                created_at=now_iso(),
                questions_source=questions.source,
                questions_name=questions.name,
                questions_sha256=questions.sha256,
                n=len(questions.questions),
                with_references=sum(1 for q in questions.questions if q.reference),
            )
        )
        return study

    def exists(self) -> bool:
        return (self.directory / STUDY_FILE).is_file()

    def require(self) -> Study:
        if not self.exists():
            raise UserError(
                f"{self.directory}: not a therapy study (no {STUDY_FILE}); "
                "start one with empathybench therapy run --study DIR --questions …"
            )
        return self

    def info(self) -> StudyInfo:
        return read_json_record(self.require().directory / STUDY_FILE, StudyInfo)

    def write_info(self, info: StudyInfo) -> None:
        atomic_write_text(self.directory / STUDY_FILE, pretty_json(info))

    def question_set(self) -> QuestionSet:
        info = self.info()
        questions = tuple(read_records(self.directory / QUESTIONS_FILE, TherapyQuestion))
        loaded = QuestionSet(name=info.questions_name, source=QUESTIONS_FILE, questions=questions)
        if loaded.sha256 != info.questions_sha256:
            raise UserError(
                f"{self.directory / QUESTIONS_FILE} changed since the study was made "
                f"(sha256 {loaded.sha256[:12]}…, recorded {info.questions_sha256[:12]}…)"
            )
        return loaded

    # -- sources --------------------------------------------------------------------------
    def run_dir(self, model_id: str) -> Path:
        return self.directory / RUNS_DIR / source_slug(model_id)

    def model_sources(self) -> dict[str, Path]:
        """Model id → run directory, for every run in the study."""
        runs = self.require().directory / RUNS_DIR
        found: dict[str, Path] = {}
        for manifest in sorted(runs.glob("*/manifest.json")) if runs.is_dir() else []:
            record = RunStore(manifest.parent).read_manifest()
            found[record.model.id] = manifest.parent
        return found

    def sources(self) -> list[str]:
        """``human`` (when the questions carry reference answers), then each model."""
        human = [HUMAN] if self.info().with_references else []
        return human + sorted(self.model_sources())

    def answers(self, sources: list[str] | None = None) -> dict[str, dict[ItemKey, SourceAnswer]]:
        """Every answered (question, epoch) per source; failed calls are left out."""
        chosen = sources or self.sources()
        known = self.sources()
        unknown = [source for source in chosen if source not in known]
        if unknown:
            raise UserError(
                f"{self.directory}: no source {', '.join(unknown)} "
                f"(sources: {', '.join(known) or 'none yet'})"
            )
        questions = self.question_set()
        runs = self.model_sources()
        result: dict[str, dict[ItemKey, SourceAnswer]] = {}
        for source in chosen:
            answers: dict[ItemKey, SourceAnswer] = {}
            if source == HUMAN:
                for question in questions.questions:
                    if question.reference:
                        answers[(question.id, 0)] = SourceAnswer(
                            HUMAN, question.id, 0, question.reference
                        )
            else:
                store = RunStore(runs[source])
                manifest = store.read_manifest()
                if manifest.suite.sha256 != questions.sha256:
                    raise UserError(f"{runs[source]}: answered other questions than this study")
                for key, response in sorted(store.latest_responses().items()):
                    if response.ok and key[0] in questions.by_id:
                        answers[key] = SourceAnswer(source, key[0], key[1], response.text or "")
            result[source] = answers
        return result

    # -- verdicts -------------------------------------------------------------------------
    def verdict_log(self, judge: str, source: str) -> AppendLog[TherapyVerdict]:
        path = self.directory / VERDICTS_DIR / judge_slug(judge) / f"{source_slug(source)}.jsonl"
        return AppendLog(path, TherapyVerdict)

    def judges(self) -> list[str]:
        """Judges with verdicts on disk, by their recorded id."""
        directory = self.require().directory / VERDICTS_DIR
        judges: set[str] = set()
        for path in sorted(directory.glob("*/*.jsonl")) if directory.is_dir() else []:
            records = AppendLog(path, TherapyVerdict).read()
            judges.update(record.judge for record in records[:1])
        return sorted(judges)

    def verdicts(self, judge: str, source: str) -> dict[ItemKey, TherapyVerdict]:
        return self.verdict_log(judge, source).latest()

    def record_decisions(self, decisions: list[SourceDecision]) -> None:
        info = self.info()
        kept = [
            d
            for d in info.judges
            if (d.source, d.decision.judge) not in {(n.source, n.decision.judge) for n in decisions}
        ]
        self.write_info(info.model_copy(update={"judges": kept + decisions}))


def source_slug(source: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", source).strip("-") or "source"
