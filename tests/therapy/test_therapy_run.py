import json
from pathlib import Path

from empathybench.runtime.run_store import RunStore
from empathybench.therapy.prompt import THERAPIST_PROMPT_VERSION
from empathybench.therapy.study import HUMAN, Study
from tests.fakes.cli_process import run_cli


def therapy_run(study: Path, *args: str) -> tuple[int, str, str]:
    result = run_cli("therapy", "run", "--study", str(study), "--no-progress", *args)
    return result.returncode, result.stdout, result.stderr


def test_a_model_answers_the_questions_under_the_therapist_prompt(tmp_path: Path) -> None:
    study = tmp_path / "study"
    code, out, err = therapy_run(
        study, "--model", "mock/alpha", "--questions", "sample-v1", "--limit", "5"
    )
    assert code == 0, err
    opened = Study(study)
    run_dir = opened.run_dir("mock/alpha")
    manifest = RunStore(run_dir).read_manifest()
    assert manifest.track == "therapy"
    assert manifest.prompt_version == THERAPIST_PROMPT_VERSION
    assert manifest.model.params.max_tokens == 640  # the seed's limit
    assert manifest.suite.sha256 == opened.info().questions_sha256
    responses = RunStore(run_dir).latest_responses()
    assert sorted(key[0] for key in responses) == [f"q00{i}" for i in range(1, 6)]
    assert all(r.ok and "EMOTION" not in (r.text or "") for r in responses.values())
    assert opened.sources() == [HUMAN, "mock/alpha"]
    answers = opened.answers()
    assert len(answers[HUMAN]) == 5 and len(answers["mock/alpha"]) == 5

    # Running again resumes: nothing is asked twice.
    code, out, _ = therapy_run(study, "--model", "mock/alpha")
    assert code == 0
    assert "5 already done before this call; 0 model calls" in " ".join(out.split())

    # A second model joins the same study without repeating --questions.
    code, _, err = therapy_run(study, "--model", "mock/beta")
    assert code == 0, err
    assert Study(study).sources() == [HUMAN, "mock/alpha", "mock/beta"]


def test_mistakes_are_one_error_line(tmp_path: Path) -> None:
    study = tmp_path / "study"
    assert (
        therapy_run(study, "--model", "mock/a", "--questions", "sample-v1", "--limit", "2")[0] == 0
    )
    code, _, err = therapy_run(
        study, "--model", "mock/a", "--questions", "sample-v1", "--limit", "3"
    )
    assert code == 2
    assert err.count("\n") == 1 and "already holds a study of other questions" in err
    code, _, err = therapy_run(tmp_path / "x", "--questions", str(tmp_path / "none.csv"))
    assert code == 2 and "no such file" in err and "Traceback" not in err
    # Benchmark commands refuse a therapy run with a pointer to the right command.
    result = run_cli("report", str(Study(study).run_dir("mock/a")))
    assert result.returncode == 2
    assert "therapy" in result.stderr and "Traceback" not in result.stderr


def test_a_changed_question_file_is_detected(tmp_path: Path) -> None:
    study = tmp_path / "study"
    assert (
        therapy_run(study, "--model", "mock/a", "--questions", "sample-v1", "--limit", "2")[0] == 0
    )
    path = study / "questions.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[0])
    record["question"] += " (edited)"
    path.write_text("\n".join([json.dumps(record), *lines[1:]]) + "\n", encoding="utf-8")
    code, _, err = therapy_run(study, "--model", "mock/a")
    assert code == 2 and "changed since the study was made" in err
