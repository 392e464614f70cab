"""Item difficulty, discrimination and audit flags on scripted models, against hand numbers."""

import asyncio
from pathlib import Path

import numpy as np
import pytest

from empathybench.analysis.item_analysis import (
    FLAG_ALL_RIGHT,
    FLAG_ALL_WRONG,
    FLAG_KEY_DISPUTED,
    FLAG_NEGATIVE_DISCRIMINATION,
    FLAG_NO_KEYED_EMOTION,
    analyse_items,
)
from empathybench.analysis.run_sets import load_runs, run_labels
from empathybench.errors import UserError
from empathybench.judging.key_check import check_keys, key_check_messages
from empathybench.models.base import ModelRequest
from empathybench.models.mock import MockModel
from empathybench.models.registry import parse_model_id
from empathybench.records import LETTERS, Suite
from empathybench.runtime.run_data import load_run_data
from empathybench.scenarios.generator import generate
from empathybench.scenarios.suites import load_suite, write_scenarios
from tests.fakes.mock_runs import answering, make_run

MODELS = ("mock/a", "mock/b", "mock/c", "mock/d", "mock/e")


def right_sets(ids: list[str]) -> dict[str, set[str]]:
    """a > b > c > d > e in ability; nobody gets ids[0] right; only d and e get ids[-1]."""
    hard, reversed_item = ids[0], ids[-1]
    middle = ids[1:-1]
    sizes = {"mock/a": 28, "mock/b": 22, "mock/c": 16, "mock/d": 10, "mock/e": 4}
    sets = {name: set(middle[:size]) for name, size in sizes.items()}
    sets["mock/d"].add(reversed_item)
    sets["mock/e"].add(reversed_item)
    assert hard not in set().union(*sets.values())
    return sets


@pytest.fixture(scope="module")
def runs_dir(
    small_suite: Suite, small_suite_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    base = tmp_path_factory.mktemp("items")
    ids = [s.id for s in small_suite.scenarios]
    for name, right in right_sets(ids).items():
        epochs = 2 if name == "mock/a" else 1
        model = answering(small_suite, name, right)
        make_run(
            base / name.split("/")[1],
            small_suite,
            small_suite_path,
            name,
            model=model,
            epochs=epochs,
        )
    return base


def test_difficulty_discrimination_and_flags_match_hand_numbers(
    runs_dir: Path, small_suite: Suite
) -> None:
    runs, _ = load_runs([runs_dir])
    analysis = analyse_items(runs, run_labels(runs))
    ids = [s.id for s in small_suite.scenarios]
    sets = right_sets(ids)
    by_id = {item.scenario_id: item for item in analysis.items}
    assert len(by_id) == 30 and analysis.runs == list(MODELS)
    score = {m: {i: float(i in sets[m]) for i in ids} for m in MODELS}
    for scenario_id in ids:
        item = by_id[scenario_id]
        # a answered twice with the same answers: difficulty is over all 6 answers.
        answers = [score[m][scenario_id] for m in MODELS] + [score["mock/a"][scenario_id]]
        assert item.difficulty == pytest.approx(sum(answers) / len(answers))
        assert item.responses == 6 and item.models == 5
        assert item.emotion_accuracy == item.difficulty  # right answers get both fields right
        rest = [np.mean([score[m][i] for i in ids if i != scenario_id]) for m in MODELS]
        values = [score[m][scenario_id] for m in MODELS]
        if len(set(values)) > 1:
            assert item.discrimination == pytest.approx(np.corrcoef(values, rest)[0, 1])
        else:
            assert item.discrimination is None
    assert by_id[ids[0]].flags == [FLAG_ALL_WRONG, FLAG_NO_KEYED_EMOTION]
    assert by_id[ids[1]].flags == [FLAG_ALL_RIGHT]  # in every model's right set
    assert FLAG_NEGATIVE_DISCRIMINATION in by_id[ids[-1]].flags
    discrimination = by_id[ids[-1]].discrimination
    assert discrimination is not None and discrimination < -0.8
    assert by_id[ids[20]].discrimination is not None and by_id[ids[20]].discrimination > 0.5
    assert by_id[ids[20]].flags == []
    assert by_id[ids[5]].epoch_spread == 0.0  # a's two epochs agree (scripted)
    assert analysis.epochs == {"mock/a": 2, "mock/b": 1, "mock/c": 1, "mock/d": 1, "mock/e": 1}


def test_a_key_a_judge_disputes_is_flagged(
    runs_dir: Path, small_suite: Suite, tmp_path: Path
) -> None:
    scenarios = list(small_suite.scenarios)
    disputed, garbled = scenarios[3], scenarios[4]
    prompts = {key_check_messages(s)[-1].content: s for s in scenarios}

    def script(request: ModelRequest, attempt: int) -> str:
        scenario = prompts[request.messages[1].content]
        if scenario.id == garbled.id:
            return "I would rather not say."
        letter = scenario.correct_letter
        if scenario.id == disputed.id:
            letter = next(x for x in LETTERS if x != letter)
        needs = "true" if scenario.expected.help_needed else "false"
        return f'{{"emotion": "{letter}", "needs_help": {needs}, "rationale": "scene cues"}}'

    judge = MockModel(parse_model_id("mock/auditor"), script=script)
    checks = asyncio.run(check_keys(judge, scenarios, small_suite.sha256, tmp_path))
    assert checks[garbled.id].error is not None and checks[garbled.id].emotion is None
    assert len(checks[garbled.id].raw_outputs) == 3  # asked, then re-asked twice
    runs, _ = load_runs([runs_dir])
    analysis = analyse_items(runs, run_labels(runs), {"mock/auditor": checks})
    flagged = {i.scenario_id: i for i in analysis.items if FLAG_KEY_DISPUTED in i.flags}
    assert set(flagged) == {disputed.id}
    [dispute] = flagged[disputed.id].key_disputes
    assert dispute.startswith("mock/auditor picks") and f"key {disputed.correct_letter}" in dispute
    # Resuming asks only for what failed.
    calls = judge.total_calls
    asyncio.run(check_keys(judge, scenarios, small_suite.sha256, tmp_path))
    assert judge.total_calls - calls == 3


def test_runs_of_different_suites_are_refused(
    runs_dir: Path, small_suite: Suite, tmp_path: Path
) -> None:
    other_path = tmp_path / "other.jsonl"
    write_scenarios(other_path, generate(5, seed=9, template_version="v1"))
    other = make_run(tmp_path / "other", load_suite(str(other_path)), other_path, "mock/x")
    runs = [load_run_data(runs_dir / "a"), load_run_data(other)]
    with pytest.raises(UserError, match="runs of one suite"):
        analyse_items(runs, run_labels(runs))
