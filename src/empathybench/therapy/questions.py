"""Counselling questions for the therapy track, and the question sets runs answer.

Sources, by the string a user gives:

- ``sample-v1``: the bundled sample (questions and reference answers written by the project,
  for offline use, demos and tests);
- ``hub:OWNER/NAME[:SPLIT]`` (or ``hub`` alone for the seed's dataset): a dataset on the
  Hugging Face hub through the ``datasets`` package, when a hub is reachable;
- a local ``.csv``, ``.json``, ``.jsonl`` or ``.parquet`` file.

Columns are found by name (``question``/``Context``/``prompt``… and ``reference``/``answer``/
``Response``…) or given explicitly. Preprocessing follows the seed: skip empty questions,
drop duplicate questions (the first answer is kept), then take the first N. Each question
keeps a stable id: the file's ``id`` column when it has one, else its row number in the
source, so ids do not shift when the selection changes.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import socket
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from urllib.parse import urlsplit

from empathybench.csv_cells import read_csv_text
from empathybench.errors import ParameterError, UserError
from empathybench.jsonl import atomic_write_text, canonical_json, read_json, read_json_lines
from empathybench.records import ChatMessage, Record, RunTrack
from empathybench.therapy.prompt import THERAPIST_PROMPT_VERSION, therapist_messages

BUNDLED_SAMPLE = "sample-v1"
SEED_DATASET = "Amod/mental_health_counseling_conversations"
"""The public counselling-conversations dataset of seed 001 (section 2; columns Context and
Response), as published on the hub."""
QUESTION_COLUMNS = ("question", "Context", "context", "questionText", "prompt", "input")
ANSWER_COLUMNS = ("reference", "Response", "response", "answer", "answerText", "output")
ID_COLUMNS = ("id", "question_id", "questionID")
FILE_SUFFIXES = (".csv", ".json", ".jsonl", ".parquet")


class TherapyQuestion(Record):
    """A counselling question and, when the source has one, a human therapist's answer."""

    id: str
    question: str
    reference: str | None = None


@dataclass(frozen=True)
class TherapyItem:
    """A question as a run sends it: inside the therapist prompt."""

    id: str
    question: str

    @property
    def kind(self) -> str:
        return "therapy"

    @property
    def prompt_version(self) -> str:
        return THERAPIST_PROMPT_VERSION

    @property
    def messages(self) -> list[ChatMessage]:
        return therapist_messages(self.question)


@dataclass(frozen=True)
class QuestionSet:
    """Chosen questions in order; ``sha256`` is over their canonical JSONL text."""

    name: str
    source: str
    questions: tuple[TherapyQuestion, ...]

    @property
    def sha256(self) -> str:
        return hashlib.sha256(questions_jsonl(self.questions).encode()).hexdigest()

    @property
    def track(self) -> RunTrack:
        return "therapy"

    @property
    def prompt_version(self) -> str:
        return THERAPIST_PROMPT_VERSION

    @property
    def items(self) -> tuple[TherapyItem, ...]:
        return tuple(TherapyItem(id=q.id, question=q.question) for q in self.questions)

    @property
    def by_id(self) -> dict[str, TherapyQuestion]:
        return {question.id: question for question in self.questions}


def questions_jsonl(questions: Iterable[TherapyQuestion]) -> str:
    return "".join(canonical_json(question) + "\n" for question in questions)


def write_questions(path: Path, questions: Sequence[TherapyQuestion]) -> None:
    atomic_write_text(path, questions_jsonl(questions))


def bundled_sample_path() -> Path:
    return Path(
        str(resources.files("empathybench") / "data" / "therapy" / "sample-questions-v1.jsonl")
    )


def _text(value: object) -> str:
    if value is None or (isinstance(value, float) and value != value):  # None or NaN
        return ""
    return str(value).strip()


def _pick_column(
    columns: Sequence[str], wanted: str | None, candidates: Sequence[str], what: str, where: str
) -> str | None:
    if wanted is not None:
        if wanted not in columns:
            raise UserError(f"{where}: no column {wanted!r} (columns: {', '.join(columns)})")
        return wanted
    for candidate in candidates:
        if candidate in columns:
            return candidate
    if what == "question":
        raise ParameterError(
            f"{where}: no question column (looked for {', '.join(candidates)}; columns: "
            f"{', '.join(columns)}); name it with question_column",
            parameters=["question_column"],
        )
    return None


def preprocess(
    rows: Sequence[Mapping[str, object]],
    *,
    where: str,
    limit: int | None = None,
    question_column: str | None = None,
    answer_column: str | None = None,
) -> list[TherapyQuestion]:
    """The seed's preprocessing: skip empty, drop duplicates (first kept), first ``limit``."""
    if limit is not None and limit < 1:
        raise ParameterError(f"limit must be a positive number, got {limit}", parameters=["limit"])
    columns = list(rows[0].keys()) if rows else []
    if not columns:
        raise UserError(f"{where}: no rows")
    q_col = _pick_column(columns, question_column, QUESTION_COLUMNS, "question", where)
    a_col = _pick_column(columns, answer_column, ANSWER_COLUMNS, "answer", where)
    id_col = next((c for c in ID_COLUMNS if c in columns), None)
    chosen: list[TherapyQuestion] = []
    seen_questions: set[str] = set()
    seen_ids: set[str] = set()
    for index, row in enumerate(rows):
        question = _text(row.get(q_col or ""))
        if not question or " ".join(question.split()).lower() in seen_questions:
            continue
        seen_questions.add(" ".join(question.split()).lower())
        identifier = _text(row.get(id_col)) if id_col else ""
        identifier = identifier or f"row-{index}"
        if identifier in seen_ids:
            raise UserError(f"{where}: id {identifier!r} appears twice")
        seen_ids.add(identifier)
        reference = _text(row.get(a_col)) if a_col else ""
        chosen.append(
            TherapyQuestion(id=identifier, question=question, reference=reference or None)
        )
        if limit is not None and len(chosen) == limit:
            break
    if not chosen:
        raise UserError(f"{where}: no non-empty questions")
    return chosen


def _read_csv(path: Path) -> list[dict[str, object]]:
    text = read_csv_text(path)
    try:
        return [dict(row) for row in csv.DictReader(io.StringIO(text, newline=""))]
    except csv.Error as error:
        raise UserError(f"{path}: not valid CSV ({error})") from None


def _read_json(path: Path) -> list[dict[str, object]]:
    rows: list[object]
    if path.suffix == ".jsonl":
        rows = [data for _, data in read_json_lines(path)]
    else:
        data = read_json(path)
        rows = data if isinstance(data, list) else [data]
    if not all(isinstance(row, dict) for row in rows):
        raise UserError(f"{path}: expected JSON objects, one per question")
    return [row for row in rows if isinstance(row, dict)]


def _read_parquet(path: Path) -> list[dict[str, object]]:
    try:
        import pyarrow.parquet as parquet
    except ImportError:
        raise UserError(f"{path}: reading parquet needs pyarrow (pip install pyarrow)") from None
    try:
        table = parquet.read_table(path)
    except Exception as error:  # pyarrow raises several types for a bad file
        raise UserError(f"{path}: not a readable parquet file ({error})") from None
    rows: list[dict[str, object]] = table.to_pylist()
    return rows


def hub_unreachable(timeout_s: float = 3.0) -> str | None:
    """Why the dataset hub's endpoint cannot be reached (one connection attempt), or None."""
    try:
        from huggingface_hub import constants
    except ImportError:
        return None  # let the datasets package report it
    endpoint = urlsplit(constants.ENDPOINT)
    port = endpoint.port or (443 if endpoint.scheme == "https" else 80)
    try:
        with socket.create_connection((endpoint.hostname or "", port), timeout=timeout_s):
            return None
    except OSError as error:
        return error.strerror or type(error).__name__


def _read_hub(spec: str) -> list[dict[str, object]]:
    name, _, split = (spec or SEED_DATASET).partition(":")
    try:
        import datasets
    except ImportError:
        raise UserError(
            "loading from the hub needs the datasets package (pip install datasets); "
            "or download the dataset and pass its file"
        ) from None
    offline = (
        os.environ.get("HF_HUB_OFFLINE") == "1" or os.environ.get("HF_DATASETS_OFFLINE") == "1"
    )
    if not offline and (reason := hub_unreachable()) is not None:
        # Fail at once: the hub client would retry a missing network five times (~40 s).
        raise UserError(
            f"hub:{name}: the hub cannot be reached ({reason}); download the dataset elsewhere "
            "and pass the file (csv, json, jsonl or parquet), or use sample-v1"
        )
    try:
        dataset = datasets.load_dataset(name, split=split or "train")
    except Exception as error:  # network, auth and missing-dataset errors differ by version
        hint = " (offline mode is set)" if offline else ""
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise UserError(
            f"hub:{name}: could not load the dataset{hint}: {type(error).__name__}: "
            f"{first_line[:200]}; without a reachable hub, download it elsewhere and pass the "
            "file (csv, json, jsonl or parquet), or use sample-v1"
        ) from None
    return [dict(row) for row in dataset]


def load_questions(
    source: str,
    *,
    limit: int | None = None,
    question_column: str | None = None,
    answer_column: str | None = None,
) -> QuestionSet:
    """Questions from ``source`` (see the module docstring), preprocessed."""
    if source == BUNDLED_SAMPLE:
        path, name = bundled_sample_path(), BUNDLED_SAMPLE
        rows: list[dict[str, object]] = _read_json(path)
    elif source == "hub" or source.startswith("hub:"):
        name = source
        rows = _read_hub(source.removeprefix("hub").removeprefix(":"))
    else:
        path = Path(source)
        if not path.is_file():
            raise UserError(
                f"{source}: no such file (give a {', '.join(FILE_SUFFIXES)} file, "
                f"{BUNDLED_SAMPLE}, or hub:OWNER/NAME)"
            )
        readers = {".csv": _read_csv, ".json": _read_json, ".jsonl": _read_json}
        suffix = path.suffix.lower()
        if suffix == ".parquet":
            rows = _read_parquet(path)
        elif suffix in readers:
            rows = readers[suffix](path)
        else:
            raise UserError(f"{source}: unknown file type (use {', '.join(FILE_SUFFIXES)})")
        name = path.name
    questions = preprocess(
        rows,
        where=source,
        limit=limit,
        question_column=question_column,
        answer_column=answer_column,
    )
    return QuestionSet(name=name, source=source, questions=tuple(questions))
