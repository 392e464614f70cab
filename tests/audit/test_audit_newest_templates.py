"""The shortcut audit on the newest template version, as CI runs it.

The whole-scene baselines and the asked-person one must stay near chance on the emotion and
who questions, and help at most the majority plus 5 points. Up to v4 the asked-person
baseline read 0.98-0.99 of emotion keys from the asked person's own lines; v5 moves a
person's words into a note under their request number, and it falls to 0.35-0.41. But a
reader that links the number the person says to the note, then memorises the note
(`linked-note`), reads v5's keys as the asked-person baseline read v4's: a known, open
failure (docs/audit.md), pinned here so that the version that fixes it has to say so.
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
LINKED = "linked-note"


def _baseline(question: QuestionAudit, name: str) -> float:
    value = next(b for b in question.baselines if b.name == name).overall.accuracy
    assert value is not None
    return value


@pytest.mark.slow
def test_surface_baselines_stay_near_chance_on_the_newest_templates() -> None:
    items = tuple(generate(600, 90210, template_version=NEWEST_EPISODE_VERSION))
    suite = Suite(name=f"fresh-{NEWEST_EPISODE_VERSION}", sha256="0" * 64, scenarios=items)
    report = audit_suite(suite, train_n=2000, train_seed=4242)
    questions = {q.question: q for q in report.questions}
    emotion, help_, who = questions["emotion"], questions["help"], questions["who"]
    # v5 on ten fresh 1,000-item sets: emotion 0.377-0.442 (one seed of ten over, by the
    # whole-scene bag of words, as v4 on the same seed), help within the limit on all ten,
    # who 0.258-0.325. This seed passes, so the test pins the version against getting
    # worse, not a clean bill.
    for question in (emotion, help_):
        others = [b.overall.accuracy for b in question.baselines if b.name != LINKED]
        assert max(v for v in others if v is not None) <= question.limit, question
    assert who.passed, who
    # The asked person's own lines: v2-v4 read 0.98-0.99 of emotion keys from them.
    assert _baseline(emotion, ASKED) <= EMOTION_MAX_ACCURACY, emotion
    assert _baseline(help_, ASKED) <= help_.limit, help_
    # Known and open: linking the number to its note and memorising the note reads the key
    # (v5: 0.98-0.99 of emotion keys). When a version fixes that, these flip.
    assert _baseline(emotion, LINKED) > 0.9 and not emotion.passed, emotion
    assert _baseline(help_, LINKED) > help_.limit and not help_.passed, help_
