"""The Runs tab's logic: finding runs, opening one, and each item as plain text."""

import json
from pathlib import Path

import pytest

from empathybench.errors import UserError
from empathybench.records import Suite
from empathybench.runtime.run_data import load_run_data
from empathybench.ui.run_browser import (
    FigureFolders,
    discover_run_dirs,
    open_runs,
    run_choices,
)
from empathybench.ui.safe_text import escape_html, markdown_literal
from tests.fakes.mock_runs import PLANTED_REPLY, answering, make_run, scripted_judge


def fake_run(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text("{}", encoding="utf-8")
    return folder


def test_runs_are_found_up_to_two_levels_deep(tmp_path: Path) -> None:
    top = fake_run(tmp_path / "top-run")
    nested = fake_run(tmp_path / "sweep" / "model-a")
    fake_run(tmp_path / "too" / "deep" / "run")
    fake_run(tmp_path / ".hidden" / "run")
    fake_run(tmp_path / "top-run" / "inner")  # runs do not nest: not searched
    (tmp_path / "empty" / "folder").mkdir(parents=True)
    assert discover_run_dirs(tmp_path) == [nested, top]
    assert run_choices(tmp_path) == [("sweep/model-a", str(nested)), ("top-run", str(top))]
    assert discover_run_dirs(top) == [top]
    assert run_choices(top) == [("top-run", str(top))]
    assert run_choices(None) == []
    assert discover_run_dirs(tmp_path / "missing") == []


def test_an_unjudged_run_opens_with_every_item(run_dir: Path) -> None:
    selection = open_runs(run_dir)
    data = load_run_data(run_dir)
    assert len(selection.items) == len(data.responses) > 0
    assert "mock/tested" in selection.table_markdown()
    assert "| model |" in selection.table_markdown()
    first = next(iter(selection.items.values()))
    scenario_id = first.label.split(" · ")[0]
    scenario = data.scenarios[scenario_id]
    assert scenario.messages[-1].content in first.prompt
    assert first.response == data.responses[(scenario_id, 0)].text
    assert "Hidden truth" in first.truth and scenario.emotion.name in first.truth
    assert first.verdicts.startswith("No judge has scored this run yet")


def test_a_judged_run_shows_each_verdict_and_its_figures(
    small_suite: Suite, small_suite_path: Path, tmp_path: Path
) -> None:
    judge = "mock/judge-planted"
    run = make_run(
        tmp_path / "hostile",
        small_suite,
        small_suite_path,
        "mock/hostile",
        model=answering(small_suite, "mock/hostile", right_ids=set(), reply=PLANTED_REPLY),
        judges=[judge],
        judge_models={judge: scripted_judge(judge, "because <b>reasons</b>")},
        limit=4,
    )
    selection = open_runs(run)
    assert len(selection.items) == 4
    item = next(iter(selection.items.values()))
    assert PLANTED_REPLY in item.response
    assert f"Judge {judge}" in item.verdicts and "because <b>reasons</b>" in item.verdicts
    folders = FigureFolders(keep=2)
    figures = folders.write(selection)
    assert len(figures) >= 3
    assert all(Path(path).is_file() and path.endswith(".png") for path, _ in figures)
    first_folder = Path(figures[0][0]).parent
    folders.write(selection)
    folders.write(selection)
    assert not first_folder.exists()  # only the newest two folders are kept


def test_a_folder_that_is_not_a_run_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="not a run directory and no runs inside"):
        open_runs(tmp_path)
    therapy = tmp_path / "therapy-study"
    therapy.mkdir()
    (therapy / "manifest.json").write_text(
        json.dumps({"track": "therapy", "questions": 20}), encoding="utf-8"
    )
    with pytest.raises(UserError) as raised:
        open_runs(therapy)
    assert "manifest.json" in str(raised.value) and "\n" not in str(raised.value).strip()


def test_untrusted_text_cannot_become_markup() -> None:
    hostile = '<img src=x onerror="alert(1)"> **bold** [link](javascript:alert(1)) $$x$$'
    literal = markdown_literal(hostile)
    assert "<" not in literal and ">" not in literal
    assert "\\*\\*bold\\*\\*" in literal and "\\[link\\]" in literal and "\\$\\$x" in literal
    assert markdown_literal("two\nlines") == "two lines"
    table = escape_html("| a <script>x</script> |\n|---|")
    assert "<script>" not in table and "&lt;script&gt;" in table and table.startswith("| a")
