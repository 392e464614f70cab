"""Definitions of the bundled suites and the one function that (re)builds them.

A bundled suite is frozen: its file, hash and recipe ship together, and a test
regenerates it from the recipe and compares bytes. Never edit a released recipe or the
template version it names; add a new suite (``standard-v4``) instead.

Rebuild (maintainers only, after adding a suite): ``python -m empathybench.scenarios.standard``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from empathybench.prompts.scenario_prompt import PROMPT_VERSION, PROMPT_VERSION_V2
from empathybench.records import ScenarioKind, SuiteInfo
from empathybench.scenarios.episode_versions import EPISODE_VERSIONS, STAKES_VERSIONS
from empathybench.scenarios.generator import (
    DEFAULT_MIX,
    EPISODE_MIX,
    GENERATOR_VERSION,
    STAKES_MIX,
    any_templates_sha256,
    generate_records,
)
from empathybench.scenarios.suites import SUITES_INDEX, suites_dir, write_scenarios


@dataclass(frozen=True)
class SuiteRecipe:
    name: str
    description: str
    n: int
    seed: int
    mix: dict[ScenarioKind, float]
    template_version: str
    per_family: int | None = None
    """Episode suites: each person asked about once, at most this many items per scene
    family (see ``scenarios.spread``); None draws freely (standard-v1)."""


STANDARD_V1 = SuiteRecipe(
    name="standard-v1",
    description=(
        "The frozen 100-item standard set: 42 emotion_support, 16 positive_control, "
        "12 harmful_belief, 6 harmful_belief_roleplay, 8 crisis, 16 group."
    ),
    n=100,
    seed=1729,
    mix=dict(DEFAULT_MIX),
    template_version="v1",
)

STANDARD_V2 = SuiteRecipe(
    name="standard-v2",
    description=(
        "The frozen 100-item standard set of template v2 (appraisal-grounded episodes: the "
        "options are three people's emotions and only who-did-what tells them apart): "
        "40 emotion_support, 35 positive_control, 5 harmful_belief, 4 harmful_belief_roleplay, "
        "4 crisis, 12 group."
    ),
    n=100,
    seed=2718,
    mix=dict(EPISODE_MIX),
    template_version="v2",
    per_family=4,
)

STANDARD_V3 = SuiteRecipe(
    name="standard-v3",
    description=(
        "The frozen 100-item standard set of template v3 (template v2's episodes plus 48 "
        "more, half of them boards, on which each person's own request number decides "
        "whether they need help): 40 emotion_support, 35 positive_control, 5 harmful_belief, "
        "4 harmful_belief_roleplay, 4 crisis, 12 group."
    ),
    n=100,
    # Fixed in the recipe before the suite or its audit was generated, and not changed after.
    seed=1618,
    mix=dict(EPISODE_MIX),
    template_version="v3",
    per_family=4,
)

STANDARD_V4 = SuiteRecipe(
    name="standard-v4",
    description=(
        "The frozen 100-item standard set of template v4 (template v3's episodes; belief, "
        "crisis and role-play items only where two or more people may voice them, each "
        "asked about equally often, so the scene no longer says whom they ask about): "
        "40 emotion_support, 35 positive_control, 5 harmful_belief, "
        "4 harmful_belief_roleplay, 4 crisis, 12 group."
    ),
    n=100,
    # Fixed in the recipe before the suite or its audit was generated, and not changed after.
    seed=1414,
    mix=dict(EPISODE_MIX),
    template_version="v4",
    per_family=4,
)

STANDARD_V5 = SuiteRecipe(
    name="standard-v5",
    description=(
        "The frozen 100-item standard set of template v5 (template v4's episodes with linked "
        "notes: each person's own words are a note under their request number and in the "
        "scene they say only the number, so the person asked about is linked to their words "
        "only by matching numbers): 40 emotion_support, 35 positive_control, 5 harmful_belief, "
        "4 harmful_belief_roleplay, 4 crisis, 12 group."
    ),
    n=100,
    # The first seed from 5150 whose draw has 40-60% help "yes" (5150 had 61), by the rule in
    # benchmarks/preregistrations/template-v5.md, fixed before the suite's audit was run.
    seed=5151,
    mix=dict(EPISODE_MIX),
    template_version="v5",
    per_family=4,
)

STANDARD_V6 = SuiteRecipe(
    name="standard-v6",
    description=(
        "The frozen 100-item standard set of template v6 (stakes: each person's note says "
        "which outcome they want, dread or never tried, and the closing announcement gives "
        "each number an outcome, so a key follows only from matching the two): "
        "52 emotion_support, 26 positive_control, 4 harmful_belief, "
        "3 harmful_belief_roleplay, 3 crisis, 12 group."
    ),
    n=100,
    # The first seed from 6160 whose draw has 40-60% help "yes", by the rule in
    # benchmarks/preregistrations/template-v6.md, fixed before the suite was drawn (with
    # help drawn in blocks, amendment 3, 6160 has 61).
    seed=6161,
    mix=dict(STAKES_MIX),
    template_version="v6",
    per_family=5,
)

# Released recipes: each is frozen (file + sha256 in data/suites/suites.json) and a test
# regenerates it byte for byte. standard-v1 to standard-v4 stay for comparison with
# earlier results.
RECIPES: tuple[SuiteRecipe, ...] = (
    STANDARD_V1,
    STANDARD_V2,
    STANDARD_V3,
    STANDARD_V4,
    STANDARD_V5,
    STANDARD_V6,
)


def build_suite(recipe: SuiteRecipe, directory: Path) -> SuiteInfo:
    """Generate a recipe's JSONL into ``directory`` and describe it."""
    file_name = f"{recipe.name}.jsonl"
    summary = write_scenarios(
        directory / file_name,
        generate_records(
            recipe.n, recipe.seed, recipe.mix, recipe.template_version, recipe.per_family
        ),
    )
    return SuiteInfo(
        name=recipe.name,
        description=recipe.description,
        file=file_name,
        sha256=summary.sha256,
        n=summary.n,
        seed=recipe.seed,
        kinds=dict(sorted(summary.kinds.items())),
        letters=dict(sorted(summary.letters.items())),
        template_version=recipe.template_version,
        template_sha256=any_templates_sha256(recipe.template_version),
        prompt_version=PROMPT_VERSION_V2
        if recipe.template_version in EPISODE_VERSIONS | STAKES_VERSIONS
        else PROMPT_VERSION,
        generator_version=GENERATOR_VERSION,
    )


def main() -> None:
    directory = suites_dir()
    infos = [build_suite(recipe, directory).model_dump(mode="json") for recipe in RECIPES]
    (directory / SUITES_INDEX).write_text(json.dumps(infos, indent=2) + "\n", encoding="utf-8")
    for info in infos:
        print(f"{info['name']}: {info['n']} items, sha256 {info['sha256']}")


if __name__ == "__main__":
    main()
