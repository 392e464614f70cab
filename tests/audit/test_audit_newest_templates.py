"""The shortcut audit on the newest template version, as CI runs it.

Template v2 must keep surface baselines near chance on the emotion question. Its help and
who questions do not pass yet (see docs/templates-v2.md): this test pins the emotion result
and records the others, so a regression on emotion fails CI while the open work is visible.
"""

from __future__ import annotations

import pytest

from empathybench.audit.limits import EMOTION_MAX_ACCURACY
from empathybench.audit.suite_audit import audit_suite
from empathybench.scenarios.generator import generate
from empathybench.types import Suite


@pytest.mark.slow
def test_surface_baselines_stay_near_chance_on_v2_emotion() -> None:
    items = tuple(generate(600, 90210, template_version="v2"))
    suite = Suite(name="fresh-v2", sha256="0" * 64, scenarios=items)
    report = audit_suite(suite, train_n=2000, train_seed=4242)
    emotion = next(q for q in report.questions if q.question == "emotion")
    assert emotion.best_accuracy <= EMOTION_MAX_ACCURACY, emotion
