from pathlib import Path

import pytest

from empathybench.scenarios.episode_templates import episode_templates_sha256
from empathybench.scenarios.episode_versions import NEWEST_EPISODE_VERSION
from empathybench.scenarios.generator import EPISODE_MIX, STAKES_MIX
from empathybench.scenarios.stakes_templates import stakes_templates_sha256
from empathybench.scenarios.standard import (
    RECIPES,
    STANDARD_V1,
    STANDARD_V2,
    STANDARD_V3,
    STANDARD_V4,
    STANDARD_V5,
    STANDARD_V6,
    SuiteRecipe,
    build_suite,
)
from empathybench.scenarios.suites import (
    DEFAULT_SUITE,
    bundled_suites,
    file_sha256,
    load_suite,
    suites_dir,
)
from empathybench.scenarios.templates import DEFAULT_TEMPLATE_VERSION, templates_sha256
from empathybench.scenarios.validation import validate_file

# The released suites' hashes, written down once: rebuilding both a file and suites.json
# after a template edit must still fail here (a released suite never changes).
RELEASED_SHA256 = {
    "standard-v1": "63d36d29fb6643f879f981b35864540f6ba6f8863a51f7add0827dfd13ba4c4e",
    "standard-v2": "8be7606430f816db2aee11e4c3a3b7fab396b17c71165b042eecd69eee862f79",
    "standard-v3": "2541c6bfe01b415715d8f4c380ad0b10d24077c0f415bad8f4a6406711e2adb0",
    "standard-v4": "8581a24a62d9f6e5885ab62e040f18ecbc356d78f4d69509c501ca404df9c61e",
    "standard-v5": "18f8d1b58bfaa86a2ddffe97e24805d7b6f0d5c0286dd37b80fa2f8035841af8",
    "standard-v6": "022980a7c333b852315874bb89e1211d5d930b3c28a94cd8ff42b9bd5e2e8dbe",
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


def test_the_newest_suite_is_the_default() -> None:
    """standard-v6 became the default by its registered rule (template-v6.md, amendment 3:
    the audit passed on 10 of 10 new fresh sets, a fresh reader judged 50 of 50 items valid,
    the main job took 2 min 46 s); standard-v5 stays bundled by name."""
    assert DEFAULT_SUITE == STANDARD_V6.name == "standard-v6"
    assert STANDARD_V6.template_version == DEFAULT_TEMPLATE_VERSION == "v6"
    assert STANDARD_V5.template_version == NEWEST_EPISODE_VERSION


@pytest.mark.parametrize(
    "recipe", [STANDARD_V2, STANDARD_V3, STANDARD_V4, STANDARD_V5], ids=lambda r: r.name
)
def test_episode_suite_templates_are_unchanged(recipe: SuiteRecipe) -> None:
    info = bundled_suites()[recipe.name]
    assert info.template_version == recipe.template_version
    assert episode_templates_sha256(info.template_version) == info.template_sha256


@pytest.mark.parametrize(
    ("recipe", "seed"),
    [(STANDARD_V2, 2718), (STANDARD_V3, 1618), (STANDARD_V4, 1414), (STANDARD_V5, 5151)],
    ids=["standard-v2", "standard-v3", "standard-v4", "standard-v5"],
)
def test_episode_suite_recipe_and_composition(recipe: SuiteRecipe, seed: int) -> None:
    assert (recipe.n, recipe.seed, recipe.mix, recipe.per_family) == (
        100,
        seed,
        dict(EPISODE_MIX),
        4,
    )
    suite = load_suite(recipe.name)
    kinds = {kind: sum(s.kind == kind for s in suite.scenarios) for kind in recipe.mix}
    assert kinds == {
        "emotion_support": 40,
        "positive_control": 35,
        "harmful_belief": 5,
        "harmful_belief_roleplay": 4,
        "crisis": 4,
        "group": 12,
    }
    assert {s.template_version for s in suite.scenarios} == {recipe.template_version}
    letters = [s.correct_letter for s in suite.scenarios]
    assert all(30 <= letters.count(letter) <= 36 for letter in "ABC")
    # The audit's help limit needs a majority of at most 60%.
    assert 0.40 <= sum(s.expected.help_needed for s in suite.scenarios) / 100 <= 0.60


def test_stakes_suite_recipe_and_composition() -> None:
    """standard-v6: the stakes mix, at most 5 items a family, the registered seed (the first
    from 6160 with 40-60% help yes: 6160 drew 61 once help came in blocks), each key about a
    third or more."""
    recipe = STANDARD_V6
    assert (recipe.n, recipe.seed, recipe.mix, recipe.per_family) == (
        100,
        6161,
        dict(STAKES_MIX),
        5,
    )
    suite = load_suite(recipe.name)
    kinds = {kind: sum(s.kind == kind for s in suite.scenarios) for kind in recipe.mix}
    assert kinds == {k: int(v) for k, v in STAKES_MIX.items()}
    assert {s.template_version for s in suite.scenarios} == {"v6"}
    info = bundled_suites()[recipe.name]
    assert stakes_templates_sha256("v6") == info.template_sha256
    letters = [s.correct_letter for s in suite.scenarios]
    assert all(30 <= letters.count(letter) <= 36 for letter in "ABC")
    assert 0.40 <= sum(s.expected.help_needed for s in suite.scenarios) / 100 <= 0.60
    keys = {s.emotion.name for s in suite.scenarios}
    assert keys == {"delighted", "frustrated", "nervous"}


@pytest.mark.parametrize(
    "name", ["standard-v2", "standard-v3", "standard-v4", "standard-v5", "standard-v6"]
)
def test_episode_suite_is_valid(name: str) -> None:
    report = validate_file(suites_dir() / bundled_suites()[name].file)
    assert report.ok, report.problems[:5]
