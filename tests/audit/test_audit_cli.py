"""``empathybench audit`` as users run it: tables, ``--json``, ``-o DIR`` and one-line errors.

One test runs a real child process; the error cases call the console script's ``main`` in
process (the same UserError → ``error:`` line → exit 2 path), which keeps them fast.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from empathybench.audit.results import AUDIT_JSON, AUDIT_MARKDOWN, AuditReport
from empathybench.cli import main
from empathybench.scenarios.generator import generate
from empathybench.scenarios.suites import write_scenarios
from tests.fakes.cli_process import run_cli


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(args)
    captured = capsys.readouterr()
    code = exited.value.code
    return (code if isinstance(code, int) else 0), captured.out, captured.err


def test_json_and_output_folder_in_a_real_process(small_suite_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "audit"
    result = run_cli("audit", str(small_suite_path), "--train-n", "150", "-o", str(out), "--json")
    assert result.returncode == 1, result.stderr  # v1 fails the audit: exit 1, not 2
    report = AuditReport.model_validate_json(result.stdout)
    assert (out / AUDIT_JSON).read_text(encoding="utf-8") == result.stdout
    assert report.n == 30 and report.training.requested == 150 and not report.passed
    assert {q.question for q in report.questions} == {"emotion", "help", "who"}
    markdown = (out / AUDIT_MARKDOWN).read_text(encoding="utf-8")
    assert "**Overall: FAIL**" in markdown and "| ngram |" in markdown
    assert "wrote" in result.stderr and "error:" not in result.stderr


def test_tables(small_suite_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["audit", str(small_suite_path), "--train-n", "150"], capsys)
    assert code == 1, err
    for text in ("emotion: % correct", "first-speaker", "chance", "shortcut audit of"):
        assert text in out
    assert out.rstrip().endswith("audit: FAIL")


def _one_line_error(code: int, err: str, fragment: str) -> None:
    assert code == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), err
    assert "Traceback" not in err
    assert fragment in err


@pytest.fixture(scope="module")
def bad_suites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("bad")
    items = list(generate(4, seed=7, template_version="v1"))
    mixed = [items[0], items[1].model_copy(update={"template_version": "v2"})]
    write_scenarios(folder / "mixed.jsonl", mixed)
    write_scenarios(
        folder / "unknown.jsonl", [s.model_copy(update={"template_version": "v9"}) for s in items]
    )
    write_scenarios(folder / "good.jsonl", items)
    (folder / "latin1.jsonl").write_bytes(b'{"id": "caf\xe9"}\n')
    (folder / "a-folder").mkdir()
    (folder / "a-file").write_text("x", encoding="utf-8")
    return {path.name: path for path in folder.iterdir()}


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["missing.jsonl"], "no such file or bundled suite"),
        (["a-folder"], "is a directory"),
        (["mixed.jsonl"], "mixes template versions"),
        (["unknown.jsonl"], "cannot generate"),
        (["latin1.jsonl"], "not UTF-8"),
        (["good.jsonl", "--train-n", "0"], "--train-n"),
        (["good.jsonl", "--train-n", "-3"], "--train-n"),
        (["good.jsonl", "--train-n", "1000000000"], "200,000"),
        (["good.jsonl", "--train-seed", "7"], "--train-seed"),
        (["good.jsonl", "-o", "a-file"], "takes a folder"),
    ],
)
def test_bad_input_is_one_error_line(
    args: list[str],
    fragment: str,
    bad_suites: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = next(iter(bad_suites.values())).parent
    resolved = [str(folder / a) if a.endswith((".jsonl", "folder", "file")) else a for a in args]
    code, out, err = _run(["audit", *resolved], capsys)
    _one_line_error(code, err, fragment)
    assert out == ""


def test_annotations_flag_items_raters_disagree_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from empathybench.annotation.session import AnnotationSession
    from empathybench.annotation.study import init_study, load_key

    suite_path = tmp_path / "v2.jsonl"
    write_scenarios(suite_path, generate(30, 3, template_version="v2"))
    study = tmp_path / "study"
    init_study(study, str(suite_path))
    key = load_key(study)
    session = AnnotationSession.open(study)
    disputed = key.items[0]
    wrong = "A" if disputed.correct_letter != "A" else "B"
    for rater in ("ana", "ben"):
        for item in key.items[:4]:
            letter = wrong if (rater == "ben" and item is disputed) else item.correct_letter
            help_ = "yes" if item.help_needed else "no"
            session.answer(rater, item.item_id, letter, help_, item.who)
    code, out, _ = _run(
        ["audit", str(suite_path), "--train-n", "300", "--annotations", str(study)], capsys
    )
    assert code in (0, 1)
    assert disputed.item_id in out and "emotion 0.50 < 0.80" in out
    assert "1 flagged" in out
    other = tmp_path / "other.jsonl"
    write_scenarios(other, generate(30, 4, template_version="v2"))
    code, _, err = _run(["audit", str(other), "--annotations", str(study)], capsys)
    _one_line_error(code, err, "not the audited one")
