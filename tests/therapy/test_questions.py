import json
from pathlib import Path

import pytest

from empathybench.errors import UserError
from empathybench.therapy.prompt import THERAPIST_MAX_TOKENS, THERAPIST_PROMPT, therapist_messages
from empathybench.therapy.questions import (
    BUNDLED_SAMPLE,
    QuestionSet,
    TherapyQuestion,
    load_questions,
    preprocess,
)

SEED = Path(__file__).resolve().parents[3] / "shared" / "seeds" / "001_7383627700375ccf.txt"

ROWS = [
    {"Context": "I can't sleep since the move.", "Response": "Keep a routine."},
    {"Context": "   ", "Response": "answer to an empty question"},
    {"Context": "I can't  sleep since the move.", "Response": "a second answer, dropped"},
    {"Context": "My sister stopped talking to me.", "Response": ""},
    {"Context": "Work is crushing me.", "Response": "Talk to your manager."},
]


def test_preprocessing_skips_empty_drops_duplicates_and_keeps_row_ids() -> None:
    questions = preprocess(ROWS, where="rows")
    assert [q.id for q in questions] == ["row-0", "row-3", "row-4"]
    assert questions[0].reference == "Keep a routine."  # the first answer of a duplicate
    assert questions[1].reference is None  # an empty answer is no reference
    assert [q.id for q in preprocess(ROWS, where="rows", limit=2)] == ["row-0", "row-3"]


def test_explicit_columns_and_missing_question_column() -> None:
    rows = [{"body": "Help me please.", "reply": "Sure."}]
    (question,) = preprocess(rows, where="f", question_column="body", answer_column="reply")
    assert (question.question, question.reference) == ("Help me please.", "Sure.")
    with pytest.raises(UserError, match="no question column"):
        preprocess(rows, where="f")
    with pytest.raises(UserError, match="no column 'nope'"):
        preprocess(rows, where="f", question_column="nope")
    with pytest.raises(UserError, match="positive"):
        preprocess(rows, where="f", question_column="body", limit=0)


def _write(path: Path, rows: list[dict[str, str]]) -> Path:
    if path.suffix == ".csv":
        import csv

        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    elif path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    elif path.suffix == ".json":
        path.write_text(json.dumps(rows), encoding="utf-8")
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(rows), path)
    return path


@pytest.mark.parametrize("suffix", [".csv", ".json", ".jsonl", ".parquet"])
def test_every_file_format_gives_the_same_questions(tmp_path: Path, suffix: str) -> None:
    rows = [{k: v for k, v in row.items()} for row in ROWS]
    loaded = load_questions(str(_write(tmp_path / f"q{suffix}", rows)))
    assert [q.question for q in loaded.questions] == [
        "I can't sleep since the move.",
        "My sister stopped talking to me.",
        "Work is crushing me.",
    ]
    assert loaded.track == "therapy"
    assert len(loaded.sha256) == 64


def test_an_id_column_is_kept_and_must_be_unique(tmp_path: Path) -> None:
    rows = [{"id": "a", "question": "One?"}, {"id": "b", "question": "Two?"}]
    assert [q.id for q in load_questions(str(_write(tmp_path / "q.jsonl", rows))).questions] == [
        "a",
        "b",
    ]
    rows[1]["id"] = "a"
    with pytest.raises(UserError, match="id 'a' appears twice"):
        load_questions(str(_write(tmp_path / "d.jsonl", rows)))


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bad.jsonl", "{not json\n", "not valid JSON"),
        ("list.json", "[1, 2]", "expected JSON objects"),
        ("q.txt", "hello", "unknown file type"),
        ("bad.parquet", "not parquet", "not a readable parquet file"),
        ("latin.csv", None, "not UTF-8"),
    ],
)
def test_bad_files_are_one_clear_error(
    tmp_path: Path, name: str, content: str | None, message: str
) -> None:
    path = tmp_path / name
    if content is None:
        path.write_bytes("question\ncaf\xe9\n".encode("latin-1"))
    else:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(UserError, match=message):
        load_questions(str(path))
    with pytest.raises(UserError, match="no such file"):
        load_questions(str(tmp_path / "missing.csv"))


def test_the_bundled_sample_has_forty_original_questions_with_references() -> None:
    sample = load_questions(BUNDLED_SAMPLE)
    assert len(sample.questions) == 40
    assert all(q.reference and len(q.reference.split()) >= 40 for q in sample.questions)
    assert len({q.question for q in sample.questions}) == 40
    assert load_questions(BUNDLED_SAMPLE, limit=10).questions == sample.questions[:10]


def test_hub_loading_goes_through_datasets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A local dataset folder takes the same datasets.load_dataset path as a hub id.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    folder = tmp_path / "counselling"
    folder.mkdir()
    _write(folder / "train.jsonl", [{"Context": "Q one?", "Response": "A one."}])
    loaded = load_questions(f"hub:{folder}")
    assert [(q.question, q.reference) for q in loaded.questions] == [("Q one?", "A one.")]


def test_an_unreachable_hub_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    with pytest.raises(UserError, match=r"could not load the dataset \(offline mode is set\)"):
        load_questions("hub")


def test_the_therapist_prompt_is_the_seeds_wording() -> None:
    (message,) = therapist_messages("I feel stuck.")
    assert message.role == "user"
    assert message.content.endswith("Patient: I feel stuck.\nTherapist:")
    assert THERAPIST_MAX_TOKENS == 640
    if SEED.is_file():  # the seed text sits beside the checkout in the project workspace
        seed = " ".join(SEED.read_text(encoding="utf-8").split())
        for line in THERAPIST_PROMPT.replace("{question}", "{prompt}").splitlines():
            assert " ".join(line.split()) in seed, line


def test_braces_in_a_question_are_kept_verbatim() -> None:
    (message,) = therapist_messages("what does {this} mean?")
    assert "Patient: what does {this} mean?" in message.content


def test_question_sets_hash_their_content() -> None:
    one = QuestionSet("a", "a", (TherapyQuestion(id="1", question="Q?"),))
    same = QuestionSet("b", "b", (TherapyQuestion(id="1", question="Q?"),))
    other = QuestionSet("a", "a", (TherapyQuestion(id="1", question="Q!"),))
    assert one.sha256 == same.sha256 != other.sha256
    assert one.items[0].messages == therapist_messages("Q?")
