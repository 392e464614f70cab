"""The Python API: re-exported, light to import, typed, and the same stages as the CLI."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import empathybench as eb
from empathybench.cli import error_message, main
from empathybench.runtime.run_store import RunStore
from empathybench.scenarios.templates import DEFAULT_TEMPLATE_VERSION

HEAVY = ("typer", "rich", "gradio", "torch", "transformers")


def test_import_loads_no_cli_ui_or_torch() -> None:
    code = (
        "import sys, empathybench as eb\n"
        f"heavy = {HEAVY!r}\n"
        "assert not [m for m in heavy if m in sys.modules], sys.modules.keys() & set(heavy)\n"
        "for name in eb.__all__:\n"
        "    getattr(eb, name)\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"  # not even after every public name is loaded


def test_report_stays_the_function_after_its_subpackage_is_imported() -> None:
    import empathybench.report.run_report  # noqa: F401

    assert callable(eb.report) and eb.report.__module__ == "empathybench.api.summaries"


def test_run_judge_summarize_report(tmp_path: Path) -> None:
    suite = eb.generate_suite(n=10, seed=5)
    assert {s.template_version for s in suite.scenarios} == {DEFAULT_TEMPLATE_VERSION}
    run = eb.run(suite, model="mock/echo", run_dir=tmp_path / "run", judges=[], cache=False)
    assert run.complete and run.calls_made == 10 and run.judging is None
    assert os.fspath(run) == str(tmp_path / "run")
    manifest = RunStore(run.directory).read_manifest()
    assert manifest.suite.sha256 == suite.sha256  # the in-memory suite, written into the run
    assert Path(manifest.suite.source) == (tmp_path / "run" / "suite.jsonl").resolve()

    before = eb.summarize(run)
    assert not any(d.judged for d in before.dimensions if d.dimension == "cheering_up")

    judged = eb.judge(run, judges=["mock/judge"], cache=False)
    assert judged.judged == 10 and judged.skipped == 0
    assert eb.judge(run, judges=["mock/judge"], cache=False).skipped == 10  # resumable

    summary = eb.summarize(run)
    assert summary.judges == ["mock/judge"] and summary.responses == 10
    by_name = {d.dimension: d for d in summary.dimensions}
    assert by_name["cheering_up"].judged and by_name["cheering_up"].scored > 0
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["run_id"] == summary.run_id

    files = eb.report([run], out=tmp_path / "report")
    assert (tmp_path / "report" / "report.html").is_file() and files.runs[0].summary == summary


def test_resume_continues_with_the_recorded_settings(tmp_path: Path) -> None:
    suite = eb.generate_suite(n=6, seed=2, path=tmp_path / "s.jsonl")
    first = eb.run(suite, model="mock/echo", run_dir=tmp_path / "r", judges=[], limit=4)
    again = eb.resume(tmp_path / "r", judges=[])
    assert (first.calls_made, again.calls_made, again.skipped) == (4, 0, 4)


def test_progress_reaches_the_total_and_async_twins_await(tmp_path: Path) -> None:
    updates: list[eb.ProgressUpdate] = []

    async def main_() -> eb.RunOutcome:
        run = await eb.run_async(
            eb.generate_suite(n=5, seed=9),
            model="mock/echo",
            run_dir=tmp_path / "a",
            judges=[],
            progress=updates.append,
        )
        await eb.judge_async(run, judges=["mock/judge"], progress=updates.append)
        return run

    asyncio.run(main_())
    answering = [u for u in updates if u.task == "answering with mock/echo"]
    judging = [u for u in updates if u.task == "judging with mock/judge"]
    assert (answering[0].completed, answering[-1].completed, answering[-1].total) == (0, 5, 5)
    assert judging[-1].completed == judging[-1].total == 5


def test_the_blocking_call_works_inside_a_running_loop(tmp_path: Path) -> None:
    async def notebook_cell() -> eb.RunOutcome:
        return eb.run(
            eb.generate_suite(n=3, seed=1), model="mock/echo", run_dir=tmp_path, judges=[]
        )

    assert asyncio.run(notebook_cell()).complete


def test_errors_name_the_parameter_and_the_cli_its_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(eb.ParameterError) as raised:
        eb.run("standard-v1", model="mock/echo", run_dir=tmp_path / "x", limit=0)
    assert raised.value.parameter == "limit"
    assert str(raised.value) == "limit must be a positive number, got 0"
    assert error_message(raised.value) == "--limit must be a positive number, got 0"
    assert not (tmp_path / "x").exists()  # refused before anything is written

    with pytest.raises(SystemExit) as exited:
        main(["run", "--model", "mock/echo", "--limit", "0", "--run-dir", str(tmp_path / "y")])
    assert exited.value.code == 2
    # the command checks its flags first (validation.check_count), naming the flag too
    assert capsys.readouterr().err.strip() == "error: --limit: must be at least 1, got 0"
    assert not (tmp_path / "y").exists()


def test_a_self_judge_is_refused_before_any_answer(tmp_path: Path) -> None:
    with pytest.raises(eb.UserError, match="same family"):
        eb.run(
            eb.generate_suite(n=3, seed=1),
            model="mock/echo",
            run_dir=tmp_path / "r",
            judges=["mock/echo-judge"],
        )
    assert not (tmp_path / "r" / "responses.jsonl").exists()


def test_the_package_ships_its_type_marker() -> None:
    from importlib import resources

    assert resources.files("empathybench").joinpath("py.typed").is_file()


USER_SCRIPT = """
import empathybench as eb

suite: eb.Suite = eb.generate_suite(n=4, seed=1)
run: eb.RunOutcome = eb.run(suite, model="mock/echo", run_dir="runs/t", judges=[])
summary: eb.RunSummary = eb.summarize(run)
overall: float | None = summary.overall.mean
names: list[str] = [d.dimension for d in summary.dimensions]
"""

BAD_SCRIPT = USER_SCRIPT + "wrong: str = summary.overall.mean\n"


@pytest.mark.slow
def test_mypy_strict_checks_a_user_script(tmp_path: Path) -> None:
    src = Path(eb.__file__).resolve().parents[1]
    env = {**os.environ, "MYPYPATH": str(src)}
    results = {}
    for name, text in (("good.py", USER_SCRIPT), ("bad.py", BAD_SCRIPT)):
        (tmp_path / name).write_text(text)
        results[name] = subprocess.run(
            [
                sys.executable,
                "-m",
                "mypy",
                "--strict",
                "--follow-imports=silent",
                "--cache-dir",
                str(tmp_path / ".mypy"),
                str(tmp_path / name),
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
    assert results["good.py"].returncode == 0, results["good.py"].stdout
    assert results["bad.py"].returncode == 1 and "bad.py:9" in results["bad.py"].stdout
