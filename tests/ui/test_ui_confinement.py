"""The Runs tab opens runs inside --runs only, and says nothing about anything outside."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from empathybench.ui.run_browser import (
    RunNotFound,
    confined_run_path,
    discover_run_dirs,
    run_choices,
)


def fake_run(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text("{}", encoding="utf-8")
    return folder


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "runs"
    fake_run(root / "model-a")
    fake_run(root / "sweep" / "model-b")
    outside = fake_run(tmp_path / "private" / "secret-run")
    if os.name == "posix":
        (root / "link-out").symlink_to(outside, target_is_directory=True)
        (root / "link-parent").symlink_to(tmp_path, target_is_directory=True)
    return root, outside


def test_runs_inside_open_by_relative_or_absolute_path(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    assert confined_run_path(root, "model-a") == (root / "model-a").resolve()
    assert confined_run_path(root, " sweep/model-b ") == (root / "sweep" / "model-b").resolve()
    assert confined_run_path(root, str(root / "sweep")) == (root / "sweep").resolve()
    for _, value in run_choices(root):  # every listed run opens
        assert confined_run_path(root, value).is_dir()


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_everything_outside_reads_the_same(tree: tuple[Path, Path], tmp_path: Path) -> None:
    root, outside = tree
    typed = [
        str(outside),
        "../private/secret-run",
        "link-out",
        "link-parent/private/secret-run",
        "~",
        "~/",
        "/",
        "/etc",
        "/definitely/missing",
        "model-a/manifest.json",
        "missing",
        "sweep/model-b/../../../private",
        "",
        "a" * 5000,
        "model-a\x00",
    ]
    messages = set()
    for text in typed:
        with pytest.raises(RunNotFound) as error:
            confined_run_path(root, text)
        messages.add(str(error.value).replace(repr(text.strip()), "PATH"))
    assert messages == {"no run folder PATH in the runs folder"}


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_the_run_list_does_not_follow_links_out(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    found = {path.resolve() for path in discover_run_dirs(root)}
    assert outside.resolve() not in found
    assert found == {(root / "model-a").resolve(), (root / "sweep" / "model-b").resolve()}


def test_too_deep_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    fake_run(root / "a" / "b" / "c")
    with pytest.raises(RunNotFound):
        confined_run_path(root, "a/b/c")
