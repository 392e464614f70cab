"""The shortcut audit on the newest template version, as CI runs it.

The baselines that read the whole scene must stay near chance on the emotion and who
questions (who needs help in a group is read off a board of numbered requests, across lines),
and help at most the majority plus 5 points (from v3 on board episodes ask about one person
as well, so an episode's identity no longer gives the help answer). The asked-person
baseline fails emotion and help on every episode version so far; the test pins that too, so
the version that fixes it has to say so here.
"""

from __future__ import annotations

import pytest

from empathybench.audit.limits import EMOTION_MAX_ACCURACY
from empathybench.audit.results import QuestionAudit
from empathybench.audit.suite_audit import audit_suite
from empathybench.records import Suite
from empathybench.scenarios.episode_versions import NEWEST_EPISODE_VERSION
from empathybench.scenarios.generator import generate

ASKED = "asked-person"
"""The baseline that reads only the lines of the person the question names: every person's
lines belong to one role with one emotion and one help answer, so it memorises them (0.96 on
standard-v4's emotion items). A known, open failure of v2 to v4 (docs/audit.md)."""


def _best_without_asked(question: QuestionAudit) -> float:
    values = [b.overall.accuracy for b in question.baselines if b.name != ASKED]
    return max(v for v in values if v is not None)


@pytest.mark.slow
def test_surface_baselines_stay_near_chance_on_the_newest_templates() -> None:
    items = tuple(generate(600, 90210, template_version=NEWEST_EPISODE_VERSION))
    suite = Suite(name=f"fresh-{NEWEST_EPISODE_VERSION}", sha256="0" * 64, scenarios=items)
    report = audit_suite(suite, train_n=2000, train_seed=4242)
    emotion = next(q for q in report.questions if q.question == "emotion")
    help_ = next(q for q in report.questions if q.question == "help")
    # The baselines that read the whole scene: v3 measured emotion 0.412 (limit 0.43), help
    # 0.623 by the scene lookup (majority 0.58, limit 0.63), who 0.292 (chance 0.25; before
    # board episodes a per-person bag of words got 1.0). On 1,000-item sets they fail
    # emotion or help on about one seed in ten (docs/audit.md): this seed passes, so the
    # test pins the version against getting worse, not a clean bill.
    assert _best_without_asked(emotion) <= EMOTION_MAX_ACCURACY, emotion
    assert _best_without_asked(help_) <= help_.limit, help_
    who = next(q for q in report.questions if q.question == "who")
    assert who.passed, who
    # Known and open: the asked person's own lines give their emotion and help answer by
    # lookup, so the audit fails both questions. When a template version fixes that, these
    # flip: replace them by `emotion.passed` and `help_.passed`.
    asked = {q.question: next(b for b in q.baselines if b.name == ASKED) for q in (emotion, help_)}
    assert asked["emotion"].overall.accuracy > 0.9 and not emotion.passed, emotion
    assert asked["help"].overall.accuracy > help_.limit and not help_.passed, help_
