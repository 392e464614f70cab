"""Answers as CSV: formula-safe export, re-import, and per-row checks with line numbers."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from empathybench.annotation.csv_io import export_answers_csv, import_answers_csv
from empathybench.annotation.session import AnnotationSession
from empathybench.annotation.study import init_study, load_key
from empathybench.errors import UserError
from tests.annotation.annotation_helpers import answer_like_key


def test_export_is_formula_safe_and_reimports_unchanged(
    study_dir: Path, suite_path: Path, tmp_path: Path
) -> None:
    key = load_key(study_dir)
    with AnnotationSession.open(study_dir) as session:
        answer_like_key(session, key, "=cmd|' /c calc'!A1")
        answer_like_key(session, key, "bob")
        answers = session.store.answers(session.study_id)
    path = tmp_path / "answers.csv"
    export_answers_csv(answers, path)
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 12 and rows[0]["rater_id"].startswith("'=")
    copy = tmp_path / "copy"
    init_study(copy, str(suite_path), seed=3)
    with AnnotationSession.open(copy) as session:
        report = import_answers_csv(path, session)
        assert (report.added, report.duplicates, report.rejected) == (12, 0, [])
        assert session.store.answers(session.study_id) == answers
        again = import_answers_csv(path, session)
        assert (again.added, again.duplicates, again.rejected) == (0, 12, [])


def test_bad_rows_are_rejected_with_their_line_numbers(study_dir: Path, tmp_path: Path) -> None:
    with AnnotationSession.open(study_dir) as session:
        group = next(item for item in session.form.items if item.is_group)
        single = next(item for item in session.form.items if not item.is_group)
        lines = [
            "rater_id,item_id,emotion,help,who,study_id",
            f"ann,{single.item_id},Option b,Yes,,",  # line 2: fine (letter and case tolerated)
            f"ann,{single.item_id},A,no,,",  # 3: duplicate of line 2
            f"bob,{single.item_id},D,yes,,",  # 4: bad letter
            f"bob,{single.item_id},A,perhaps,,",  # 5: bad help
            f"bob,{group.item_id},A,yes,Stranger,",  # 6: not a participant
            "bob,missing-item,A,yes,,",  # 7: unknown item
            f"bob,{single.item_id},A,yes,,another-study",  # 8: other study
            f",{single.item_id},A,yes,,",  # 9: no rater id
            "",
            f"cem,{group.item_id},C,no,{group.who_choices[0]},",  # 11: fine
        ]
        path = tmp_path / "rows.csv"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        report = import_answers_csv(path, session)
    assert (report.added, report.duplicates) == (2, 1)
    assert [problem.split(":")[0] for problem in report.rejected] == [
        "line 4",
        "line 5",
        "line 6",
        "line 7",
        "line 8",
        "line 9",
    ]
    assert "emotion must be one of A, B, C" in report.rejected[0]
    assert "help must be yes or no" in report.rejected[1]
    assert "who needs help must be one of" in report.rejected[2]
    assert report.rejected[4] == "line 8: answer for study another-study, not this study"
    assert "rater id must be" in report.rejected[5]


def test_a_broken_file_is_one_user_error(study_dir: Path, tmp_path: Path) -> None:
    with AnnotationSession.open(study_dir) as session:
        wrong = tmp_path / "wrong.csv"
        wrong.write_text("who,what\n1,2\n", encoding="utf-8")
        with pytest.raises(UserError, match=r"missing column\(s\) rater_id, item_id"):
            import_answers_csv(wrong, session)
        with pytest.raises(UserError, match="no such file"):
            import_answers_csv(tmp_path / "missing.csv", session)
        binary = tmp_path / "binary.csv"
        binary.write_bytes(b"\xff\xfe\x00bad")
        with pytest.raises(UserError, match="not UTF-8"):
            import_answers_csv(binary, session)
