"""``empathybench import-results``: the original tester's results become a run folder whose
responses can be judged again beside the published scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from empathybench.analysis.summary import build_run_summary
from empathybench.original.results import import_results, names_from_file
from empathybench.runtime.run_store import RunStore
from tests.fakes.cli_process import run_cli
from tests.fakes.original_benchmark import (
    SCORE_KEYS,
    original_items,
    original_results,
    write_original_items,
    write_original_results,
)


@pytest.fixture
def results_file(tmp_path: Path) -> Path:
    return write_original_results(tmp_path, original_items(8))


def test_file_names_say_model_and_judge() -> None:
    assert names_from_file(
        Path("baseline_results_mistralai_mistral-7b_eval_openai_gpt-4o.json")
    ) == (
        "mistralai_mistral-7b",
        "openai_gpt-4o",
    )
    assert names_from_file(Path("baseline_results_meta_llama.json")) == ("meta_llama", None)
    assert names_from_file(Path("results.json")) == (None, None)


def test_import_keeps_every_response_and_score(results_file: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    imported = import_results(results_file, run_dir)
    raw = json.loads(results_file.read_text())
    store = RunStore(run_dir)
    manifest = store.read_manifest()
    assert manifest.suite.origin == "original-benchmark" and manifest.status == "complete"
    assert manifest.model.provider == "original-results"
    responses = store.latest_responses()
    assert {k[0]: r.text for k, r in responses.items()} == {
        item_id: entry["model_response"] for item_id, entry in raw.items()
    }
    assert imported.judge == "original/openai_gpt-4o"
    verdicts = store.verdicts(imported.judge).latest()
    assert len(verdicts) == 8
    for (item_id, _), verdict in verdicts.items():
        scores = raw[item_id]["scores"]
        assert json.loads(verdict.raw_outputs[0]) == scores
        for dimension, score in verdict.scores.items():
            if score.status == "scored":
                assert score.value == scores[dimension]
            else:
                assert score.status == "na"
    # The tester's own arithmetic: every entry, all six keys.
    for key in SCORE_KEYS:
        expected = sum(entry["scores"][key] for entry in raw.values()) / len(raw)
        assert imported.published[key] == pytest.approx(expected)
    summary = build_run_summary(run_dir, write=False)
    assert summary.judges == ["original/openai_gpt-4o"] and summary.responses == 8


def test_imported_responses_are_judged_again_side_by_side(
    results_file: Path, tmp_path: Path
) -> None:
    run_dir = tmp_path / "run"
    first = run_cli("import-results", str(results_file), "--run-dir", str(run_dir))
    assert first.returncode == 0, first.stderr
    assert "as the original tester computes it" in first.stdout
    again = run_cli("judge", str(run_dir), "--judge", "mock/judge", "--no-progress")
    assert again.returncode == 0, again.stderr
    summary = build_run_summary(
        run_dir, write=False, judges=["original/openai_gpt-4o", "mock/judge"]
    )
    assert set(summary.per_judge) == {"original/openai_gpt-4o", "mock/judge"}
    for judge in summary.per_judge.values():
        assert judge["emotion_recognition"] is not None
    # The very same responses were judged: no model was called again.
    assert len(RunStore(run_dir).read_responses()) == 8


def test_a_given_item_file_is_used_and_checked(tmp_path: Path) -> None:
    items = original_items(8)
    suite = write_original_items(tmp_path / "benchmark_generated_8_scenarios.json", 8)
    results = write_original_results(tmp_path, items[:5])
    imported = import_results(results, tmp_path / "run", suite_path=suite)
    manifest = RunStore(tmp_path / "run").read_manifest()
    assert imported.items == 8 and imported.responses == 5
    assert manifest.status == "incomplete" and manifest.suite.source == str(suite.resolve())
    other = write_original_items(tmp_path / "other.json", 2)
    bad = run_cli("import-results", str(results), "--suite", str(other), "--run-dir",
                  str(tmp_path / "run2"))  # fmt: skip
    assert bad.returncode == 2 and "not in" in bad.stderr
    assert not (tmp_path / "run2").exists()


def test_unscored_results_import_without_a_judge(tmp_path: Path) -> None:
    path = write_original_results(tmp_path, original_items(4), judge=None, scored=False)
    imported = import_results(path, tmp_path / "run")
    assert imported.judge is None and imported.published == {}
    assert RunStore(tmp_path / "run").read_manifest().judges == []


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("baseline_results_m_eval_j.json", "[]", "item list, not a results"),
        ("baseline_results_m_eval_j.json", '{"A": {"text": "hi"}}', "holds no model_response"),
        ("baseline_results_m_eval_j.json", "{}", "expected the original tester's results"),
        ("baseline_results_m_eval_j.json", "not json", "not valid JSON"),
        ("baseline_results_m_eval_j.json", "\udcff", "not UTF-8"),
        ("results.json", json.dumps(original_results(original_items(2))), "does not say the model"),
        ("missing.json", None, "no such file"),
    ],
)
def test_bad_results_files_get_one_error_line(
    tmp_path: Path, name: str, content: str | None, message: str
) -> None:
    path = tmp_path / name
    if content == "\udcff":
        path.write_bytes(b'{"A": "\xff\xfe"}')
    elif content is not None:
        path.write_text(content)
    result = run_cli("import-results", str(path), "--run-dir", str(tmp_path / "run"))
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0], lines
    assert not (tmp_path / "run" / "manifest.json").exists()


def test_never_writes_into_a_run_that_exists(results_file: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "summary.json").write_text("{}")
    result = run_cli("import-results", str(results_file), "--run-dir", str(run_dir))
    assert result.returncode == 2 and "not empty" in result.stderr
    assert (run_dir / "summary.json").read_text() == "{}"
