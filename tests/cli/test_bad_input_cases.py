"""Cases of issue 15 that the fuzz test does not reach by type alone (in-process CLI)."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from empathybench.cli import app
from empathybench.errors import UserError
from empathybench.runtime.run_store import RunStore
from empathybench.therapy.questions import load_questions


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def test_report_on_a_run_without_responses_is_an_error(run_dir: Path, tmp_path: Path) -> None:
    empty = tmp_path / "no-responses"
    shutil.copytree(run_dir, empty)
    (empty / "responses.jsonl").unlink()
    code, output = _cli("report", str(empty))
    assert code == 2 and "has no responses yet" in output


def test_generate_refuses_an_absurd_n_before_allocating(tmp_path: Path) -> None:
    code, output = _cli("generate", "--n", "100000000000", "-o", str(tmp_path / "s.jsonl"))
    assert code == 2 and output.startswith("error: --n: must be at most")
    assert not (tmp_path / "s.jsonl").exists()


def test_a_suite_with_a_duplicate_id_is_refused(small_suite_path: Path, tmp_path: Path) -> None:
    lines = small_suite_path.read_text().splitlines()
    duplicated = tmp_path / "dup.jsonl"
    duplicated.write_text("\n".join([*lines, lines[0]]) + "\n")
    code, output = _cli(
        "run", "--suite", str(duplicated), "--model", "mock/t", "--no-judge", "--no-progress",
        "--run-dir", str(tmp_path / "r"),
    )  # fmt: skip
    assert code == 2 and f"dup.jsonl:{len(lines) + 1}: duplicate scenario id" in output
    assert not (tmp_path / "r").exists()


def test_a_csv_field_over_the_default_limit_is_read(tmp_path: Path) -> None:
    path = tmp_path / "questions.csv"
    path.write_text('question,answer\n"' + "x" * 200_000 + '",y\n')
    [question] = load_questions(str(path)).questions
    assert len(question.question) == 200_000


def test_an_unreachable_hub_fails_at_once_without_retries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    datasets = pytest.importorskip("datasets")

    def no_network(*args: object, **kwargs: object) -> socket.socket:
        raise OSError(-2, "Name or service not known")

    def must_not_be_called(*args: object, **kwargs: object) -> None:
        raise AssertionError("load_dataset retries a missing network; it must not be reached")

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(datasets, "load_dataset", must_not_be_called)
    with pytest.raises(UserError, match="the hub cannot be reached"):
        load_questions("hub:someone/dataset")


def test_an_output_that_is_one_of_the_inputs_is_refused_untouched(tmp_path: Path) -> None:
    """Found by a bad-input sweep: these replaced (or cut short) their own input file."""
    from empathybench.scorer.empathy_data import BUNDLED_EMPATHY_LABELS, load_empathy_labels

    labels = tmp_path / "labels.jsonl"
    records = load_empathy_labels(BUNDLED_EMPATHY_LABELS).records[:40]
    labels.write_text("".join(r.model_dump_json() + "\n" for r in records), encoding="utf-8")
    questions = tmp_path / "questions.jsonl"
    questions.write_text(
        "".join(f'{{"id": "q{i}", "question": "How do I cope, part {i}?"}}\n' for i in range(3)),
        encoding="utf-8",
    )
    cases = [
        (labels, ("scorer", "robustness", "--data", str(labels), "-o", str(labels))),
        (labels, ("scorer", "eval", "--data", str(labels), "-o", str(labels))),
        (questions, ("therapy", "questions", str(questions), "--out", str(questions))),
    ]
    for path, args in cases:
        before = path.read_bytes()
        code, output = _cli(*args, "--force") if args[0] == "scorer" else _cli(*args)
        assert code == 2 and "is also an input of this command" in output, (args, output)
        assert path.read_bytes() == before
    other = tmp_path / "notes.txt"
    other.write_text("keep me\n", encoding="utf-8")
    code, output = _cli("scorer", "robustness", "--data", str(labels), "-o", str(other))
    assert code == 2 and "exists and is not a JSON results file" in output
    assert other.read_text(encoding="utf-8") == "keep me\n"


@pytest.mark.parametrize(
    ("kinds", "fragment"),
    [
        ("emotion_support=inf", "must be a number up to"),
        ("emotion_support=nan", "must be a number up to"),
        ("emotion_support=1e30", "must be a number up to"),
        ("crisis,crisis", "given twice"),
        ("", "--kinds is empty"),
    ],
)
def test_kind_weights_that_are_not_usable_numbers_are_refused(
    kinds: str, fragment: str, tmp_path: Path
) -> None:
    code, output = _cli("generate", "--n", "2", "--kinds", kinds, "-o", str(tmp_path / "s.jsonl"))
    assert code == 2 and output.startswith("error:") and fragment in output, output
    assert not (tmp_path / "s.jsonl").exists()


def test_a_path_the_system_refuses_and_a_non_utf8_argument_are_one_line_each(
    tmp_path: Path,
) -> None:
    """An OSError naming a path (a folder that cannot be made) and an argument whose bytes
    are not UTF-8 (kept as surrogates, which no text encodes) came out as tracebacks."""
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    target = blocker / "sub" / "s.jsonl"  # its parent would have to be made inside a file
    code, output = _cli("generate", "--n", "2", "-o", str(target))
    assert code == 2 and output.startswith("error:") and str(blocker) in output, output
    assert output.count("\n") == 1
    code, output = _cli("score", "ab\udcff")
    assert code == 2 and "not valid UTF-8" in output and output.count("\n") == 1, output


def test_a_corrupt_head_file_is_one_error_line(tmp_path: Path) -> None:
    from empathybench.scorer.empathy_scorer import bundled_head_dir

    head = tmp_path / "head"
    shutil.copytree(bundled_head_dir("empathy-v4"), head)
    weights = head / "head.safetensors"
    weights.write_bytes(weights.read_bytes()[:100])  # a copy cut short
    code, output = _cli("score", "hello", "--head", str(head))
    assert code == 2 and output.startswith("error:") and "head.safetensors" in output, output
    assert output.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("--alphas", "nan"), "--alphas"),
        (("--alphas", "0,inf"), "--alphas"),
        (("--temperature", "-1"), "--temperature"),
        (("--top-p", "2"), "--top-p"),
        (("--max-new-tokens", str(10**30)), "--max-new-tokens"),
        (("--batch-size", "0"), "--batch-size"),
    ],
)
def test_steering_settings_out_of_range_are_refused_before_loading(
    args: tuple[str, ...], fragment: str, tmp_path: Path
) -> None:
    code, output = _cli("probe", "steer", "--probe", str(tmp_path / "nowhere"), *args)
    assert code == 2 and output.startswith("error:") and fragment in output, output


def test_probe_baseline_counts_and_seed_are_checked(tmp_path: Path) -> None:
    for args in (("--seed", "-1"), ("--permutations", str(10**30)), ("--random-directions", "0")):
        code, output = _cli("probe", "eval", "--probe", str(tmp_path / "nowhere"), *args)
        assert code == 2 and output.startswith(f"error: {args[0]}:"), (args, output)


def test_reports_never_write_into_another_tools_folder(tmp_path: Path) -> None:
    """Found by a bad-input sweep: these wrote their files into a run folder (one replaced
    the run's results.md)."""
    run_folder = tmp_path / "run"
    run_folder.mkdir()
    (run_folder / "manifest.json").write_text("{}", encoding="utf-8")
    (run_folder / "results.md").write_text("the run's own report\n", encoding="utf-8")
    study = tmp_path / "study"
    study.mkdir()
    for args in (
        ("audit", "standard-v4", "-o", str(run_folder)),
        ("annotate", "results", str(study), "--out", str(run_folder)),
        ("therapy", "report", "--study", str(study), "--out", str(run_folder)),
    ):
        code, output = _cli(*args)
        assert code == 2 and "is not empty and holds no" in output, (args, output)
    assert sorted(p.name for p in run_folder.iterdir()) == ["manifest.json", "results.md"]
    assert (run_folder / "results.md").read_text(encoding="utf-8") == "the run's own report\n"


def test_the_web_app_on_a_port_in_use_is_one_error_line(tmp_path: Path) -> None:
    pytest.importorskip("gradio")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, output = _cli(
            "ui", "--host", "127.0.0.1", "--port", str(port), "--runs", str(tmp_path)
        )
    assert code == 2 and output.startswith("error: cannot serve the web app"), output


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["audit", "--n", "abc"], "error: empathybench audit: No such option: --n"),
        (["generate", "--n", "abc"], "error: empathybench generate: Invalid value for '--n'"),
        (["run", "--bogus"], "error: empathybench run: No such option: --bogus"),
        (["scorer", "eval", "--resamples", "5"], "error: empathybench scorer eval: Invalid value"),
        (["nonsense"], "error: empathybench: No such command 'nonsense'"),
        (["--bogus"], "error: empathybench: No such option: --bogus"),
        (["generate", "--n"], "error: empathybench generate: Option '--n' requires an argument"),
        (["scorer", "eval", "--head"], "error: empathybench scorer eval: Option '--head' requires"),
        (["annotate", "results"], "error: empathybench annotate results: Missing"),
    ],
)
def test_an_option_the_parser_refuses_is_one_error_line(args: list[str], expected: str) -> None:
    """Click's usage errors (unknown options, values of the wrong type, missing arguments)
    are one ``error:`` line naming the command and where to read its help, as every other
    mistake is, not a usage block in a box."""
    code, output = _cli(*args)
    assert code == 2
    assert output.startswith(expected), output
    assert output.count("\n") == 1 and "--help" in output, output


@pytest.mark.parametrize(
    "command",
    [
        ["run", "--model", "mock/t", "--no-judge", "--no-progress", "--suite"],
        ["export", "hf", "-o", "OUT"],
        ["audit"],
    ],
)
def test_an_empty_suite_file_is_refused_by_every_command(
    tmp_path: Path, command: list[str]
) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    args = [str(tmp_path / "out") if a == "OUT" else a for a in command]
    code, output = _cli(*args, str(empty))
    assert code == 2 and output.startswith(f"error: {empty}: has no items"), output
    assert not (tmp_path / "out").exists()


def test_resume_refuses_settings_it_would_ignore(small_suite_path: Path, tmp_path: Path) -> None:
    """``--resume`` keeps the run's recorded model, suite and settings: given again they
    would be silently ignored (a different --model answered nothing), so they are refused
    before the run is touched."""
    run_dir = tmp_path / "r"
    code, _ = _cli(
        "run", "--suite", str(small_suite_path), "--model", "mock/t", "--no-judge",
        "--no-progress", "--run-dir", str(run_dir),
    )  # fmt: skip
    assert code == 0
    before = {p.name: p.read_bytes() for p in run_dir.iterdir()}
    code, output = _cli("run", "--resume", str(run_dir), "--model", "mock/other", "--limit", "2")
    assert code == 2
    assert output.startswith("error: --resume continues the run with the settings it was")
    assert "leave out --model, --limit" in output
    assert {p.name: p.read_bytes() for p in run_dir.iterdir()} == before
    code, output = _cli("run", "--resume", str(run_dir), "--no-progress", "--no-cache")
    assert code == 0, output
    # Pacing is not a setting of the run: a resumed run takes a new one.
    code, output = _cli(
        "run", "--resume", str(run_dir), "--rpm", "120", "--max-connections", "3",
        "--no-progress", "--no-cache",
    )  # fmt: skip
    assert code == 0, output
    manifest = RunStore(run_dir).read_manifest()
    assert (manifest.requests_per_minute, manifest.max_connections) == (120, 3)


def test_a_command_group_without_a_subcommand_prints_its_help_and_no_empty_error() -> None:
    code, output = _cli("scorer")
    assert code == 2 and "Usage: empathybench scorer" in output
    assert "error:" not in output, output


def test_an_empty_suite_object_is_refused_by_the_python_api(tmp_path: Path) -> None:
    import empathybench as eb
    from empathybench.records import Suite

    empty = Suite(name="nothing", sha256="0" * 64, scenarios=())
    with pytest.raises(UserError, match="nothing has no items"):
        eb.run(empty, model="mock/t", judges=[], run_dir=tmp_path / "r")
    assert not (tmp_path / "r").exists()
