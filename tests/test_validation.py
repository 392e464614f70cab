"""The parameter checks name the library parameter; the CLI shows it as the user's flag."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from empathybench.cli import app
from empathybench.errors import ParameterError
from empathybench.models.base import GenerationParams
from empathybench.validation import (
    check_count,
    check_directory_target,
    check_exclusive,
    check_existing_file,
    check_file_target,
    check_number,
    check_url,
    validated,
)


@pytest.mark.parametrize(
    ("call", "problem"),
    [
        (lambda: check_number("top_p", float("nan"), maximum=1), "finite"),
        (lambda: check_number("rpm", 0.0, above=0), "greater than 0"),
        (lambda: check_count("max_tokens", 0), "at least 1"),
        (lambda: check_count("n", 11, maximum=10), "at most 10"),
        (lambda: check_url("base_url", "notaurl"), r"not an http\(s\) URL"),
        (lambda: check_url("base_url", "http://host:99999/v1"), "not a URL"),
        (lambda: validated(GenerationParams, temperature=3.0), "less than or equal to 2"),
    ],
)
def test_a_refused_value_names_its_parameter(call: object, problem: str) -> None:
    with pytest.raises(ParameterError, match=problem) as raised:
        call()  # type: ignore[operator]
    assert str(raised.value).startswith(raised.value.parameters[0] + ": ")


def test_paths_of_the_wrong_kind(tmp_path: Path) -> None:
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    with pytest.raises(ParameterError, match="is a folder"):
        check_file_target("output", tmp_path)
    with pytest.raises(ParameterError, match="is a file, not a folder"):
        check_file_target("output", plain / "child.jsonl")
    with pytest.raises(ParameterError, match="is a file; give a folder"):
        check_directory_target("run_dir", plain)
    with pytest.raises(ParameterError, match="no such file"):
        check_existing_file("prices", tmp_path / "missing.json")
    check_file_target("output", tmp_path / "new" / "file.jsonl")  # new: fine
    check_directory_target("run_dir", tmp_path / "new-run")


def test_exclusive_parameters_are_named_together() -> None:
    check_exclusive({"judge": False, "no_judge": True})
    with pytest.raises(ParameterError) as raised:
        check_exclusive({"judge": True, "no_judge": True})
    assert raised.value.parameters == ("judge", "no_judge")


def test_the_cli_shows_a_library_parameter_as_its_flag(tmp_path: Path) -> None:
    """``requests_per_minute`` (checked by the runner) is ``--rpm`` on the command line."""
    (tmp_path / "plain.txt").write_text("x")
    result = CliRunner().invoke(
        app, ["generate", "--n", "3", "-o", str(tmp_path / "plain.txt" / "x.jsonl")]
    )
    assert result.exit_code == 2
    assert result.output.startswith("error: --output: ")
    runner_error = ParameterError.about("requests_per_minute", "must be greater than 0, got 0")
    from typer.main import get_command

    from empathybench.cli.errors import user_error_text

    run = get_command(app).commands["run"]  # type: ignore[attr-defined]
    assert user_error_text(runner_error, run) == "--rpm: must be greater than 0, got 0"
    assert (
        user_error_text(ParameterError.about("output", "x"), get_command(app).commands["generate"])
        == "--output: x"
    )  # type: ignore[attr-defined]
