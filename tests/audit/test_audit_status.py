"""Pass, fail or too few: a question is judged from its best baseline's point estimate only
when it has enough items; with fewer, only an interval wholly on one side of the limit
settles it (12 group items, best of six rules at chance, failed 9 draws in 10 before)."""

from __future__ import annotations

from pathlib import Path

import pytest

from empathybench.audit.limits import min_items
from empathybench.audit.results import Accuracy, overall_status
from empathybench.audit.suite_audit import _accuracy as accuracy_of
from empathybench.audit.suite_audit import question_status
from empathybench.cli import main
from empathybench.scenarios.generator import generate
from empathybench.scenarios.suites import write_scenarios
from tests.fakes.audit_items import shuffled_keys


def _accuracy(correct: int, n: int) -> Accuracy:
    return accuracy_of([True] * correct + [False] * (n - correct))


@pytest.mark.parametrize(
    ("level", "limit", "needed"),
    [(1 / 3, 0.43, 65), (0.25, 0.35, 51), (0.57, 0.62, 266), (0.5, 0.5, 1)],
)
def test_items_needed_for_a_five_percent_false_fail(
    level: float, limit: float, needed: int
) -> None:
    assert min_items(level, limit) == needed


def test_the_needed_count_holds_the_false_fail_rate_near_five_percent() -> None:
    """Exact binomial check of the normal approximation: a baseline truly at chance crosses
    the emotion limit on 65 items about 5% of the time, and far more often on 12."""
    from math import comb

    def crossing(n: int, p: float, limit: float) -> float:
        return sum(comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1) if k / n > limit)

    assert 0.02 < crossing(65, 1 / 3, 0.43) < 0.08
    assert crossing(12, 0.25, 0.35) > 0.15


def test_enough_items_judge_the_point_estimate() -> None:
    assert question_status(_accuracy(43, 100), 0.43, 65) == "pass"
    assert question_status(_accuracy(44, 100), 0.43, 65) == "fail"


def test_few_items_need_an_interval_on_one_side() -> None:
    assert question_status(_accuracy(4, 12), 0.35, 51) == "too few"  # 0.33 [0.14, 0.61]
    assert question_status(_accuracy(6, 12), 0.35, 51) == "too few"  # 0.50 [0.25, 0.75]
    assert question_status(_accuracy(12, 12), 0.35, 51) == "fail"  # [0.76, 1.0]
    assert question_status(_accuracy(0, 30), 0.35, 51) == "pass"  # [0, 0.11]
    assert question_status(_accuracy(3, 10), 0.60, 266, chance_ok=False) == "fail"


def test_the_suite_status_puts_fail_before_too_few() -> None:
    assert overall_status(["pass", "too few", "fail"]) == "fail"
    assert overall_status(["pass", "too few"]) == "too few"
    assert overall_status(["pass", "pass"]) == "pass"
    assert overall_status([]) == "fail"


def test_a_small_suite_is_too_few_to_judge_not_failed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """30 v3 items whose keys were drawn at random, so no baseline can beat chance by much:
    every question's interval straddles its limit, and the audit says so instead of
    passing or failing the suite. (With their real keys the asked-person baseline fails
    emotion even on 30 items.)"""
    path = tmp_path / "small-v3.jsonl"
    items = shuffled_keys(list(generate(30, seed=11, template_version="v3")), seed=3)
    write_scenarios(path, items)
    with pytest.raises(SystemExit) as exited:
        main(["audit", str(path), "--train-n", "300", "--json"])
    out = capsys.readouterr().out
    assert exited.value.code == 1  # not a pass: the audit cannot vouch for the suite
    from empathybench.audit.results import AuditReport

    report = AuditReport.model_validate_json(out)
    assert report.status == "too few" and not report.passed
    assert all(q.status == "too few" for q in report.questions)
    help_ = next(q for q in report.questions if q.question == "help")
    assert help_.status == "too few" and help_.min_items > 200
