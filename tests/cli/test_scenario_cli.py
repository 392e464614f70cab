"""The scenario commands as a user runs them: a real process, exit codes, one-line errors."""

import json
import subprocess
from pathlib import Path

import pytest

from empathybench.scenarios.templates import DEFAULT_TEMPLATE_VERSION
from tests.fakes.cli_process import run_cli


def assert_one_line_error(result: subprocess.CompletedProcess[str], fragment: str) -> None:
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines and lines[0].startswith("error:"), result.stderr
    assert fragment in result.stderr


def test_generate_validate_show_round_trip(tmp_path: Path) -> None:
    out = tmp_path / "set.jsonl"
    result = run_cli("generate", "--n", "50", "--seed", "3", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "wrote 50 scenarios" in result.stdout
    assert run_cli("validate", str(out)).returncode == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    # without --template-version: the newest version, not v1
    assert {record["template_version"] for record in records} == {DEFAULT_TEMPLATE_VERSION}
    first_id = records[0]["id"]
    shown = run_cli("show", str(out), first_id)
    assert shown.returncode == 0
    assert "EMOTION:" in shown.stdout and "hidden emotion" in shown.stdout


def test_generate_respects_kinds(tmp_path: Path) -> None:
    out = tmp_path / "crisis.jsonl"
    assert (
        run_cli("generate", "--n", "9", "--kinds", "crisis=1,group=2", "-o", str(out)).returncode
        == 0
    )
    kinds = [json.loads(line)["kind"] for line in out.read_text().splitlines()]
    assert kinds.count("crisis") == 3 and kinds.count("group") == 6


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("generate", "--n", "0"), "at least 1"),
        (("generate", "--n", "10", "--kinds", "nonsense"), "unknown kind"),
        (("generate", "--n", "10", "--kinds", "crisis=x"), "not a number"),
        (("generate", "--n", "9" * 17, "--kinds", "crisis"), "at most"),
        (("validate", "does-not-exist.jsonl"), "no such file"),
        (("show", "no-such-suite", "x"), "no such file or bundled suite"),
        (("show", "standard-v1", "not-an-id"), "no scenario"),
    ],
)
def test_bad_input_gives_one_error_line(
    tmp_path: Path, args: tuple[str, ...], fragment: str
) -> None:
    assert_one_line_error(run_cli(*args, cwd=tmp_path), fragment)
    assert not (tmp_path / "scenarios.jsonl").exists()


def test_show_reports_a_malformed_line_by_number(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"schema_version": 1}\n')
    assert_one_line_error(run_cli("show", str(bad), "x"), "bad.jsonl:1")


def test_validate_reports_problems_with_exit_code_one(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    result = run_cli("validate", str(bad))
    assert result.returncode == 1
    assert "line 1" in result.stdout


def test_suites_lists_standard_v1_with_a_verified_hash() -> None:
    result = run_cli("suites")
    assert result.returncode == 0
    assert "standard-v1" in result.stdout and "ok" in result.stdout


def test_space_reports_more_than_a_million() -> None:
    result = run_cli("space")
    assert result.returncode == 0
    assert f"template {DEFAULT_TEMPLATE_VERSION}" in result.stdout
    total = next(line for line in result.stdout.splitlines() if line.startswith("│ all "))
    assert float(total.split("│")[-2].strip().replace(",", "")) > 1_000_000


def test_error_text_with_brackets_is_printed_literally(tmp_path: Path) -> None:
    result = run_cli("run", "--model", "local/[not]-a-path", cwd=tmp_path)
    assert result.returncode == 2
    assert "[not]" in result.stderr
