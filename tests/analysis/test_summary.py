"""The summary's numbers against a hand computation on a tiny scripted run."""

from empathybench.analysis.summary import score_item, summarize
from empathybench.records import DimensionScore, Response, Scenario, Suite, TokenUsage, Verdict


def response(scenario: Scenario, text: str | None, epoch: int = 0) -> Response:
    from empathybench.records import CallError

    return Response(
        run_id="r",
        scenario_id=scenario.id,
        epoch=epoch,
        model="mock/x",
        strategy="plain",
        request_key="k",
        text=text,
        usage=TokenUsage(),
        latency_s=0.0,
        attempts=1,
        cached=False,
        error=None if text is not None else CallError(kind="server", message="x"),
        finished_at="now",
    )


def verdict(scenario: Scenario, judge: str, value: float | None) -> Verdict:
    scores = {}
    for dimension in (
        "moral_behavior",
        "willingness_to_help",
        "cheering_up",
        "assistance_appropriateness",
    ):
        if dimension not in scenario.dimensions:
            scores[dimension] = DimensionScore(status="na")
        elif value is None:
            scores[dimension] = DimensionScore(status="unscored", reason="invalid")
        else:
            scores[dimension] = DimensionScore(status="scored", value=value)
    return Verdict(
        run_id="r",
        scenario_id=scenario.id,
        epoch=0,
        judge=judge,
        rubric_version="rubric-v1",
        scores=scores,
        finished_at="now",
    )


def test_scores_match_a_hand_computation(small_suite: Suite) -> None:
    support = [s for s in small_suite.scenarios if s.kind == "emotion_support"][:2]
    positive = next(s for s in small_suite.scenarios if s.kind == "positive_control")
    a, b = support
    right_a = f"EMOTION: {a.correct_letter}\nNEEDS_HELP: yes\nREPLY: I'm here."
    wrong_b = "EMOTION: none of these\nNEEDS_HELP: no\nREPLY: ok"  # unparsed emotion, wrong help
    responses = {
        (a.id, 0): response(a, right_a),
        (b.id, 0): response(b, wrong_b),
        (positive.id, 0): response(positive, None),
    }
    verdicts = {
        "j1": {(a.id, 0): verdict(a, "j1", 1.0), (b.id, 0): verdict(b, "j1", None)},
        "j2": {(a.id, 0): verdict(a, "j2", 0.5), (b.id, 0): verdict(b, "j2", 0.0)},
    }
    scenarios = {s.id: s for s in (a, b, positive)}
    summary = summarize(
        run_id="r",
        model="mock/x",
        suite_name="s",
        suite_sha256="h",
        scenarios=scenarios,
        responses=responses,
        verdicts=verdicts,
    )
    by_name = {d.dimension: d for d in summary.dimensions}
    emotion = by_name["emotion_recognition"]
    assert (emotion.estimate.mean, emotion.scored, emotion.unscored) == (0.5, 2, 1)
    assert emotion.parse_failures == 1
    assert by_name["assistance_needed"].estimate.mean == 0.5
    cheering = by_name["cheering_up"]
    # a: panel mean (1 + 0.5) / 2 = 0.75; b: only j2 scored it, 0.0; positive: n/a.
    assert cheering.estimate.mean == (0.75 + 0.0) / 2
    assert (cheering.scored, cheering.na, cheering.unscored) == (2, 1, 0)
    appropriateness = by_name["assistance_appropriateness"]
    assert appropriateness.unscored == 1  # the positive item has no answer
    # Item overall: a = mean(1, 1, 0.75, 0.75, 0.75) = 0.85; b = mean(0, 0, 0, 0, 0) = 0.
    assert summary.overall.mean == (0.85 + 0.0) / 2
    assert summary.failed_responses == 1 and summary.responses == 3
    means = [d.estimate.mean for d in summary.dimensions if d.estimate.mean is not None]
    assert summary.seed_overall == sum(means) / len(means)
    assert summary.per_judge["j1"]["cheering_up"] == 1.0


def test_without_judges_text_dimensions_are_not_claimed(small_suite: Suite) -> None:
    scenario = next(s for s in small_suite.scenarios if s.kind == "emotion_support")
    summary = summarize(
        run_id="r",
        model="m",
        suite_name="s",
        suite_sha256="h",
        scenarios={scenario.id: scenario},
        responses={(scenario.id, 0): response(scenario, "EMOTION: A")},
        verdicts={},
    )
    cheering = next(d for d in summary.dimensions if d.dimension == "cheering_up")
    assert not cheering.judged and cheering.unscored == 0 and cheering.estimate.mean is None
    item = score_item(scenario, response(scenario, "EMOTION: A"), {})
    assert set(item.values) == {"emotion_recognition", "assistance_needed"}
