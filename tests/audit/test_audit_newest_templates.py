"""The shortcut audit on the newest template version, as CI runs it.

The newest template version must keep surface baselines near chance on the emotion and who
questions (who needs help in a group is read off a board of numbered requests, across lines).
Its help question is pinned too from v3 on (board episodes ask about one person as well, so an
episode's identity no longer gives the help answer): at most the majority plus 5 points.
"""

from __future__ import annotations

import pytest

from empathybench.audit.limits import EMOTION_MAX_ACCURACY
from empathybench.audit.suite_audit import audit_suite
from empathybench.records import Suite
from empathybench.scenarios.episode_versions import NEWEST_EPISODE_VERSION
from empathybench.scenarios.generator import generate


@pytest.mark.slow
def test_surface_baselines_stay_near_chance_on_the_newest_templates() -> None:
    items = tuple(generate(600, 90210, template_version=NEWEST_EPISODE_VERSION))
    suite = Suite(name=f"fresh-{NEWEST_EPISODE_VERSION}", sha256="0" * 64, scenarios=items)
    report = audit_suite(suite, train_n=2000, train_seed=4242)
    emotion = next(q for q in report.questions if q.question == "emotion")
    assert emotion.best_accuracy <= EMOTION_MAX_ACCURACY, emotion
    # v3 measured: emotion 0.412 (limit 0.43), help 0.623 by the scene lookup (majority
    # 0.58, limit 0.63; 0.618 before that baseline), who 0.292 (chance 0.25; before board
    # episodes a per-person bag of words got 1.0). On 1,000-item sets the scene lookup
    # fails emotion on one seed in five and help on another (docs/audit.md): this seed
    # passes, so the test pins the version against getting worse, not a clean bill.
    who = next(q for q in report.questions if q.question == "who")
    assert who.passed, who
    help_ = next(q for q in report.questions if q.question == "help")
    assert help_.passed, help_
