from pathlib import Path

import pytest

from empathybench.scenarios.episode_templates import episode_templates_sha256
from empathybench.scenarios.generator import EPISODE_MIX
from empathybench.scenarios.standard import RECIPES, STANDARD_V1, STANDARD_V2, build_suite
from empathybench.scenarios.suites import (
    DEFAULT_SUITE,
    bundled_suites,
    file_sha256,
    load_suite,
    suites_dir,
)
from empathybench.scenarios.templates import templates_sha256
from empathybench.scenarios.validation import validate_file

# The released suites' hashes, written down once: rebuilding both a file and suites.json
# after a template edit must still fail here (a released suite never changes).
RELEASED_SHA256 = {
    "standard-v1": "63d36d29fb6643f879f981b35864540f6ba6f8863a51f7add0827dfd13ba4c4e",
    "standard-v2": "8be7606430f816db2aee11e4c3a3b7fab396b17c71165b042eecd69eee862f79",
}


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


@pytest.mark.parametrize("name", sorted(RELEASED_SHA256))
def test_released_suites_keep_their_hash(name: str) -> None:
    info = bundled_suites()[name]
    assert info.sha256 == RELEASED_SHA256[name]
    assert file_sha256(suites_dir() / info.file) == RELEASED_SHA256[name]


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


def test_standard_v2_is_the_default_suite() -> None:
    assert DEFAULT_SUITE == STANDARD_V2.name == "standard-v2"


def test_standard_v2_templates_are_unchanged() -> None:
    info = bundled_suites()["standard-v2"]
    assert info.template_version == "v2"
    assert episode_templates_sha256(info.template_version) == info.template_sha256


def test_standard_v2_recipe_and_composition() -> None:
    assert (STANDARD_V2.n, STANDARD_V2.seed, STANDARD_V2.mix) == (100, 2718, dict(EPISODE_MIX))
    suite = load_suite("standard-v2")
    kinds = {kind: sum(s.kind == kind for s in suite.scenarios) for kind in STANDARD_V2.mix}
    assert kinds == {
        "emotion_support": 40,
        "positive_control": 35,
        "harmful_belief": 5,
        "harmful_belief_roleplay": 4,
        "crisis": 4,
        "group": 12,
    }
    assert {s.template_version for s in suite.scenarios} == {"v2"}
    letters = [s.correct_letter for s in suite.scenarios]
    assert all(30 <= letters.count(letter) <= 36 for letter in "ABC")


def test_standard_v2_is_valid() -> None:
    report = validate_file(suites_dir() / bundled_suites()["standard-v2"].file)
    assert report.ok, report.problems[:5]
