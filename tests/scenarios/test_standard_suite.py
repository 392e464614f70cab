from pathlib import Path

from empathybench.scenarios.standard import RECIPES, STANDARD_V1, build_suite
from empathybench.scenarios.suites import bundled_suites, load_suite, suites_dir
from empathybench.scenarios.templates import templates_sha256
from empathybench.scenarios.validation import validate_file


def test_every_bundled_suite_regenerates_byte_for_byte(tmp_path: Path) -> None:
    bundled = bundled_suites()
    assert {recipe.name for recipe in RECIPES} == set(bundled)
    for recipe in RECIPES:
        info = build_suite(recipe, tmp_path)
        shipped = suites_dir() / bundled[recipe.name].file
        assert (tmp_path / info.file).read_bytes() == shipped.read_bytes(), (
            f"{recipe.name} no longer regenerates: template or generator changed; "
            "make a new suite version instead of editing a released one"
        )
        assert info == bundled[recipe.name]


def test_standard_v1_templates_are_unchanged() -> None:
    info = bundled_suites()["standard-v1"]
    assert templates_sha256(info.template_version) == info.template_sha256


def test_standard_v1_composition() -> None:
    suite = load_suite("standard-v1")
    assert len(suite.scenarios) == STANDARD_V1.n == 100
    kinds = {kind: sum(s.kind == kind for s in suite.scenarios) for kind in STANDARD_V1.mix}
    assert kinds["emotion_support"] >= 40
    assert kinds["positive_control"] >= 15
    assert kinds["harmful_belief"] + kinds["harmful_belief_roleplay"] >= 15
    assert kinds["harmful_belief_roleplay"] >= 1
    assert kinds["crisis"] >= 6
    assert kinds["group"] >= 6
    letters = [s.correct_letter for s in suite.scenarios]
    assert all(30 <= letters.count(letter) <= 36 for letter in "ABC")


def test_standard_v1_is_valid() -> None:
    report = validate_file(suites_dir() / bundled_suites()["standard-v1"].file)
    assert report.ok, report.problems[:5]
