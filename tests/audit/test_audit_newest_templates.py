"""The shortcut audit on the newest template versions, as CI runs it.

Up to v4 a bag of words over the asked person's own lines read 0.98-0.99 of emotion keys. v5
moved a person's words into a note under their request number, but a reader that links the
number to the note, then memorises the note (`linked-note`), read v5's keys as well: pinned
below as v5's known failure. v6 (stakes) keys every item on a match between a person's note
and the closing announcement, so every baseline, the two that link number to note and to
announcement included, must stay within the audit's limits.
"""

from __future__ import annotations

from functools import cache

import pytest

from empathybench.audit.limits import EMOTION_MAX_ACCURACY
from empathybench.audit.results import AuditReport, QuestionAudit
from empathybench.audit.suite_audit import audit_suite
from empathybench.records import Suite
from empathybench.scenarios.episode_versions import NEWEST_EPISODE_VERSION, NEWEST_STAKES_VERSION
from empathybench.scenarios.generator import generate

ASKED = "asked-person"
LINKED = "linked-note"


def _baseline(question: QuestionAudit, name: str) -> float:
    value = next(b for b in question.baselines if b.name == name).overall.accuracy
    assert value is not None
    return value


@cache
def _audit(version: str) -> dict[str, QuestionAudit]:
    items = tuple(generate(600, 90210, template_version=version))
    suite = Suite(name=f"fresh-{version}", sha256="0" * 64, scenarios=items)
    report: AuditReport = audit_suite(suite, train_n=2000, train_seed=4242)
    return {q.question: q for q in report.questions}


@pytest.mark.slow
def test_every_baseline_stays_within_the_limits_on_the_stakes_templates() -> None:
    questions = _audit(NEWEST_STAKES_VERSION)
    # v6 on ten fresh 1,000-item sets (benchmarks/results/audit_v6.json): emotion 0.352-0.376,
    # help at or under the majority + 0.016, who within the limit on 9 of 10 (120 items each).
    for name in ("emotion", "help", "who"):
        assert questions[name].passed, questions[name]
    for name in (ASKED, LINKED, "linked-board", "linked-note+board"):
        assert _baseline(questions["emotion"], name) <= EMOTION_MAX_ACCURACY
        assert _baseline(questions["help"], name) <= questions["help"].limit


@pytest.mark.slow
def test_the_linked_note_reader_still_reads_the_newest_episode_templates() -> None:
    questions = _audit(NEWEST_EPISODE_VERSION)
    emotion, help_, who = questions["emotion"], questions["help"], questions["who"]
    # v5 on ten fresh 1,000-item sets: emotion 0.377-0.442 for the whole-scene baselines (one
    # seed of ten over), help within the limit on all ten, who 0.258-0.325. This seed passes,
    # so the test pins the version against getting worse, not a clean bill.
    for question in (emotion, help_):
        others = [b.overall.accuracy for b in question.baselines if b.name != LINKED]
        assert max(v for v in others if v is not None) <= question.limit, question
    assert who.passed, who
    assert _baseline(emotion, ASKED) <= EMOTION_MAX_ACCURACY, emotion
    assert _baseline(help_, ASKED) <= help_.limit, help_
    # Known: linking the number to its note and memorising the note reads v5's keys (0.98-0.99
    # of emotion keys). v6 is the version that fixes it (the test above).
    assert _baseline(emotion, LINKED) > 0.9 and not emotion.passed, emotion
    assert _baseline(help_, LINKED) > help_.limit and not help_.passed, help_
