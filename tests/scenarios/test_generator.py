import json
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from empathybench.errors import UserError
from empathybench.records import SCENARIO_KINDS
from empathybench.scenarios.generator import (
    DEFAULT_MIX,
    SpaceTooSmallError,
    generate,
    kind_counts,
    space_sizes,
)
from empathybench.scenarios.suites import write_scenarios
from empathybench.scenarios.validation import check_scenario


def test_same_seed_gives_identical_bytes(tmp_path: Path) -> None:
    first = write_scenarios(tmp_path / "a.jsonl", generate(600, seed=11, template_version="v1"))
    second = write_scenarios(tmp_path / "b.jsonl", generate(600, seed=11, template_version="v1"))
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert first.sha256 == second.sha256


def test_different_seeds_give_different_sets() -> None:
    first = {s.id for s in generate(300, seed=1, template_version="v1")}
    second = {s.id for s in generate(300, seed=2, template_version="v1")}
    assert len(first & second) < 5


def test_a_prefix_of_a_larger_set_is_not_required_but_kinds_follow_the_mix() -> None:
    counts = Counter(s.kind for s in generate(1000, seed=3, template_version="v1"))
    assert counts == Counter(kind_counts(1000, DEFAULT_MIX))


def test_every_generated_item_passes_the_consistency_checks() -> None:
    for scenario in generate(1500, seed=21, template_version="v1"):
        assert check_scenario(scenario) == [], scenario.id


@pytest.mark.parametrize("kind", SCENARIO_KINDS)
def test_each_kind_alone_is_valid_and_letters_are_balanced(kind: str) -> None:
    scenarios = list(generate(301, seed=4, mix={kind: 1}, template_version="v1"))  # type: ignore[dict-item]
    assert {s.kind for s in scenarios} == {kind}
    letters = Counter(s.correct_letter for s in scenarios)
    assert max(letters.values()) - min(letters.values()) <= 1
    assert len({s.provenance.space_index for s in scenarios}) == 301
    for scenario in scenarios[:50]:
        assert check_scenario(scenario) == []


def test_kind_specific_truth() -> None:
    by_kind = {s.kind: s for s in generate(200, seed=8, template_version="v1")}
    assert by_kind["positive_control"].expected.help_needed is False
    assert by_kind["positive_control"].emotion.valence == "positive"
    assert by_kind["crisis"].expected.crisis_resources_expected is True
    assert "moral_behavior" in by_kind["harmful_belief"].dimensions
    assert "cheering_up" not in by_kind["positive_control"].dimensions
    group = by_kind["group"]
    assert len(group.participants) == 3
    assert len({p.name for p in group.participants}) == 3
    assert "PERSON:" in group.messages[-1].content
    roleplay = by_kind["harmful_belief_roleplay"]
    assert roleplay.expected.help_needed is False
    assert "not the character" in roleplay.messages[-1].content


def test_the_model_never_sees_the_hidden_truth() -> None:
    for scenario in generate(600, seed=13, template_version="v1"):
        prompt = "\n".join(m.content for m in scenario.messages)
        # The answer's name appears exactly once: as its option line.
        assert prompt.count(f") {scenario.emotion.name}\n") == 1
        assert len(re.findall(rf"\b{scenario.emotion.name}\b", prompt, re.IGNORECASE)) == 1
        assert "goal:" not in prompt.lower()
        if scenario.expected.guidance:
            assert scenario.expected.guidance not in prompt
        for assistance in scenario.expected.assistance:  # taxonomy ids, not plain words
            assert "_" not in assistance or assistance not in prompt


def test_the_space_exceeds_a_million_prompts_in_total_and_per_main_kind() -> None:
    sizes = space_sizes("v1")
    assert sum(sizes.values()) > 1_000_000
    assert all(size > 100_000 for size in sizes.values()), sizes


def test_asking_for_more_than_the_space_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # The bundled spaces are far above the --n cap, so shrink one to reach the check.
    from empathybench.scenarios import generator

    real = generator.space_report

    def small(template_version: str) -> dict[str, tuple[int, int]]:
        report = dict(real(template_version))
        report["crisis"] = (report["crisis"][0], 10)
        return report

    monkeypatch.setattr(generator, "space_report", small)
    with pytest.raises(SpaceTooSmallError, match="crisis"):
        next(generate(11, seed=0, mix={"crisis": 1}, template_version="v1"))
    assert min(space_sizes("v1").values()) > generator.MAX_GENERATE


@pytest.mark.parametrize("n", [0, -5])
def test_n_must_be_positive(n: int) -> None:
    with pytest.raises(UserError):
        next(generate(n, seed=0, template_version="v1"))


def test_seed_must_fit_in_63_bits() -> None:
    with pytest.raises(UserError):
        next(generate(1, seed=-1, template_version="v1"))


@given(n=st.integers(1, 10**6), weights=st.lists(st.integers(0, 50), min_size=6, max_size=6))
def test_kind_counts_sum_to_n_and_stay_within_one_of_the_exact_share(
    n: int, weights: list[int]
) -> None:
    if sum(weights) == 0:
        return
    mix = dict(zip(SCENARIO_KINDS, weights, strict=True))
    counts = kind_counts(n, mix)  # type: ignore[arg-type]
    assert sum(counts.values()) == n
    for kind, weight in mix.items():
        assert abs(counts[kind] - n * weight / sum(weights)) < 1  # type: ignore[index]


@pytest.mark.slow
def test_one_hundred_thousand_distinct_prompts(tmp_path: Path) -> None:
    summary = write_scenarios(
        tmp_path / "big.jsonl", generate(100_000, seed=99, template_version="v1")
    )
    assert summary.n == 100_000
    ids = set()
    with (tmp_path / "big.jsonl").open() as handle:
        for line in handle:
            ids.add(json.loads(line)["id"])
    assert len(ids) == 100_000
