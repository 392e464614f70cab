"""Leaderboards: only comparable runs, ranks by overall, paired tests between neighbours."""

from pathlib import Path

import numpy as np
import pytest

from empathybench.analysis.leaderboard import build_leaderboard, why_not_comparable
from empathybench.analysis.run_sets import load_runs
from empathybench.analysis.statistics import bootstrap_paired_difference
from empathybench.errors import UserError
from empathybench.records import Suite
from empathybench.scenarios.generator import generate
from empathybench.scenarios.suites import load_suite, write_scenarios
from tests.fakes.mock_runs import answering, make_run


@pytest.fixture(scope="module")
def folder(
    small_suite: Suite, small_suite_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    base = tmp_path_factory.mktemp("board")
    ids = [s.id for s in small_suite.scenarios]
    scripted = {
        "mock/strong": ids,
        "mock/strong-twin": ids,
        "mock/middle": ids[:20],
        "mock/weak": ids[:19],
    }
    for name, right in scripted.items():
        model = answering(small_suite, name, right)
        make_run(base / name.split("/")[1], small_suite, small_suite_path, name, model=model)
    make_run(base / "judged", small_suite, small_suite_path, "mock/judged", judges=["mock/judge-a"])
    other_path = base / "other-suite.jsonl"
    write_scenarios(other_path, generate(6, seed=5, template_version="v1"))
    make_run(base / "elsewhere", load_suite(str(other_path)), other_path, "mock/elsewhere")
    return base


def test_only_comparable_runs_are_ranked_and_the_rest_say_why(folder: Path) -> None:
    runs, unreadable = load_runs([folder])
    board = build_leaderboard(runs, unreadable)
    assert [e.label for e in board.entries][:2] == ["mock/strong", "mock/strong-twin"] or [
        e.label for e in board.entries
    ][:2] == ["mock/strong-twin", "mock/strong"]
    assert [e.label for e in board.entries][2:] == ["mock/middle", "mock/weak"]
    assert board.judges == [] and board.rubric_versions == []
    reasons = {run.label: run.reason for run in board.left_out}
    assert set(reasons) == {"mock/judged", "mock/elsewhere"}
    assert reasons["mock/judged"].startswith(
        "different judges (mock/judge-a; the board's: no judge"
    )
    assert "a different rubric version" in reasons["mock/judged"]
    assert reasons["mock/elsewhere"].startswith("a different suite")


def test_ranks_ties_and_neighbour_tests(folder: Path, small_suite: Suite) -> None:
    runs, _ = load_runs([folder])
    board = build_leaderboard(runs)
    strong, twin, middle, weak = board.entries
    assert (strong.rank, twin.rank, middle.rank, weak.rank) == (1, 1, 3, 4)
    assert strong.overall.mean == 1.0 and middle.overall.mean == pytest.approx(20 / 30)
    assert strong.p_value_to_next == 1.0 and strong.tied_with_next  # identical answers
    # twin vs middle: items 21-30 differ by 1, the rest by 0 -> mean 1/3, clearly significant.
    assert twin.difference_to_next is not None
    assert twin.difference_to_next.mean == pytest.approx(10 / 30)
    assert twin.p_value_to_next is not None and twin.p_value_to_next < 0.01
    assert not twin.tied_with_next
    # middle vs weak: one item apart -> not distinguishable.
    assert middle.difference_to_next is not None
    assert middle.difference_to_next.mean == pytest.approx(1 / 30)
    assert middle.tied_with_next and middle.p_value_to_next is not None
    assert middle.p_value_to_next >= 0.05
    assert weak.difference_to_next is None and weak.p_value_to_next is None
    assert middle.difference_to_next.items == 30
    # The same seed gives the same board.
    assert build_leaderboard(runs) == board


def test_offline_and_llm_judged_runs_are_never_mixed_and_it_says_so() -> None:
    offline = ("h", ("offline",), ("rubric-v1",), ("judge-v3 (1a2b3c4d) on minilm, onnx",))
    llm = ("h", ("mock/judge-a",), ("rubric-v1",), ())
    reason = why_not_comparable(offline, llm, "standard-v1")
    assert "offline (approximate)" in reason
    assert "never ranked beside LLM-judged" in reason
    assert "suite" not in reason and "rubric" not in reason


def test_runs_scored_by_different_offline_heads_or_backends_are_not_ranked_together() -> None:
    """The id ``offline`` names the newest bundled head of whichever release ran it, and a
    bfloat16 encoder moves scores a little: the recorded set-up must match too."""
    one = ("h", ("offline",), ("rubric-v1",), ("judge-v3 (1a2b3c4d) on minilm, onnx",))
    other = ("h", ("offline",), ("rubric-v1",), ("judge-v2 (99aa00bb) on minilm, onnx",))
    reason = why_not_comparable(other, one, "standard-v4")
    assert "different offline head or encoder backend" in reason and "judge-v2" in reason
    assert "suite" not in reason and "rubric" not in reason and "different judges" not in reason


def test_a_runs_offline_set_up_comes_from_its_scored_verdicts() -> None:
    from types import SimpleNamespace

    from empathybench.analysis.leaderboard import scored_by

    def verdict(by: str | None, no_reply: str | None = None) -> SimpleNamespace:
        return SimpleNamespace(scored_by=by, no_reply=no_reply)

    setup = "judge-v3 (1a2b3c4d) on minilm, onnx"
    run = SimpleNamespace(
        verdicts={
            "offline": {("a", 0): verdict(setup), ("b", 0): verdict(None, "options_only")},
            "mock/judge-a": {("a", 0): verdict(None)},  # model judges record none
        }
    )
    assert scored_by(run) == (setup,)  # type: ignore[arg-type]
    run.verdicts["offline"][("c", 0)] = verdict(None)  # judged before verdicts recorded it
    assert scored_by(run) == (setup, "unrecorded")  # type: ignore[arg-type]


def test_no_runs_is_a_user_error() -> None:
    with pytest.raises(UserError, match="no readable runs"):
        build_leaderboard([])


def test_paired_bootstrap_matches_the_mean_difference_and_is_seeded() -> None:
    rng = np.random.default_rng(3)
    a = list(rng.random(60))
    b = [x - 0.2 + rng.normal(0, 0.02) for x in a]  # strongly paired, shifted by 0.2
    estimate, p_value = bootstrap_paired_difference(a, b, clusters=list(range(60)), seed=4)
    assert estimate.mean == pytest.approx(float(np.mean(np.subtract(a, b))))
    assert estimate.low is not None and estimate.high is not None
    assert 0.19 < estimate.low < estimate.mean < estimate.high < 0.21  # pairing narrows the CI
    assert p_value == 0.0
    assert bootstrap_paired_difference(a, b, clusters=list(range(60)), seed=4) == (
        estimate,
        p_value,
    )
    same, p_same = bootstrap_paired_difference(a, a)
    assert same.mean == 0.0 and p_same == 1.0
    with pytest.raises(ValueError, match="line up"):
        bootstrap_paired_difference([1.0], [1.0, 2.0])
