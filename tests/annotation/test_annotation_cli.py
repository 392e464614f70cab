"""``empathybench annotate …``: output, files, and one ``error:`` line with exit 2 for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from empathybench.annotation.session import AnnotationSession
from empathybench.annotation.study import load_key, load_study
from empathybench.cli import main
from tests.annotation.annotation_helpers import answer_like_key, scenarios, write_suite
from tests.fakes.cli_process import run_cli


def run_main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(argv)
        code = 0
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_error(argv: list[str], text: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_main(argv, capsys)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and text in lines[0], err
    assert "Traceback" not in err


def test_init_then_results_writes_the_table_and_files(
    suite_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    study = tmp_path / "study"
    code, out, err = run_main(
        ["annotate", "init", str(suite_path), "-o", str(study), "--n", "4", "--seed", "2"], capsys
    )
    assert code == 0, err
    assert "created" in out and "4 items" in out and "template v1" in out
    assert len(load_study(study).item_ids) == 4
    one_error(["annotate", "results", str(study)], "has no answers yet", capsys)
    with AnnotationSession.open(study) as session:
        answer_like_key(session, load_key(study), "ann")
        answer_like_key(session, load_key(study), "bob")
    code, out, err = run_main(
        ["annotate", "results", str(study), "-o", str(tmp_path / "r")], capsys
    )
    assert code == 0, err
    assert "Fleiss' kappa, emotion: 1.00 (4 items, 8 ratings)" in out  # full agreement
    assert "Fleiss' kappa, help: undefined: every answer is the same" in out  # all "yes"
    assert "flagged: 0 item(s) under 80%" in out and "100%" in out
    report = json.loads((tmp_path / "r" / "results.json").read_text(encoding="utf-8"))
    assert report["answers"] == 8 and report["flagged"] == []
    assert (tmp_path / "r" / "results.csv").is_file() and (tmp_path / "r" / "results.md").is_file()
    code, out, _ = run_main(
        ["annotate", "init", str(suite_path), "-o", str(study), "--n", "4", "--seed", "2"], capsys
    )
    assert code == 0 and "already initialised (unchanged)" in out


def test_bad_input_is_one_error_line(
    study_dir: Path, suite_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nowhere = str(tmp_path / "nowhere")
    one_error(["annotate", "results", nowhere], "no such study directory", capsys)
    one_error(
        ["annotate", "export", nowhere, "--csv", str(tmp_path / "a.csv")], "no such study", capsys
    )
    one_error(
        ["annotate", "init", str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / "s")],
        "no such file or bundled suite",
        capsys,
    )
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    one_error(["annotate", "init", str(empty), "-o", str(tmp_path / "s")], "has no items", capsys)
    v2 = write_suite(tmp_path / "v2.jsonl", scenarios("v2"))
    one_error(["annotate", "init", str(v2), "-o", str(study_dir)], "is template version v2", capsys)
    one_error(
        ["annotate", "init", str(suite_path), "-o", str(study_dir), "--n", "99"],
        "--n 99: the suite has 6 items",
        capsys,
    )
    one_error(
        ["annotate", "results", str(study_dir), "--min-agreement", "1.5"],
        "--min-agreement: must be at most 1, got 1.5",
        capsys,
    )
    (study_dir / "study.json").write_text("{garbled", encoding="utf-8")
    one_error(["annotate", "results", str(study_dir)], "study.json: not valid JSON", capsys)
    (study_dir / "study.json").unlink()
    one_error(
        ["annotate", "results", str(study_dir)], "not an annotation study (no study.json)", capsys
    )
    one_error(
        ["annotate", "init", str(suite_path), "-o", str(study_dir)],
        "not empty and not an annotation study",
        capsys,
    )


def test_import_rejects_bad_rows_with_exit_1_and_a_broken_file_with_exit_2(
    study_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with AnnotationSession.open(study_dir) as session:
        single = next(item for item in session.form.items if not item.is_group)
    rows = tmp_path / "rows.csv"
    rows.write_text(
        "rater_id,item_id,emotion,help\n"
        f"ann,{single.item_id},A,yes\n"
        f"{'x' * 70},{single.item_id},A,yes\n"
        f"bob,{single.item_id},Z,yes\n",
        encoding="utf-8",
    )
    code, out, err = run_main(["annotate", "import", str(study_dir), "--csv", str(rows)], capsys)
    assert code == 1
    assert "added 1, duplicates 0, rejected 2" in out
    assert "rejected line 3: rater id must be 1 to 64 printable characters" in err
    assert "rejected line 4: emotion must be one of A, B, C" in err
    broken = tmp_path / "broken.csv"
    broken.write_text("who,what\n1,2\n", encoding="utf-8")
    one_error(
        ["annotate", "import", str(study_dir), "--csv", str(broken)], "missing column(s)", capsys
    )
    exported = tmp_path / "out.csv"
    code, out, _ = run_main(["annotate", "export", str(study_dir), "--csv", str(exported)], capsys)
    assert code == 0 and "wrote 1 answers" in out
    assert exported.read_text(encoding="utf-8").startswith("study_id,rater_id,item_id,emotion")
    code, out, _ = run_main(["annotate", "export", str(study_dir), "--csv", str(exported)], capsys)
    assert code == 0  # an earlier export is replaced
    study_file = next(p for p in study_dir.iterdir() if p.suffix == ".json")
    before = study_file.read_bytes()
    one_error(
        ["annotate", "export", str(study_dir), "--csv", str(study_file)],
        "exists and is not a CSV export of answers",
        capsys,
    )
    assert study_file.read_bytes() == before


def test_the_real_command_prints_one_error_line(tmp_path: Path) -> None:
    result = run_cli("annotate", "results", str(tmp_path / "nowhere"))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "no such study" in lines[0]
