"""No command writes over what it did not make (unless --force)."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.cli_process import run_cli


def test_an_empty_run_dir_is_refused(tmp_path: Path) -> None:
    (tmp_path / "summary.json").write_text("mine")
    result = run_cli("run", "--model", "mock/a", "--run-dir", "", "--no-progress", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("error: --run-dir is empty")
    assert (tmp_path / "summary.json").read_text() == "mine"


def test_a_folder_that_holds_no_run_is_not_written_unless_forced(
    tmp_path: Path, small_suite_path: Path
) -> None:
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "summary.json").write_text("mine")
    args = ("run", "--suite", str(small_suite_path), "--model", "mock/a", "--no-judge")
    refused = run_cli(*args, "--run-dir", str(folder), "--no-progress", "--limit", "2")
    assert refused.returncode == 2 and "holds no run" in refused.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["summary.json"]
    forced = run_cli(*args, "--run-dir", str(folder), "--no-progress", "--limit", "2", "--force")
    assert forced.returncode == 0, forced.stderr
    assert (folder / "manifest.json").is_file()


def test_files_of_another_kind_are_not_replaced(run_dir: Path, tmp_path: Path) -> None:
    responses = run_dir / "responses.jsonl"
    manifest = run_dir / "manifest.json"
    before = responses.read_bytes(), manifest.read_bytes()
    generated = run_cli("generate", "--n", "3", "-o", str(responses))
    assert generated.returncode == 2 and "is not a suite" in generated.stderr
    questions = run_cli("therapy", "questions", "sample-v1", "--limit", "2", "--out", str(manifest))
    assert questions.returncode == 2 and "is not a question set" in questions.stderr
    assert (responses.read_bytes(), manifest.read_bytes()) == before
    # the same kind is replaced as before
    suite = tmp_path / "suite.jsonl"
    assert run_cli("generate", "--n", "3", "-o", str(suite)).returncode == 0
    assert run_cli("generate", "--n", "4", "-o", str(suite)).returncode == 0
    assert suite.read_text().count("\n") == 4


def test_report_outputs_are_not_written_into_foreign_folders(run_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "todo.txt").write_text("mine")
    for command in (["leaderboard"], ["item-analysis"], ["report"]):
        result = run_cli(*command, str(run_dir), "-o", str(folder))
        assert result.returncode == 2, (command, result.stderr)
        assert "holds no" in result.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["todo.txt"]
