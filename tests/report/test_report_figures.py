"""Figures are written as real, non-empty PNG and SVG files, with honest content."""

import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from empathybench.records import Suite
from empathybench.report.run_report import write_report
from tests.fakes.mock_runs import make_run


@pytest.fixture(scope="module")
def report_dir(
    small_suite: Suite, small_suite_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    base = tmp_path_factory.mktemp("figure-runs")
    runs = [
        make_run(base / "a", small_suite, small_suite_path, "mock/alpha", judges=["mock/judge-a"]),
        make_run(base / "b", small_suite, small_suite_path, "mock/beta", judges=["mock/judge-a"]),
    ]
    write_report(runs, base / "report")
    return base / "report"


@pytest.mark.parametrize("name", ["dimensions", "kinds", "radar_mock-alpha", "radar_mock-beta"])
def test_each_figure_is_a_nonempty_png_and_svg(report_dir: Path, name: str) -> None:
    png = report_dir / "figures" / f"{name}.png"
    svg = report_dir / "figures" / f"{name}.svg"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size > 10_000  # a drawn chart, not a blank canvas
    root = ElementTree.parse(svg).getroot()
    assert root.tag.endswith("svg")
    assert len(list(root.iter())) > 100  # many drawn elements


def test_bar_chart_has_both_models_ci_whiskers_and_a_fixed_axis(report_dir: Path) -> None:
    svg = (report_dir / "figures" / "dimensions.svg").read_text()
    # Text is drawn as glyph paths; matplotlib keeps the strings as comments.
    assert "mock/alpha" in svg and "mock/beta" in svg
    assert "n=30" in svg and "95% CI" in svg
    assert "1.0" in svg and "0.0" in svg


def test_figures_are_deterministic(report_dir: Path, tmp_path: Path) -> None:
    first = (report_dir / "figures" / "kinds.svg").read_bytes()
    runs = sorted(p for p in report_dir.parent.iterdir() if (p / "manifest.json").is_file())
    write_report(runs, tmp_path / "again")
    assert (tmp_path / "again" / "figures" / "kinds.svg").read_bytes() == first
