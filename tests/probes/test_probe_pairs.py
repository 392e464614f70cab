"""The bundled contrastive pairs, scenario splits and keyword ablation."""

from __future__ import annotations

from pathlib import Path

import pytest

from empathybench.errors import UserError
from empathybench.probes.pairs import (
    EMPATHY_KEYWORDS,
    ablate_keywords,
    load_pairs,
    scenario_folds,
    split_by_scenario,
)


def test_bundled_pairs_are_many_varied_and_balanced() -> None:
    pairs = load_pairs()
    assert len(pairs.pairs) >= 60 and len(pairs.scenarios) >= 6
    assert len({p.id for p in pairs.pairs}) == len(pairs.pairs)
    assert {p.contrast for p in pairs.pairs} >= {"task_focused", "procedural", "self_focused"}
    empathic = sum(len(p.empathic.split()) for p in pairs.pairs)
    other = sum(len(p.non_empathic.split()) for p in pairs.pairs)
    assert 0.9 < empathic / other < 1.1  # lengths comparable
    for p in pairs.pairs:
        assert p.empathic != p.non_empathic and p.prompt


def test_split_is_grouped_by_scenario() -> None:
    pairs = load_pairs()
    split = split_by_scenario(pairs)
    train = {p.scenario for p in split.train}
    test = {p.scenario for p in split.test}
    assert train and test and not train & test
    assert len(split.train) + len(split.test) == len(pairs.pairs)
    with pytest.raises(UserError, match="unknown test scenario"):
        split_by_scenario(pairs, ["nowhere"])
    with pytest.raises(UserError, match="no training pairs"):
        split_by_scenario(pairs, pairs.scenarios)


def test_leave_one_scenario_out_folds() -> None:
    folds = scenario_folds(["a", "b", "a", "c"])
    assert [(name, test) for _, test, name in folds] == [("a", [0, 2]), ("b", [1]), ("c", [3])]
    assert all(not set(train) & set(test) for train, test, _ in folds)


def test_keyword_ablation() -> None:
    text = "I'm so sorry; that sounds hard. Thank you for telling me, I understand."
    assert ablate_keywords(text) == "I'm so; that. for telling me, I."
    assert "sorry" not in ablate_keywords("Sorry, SORRY sorry.").lower()
    assert len(EMPATHY_KEYWORDS) > 10


def test_bad_pair_files_are_user_errors(tmp_path: Path) -> None:
    path = tmp_path / "pairs.jsonl"
    path.write_text('{"id": "x"}\n')
    with pytest.raises(UserError, match="invalid ContrastivePair"):
        load_pairs(path)
    with pytest.raises(UserError, match="no such file"):
        load_pairs(tmp_path / "missing.jsonl")
