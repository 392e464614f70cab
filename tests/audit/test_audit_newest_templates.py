"""The shortcut audit on the newest template version, as CI runs it.

Template v2 must keep surface baselines near chance on the emotion and who questions (who
needs help in a group is read off a board of numbered requests, across lines). Its help
question passes on some fresh seeds and misses by a fraction of a point on others (see
docs/templates-v2.md), so this test pins emotion and who and leaves help to the benchmark.
"""

from __future__ import annotations

import pytest

from empathybench.audit.limits import EMOTION_MAX_ACCURACY
from empathybench.audit.suite_audit import audit_suite
from empathybench.records import Suite
from empathybench.scenarios.generator import generate


@pytest.mark.slow
def test_surface_baselines_stay_near_chance_on_v2_emotion_and_who() -> None:
    items = tuple(generate(600, 90210, template_version="v2"))
    suite = Suite(name="fresh-v2", sha256="0" * 64, scenarios=items)
    report = audit_suite(suite, train_n=2000, train_seed=4242)
    emotion = next(q for q in report.questions if q.question == "emotion")
    assert emotion.best_accuracy <= EMOTION_MAX_ACCURACY, emotion
    # Measured 0.306 (chance 0.25); before board episodes a per-person bag of words got 1.0.
    who = next(q for q in report.questions if q.question == "who")
    assert who.passed, who
