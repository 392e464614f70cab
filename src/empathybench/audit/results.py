"""The audit's result (``audit.json``) and its Markdown page (``audit.md``)."""

from __future__ import annotations

from typing import Literal

from empathybench.audit.keys import Question
from empathybench.records import Record

AUDIT_SCHEMA = 2
"""2: each question (and the report) has a ``status``: pass, fail, or too few items to judge."""
AuditStatus = Literal["pass", "fail", "too few"]
AUDIT_JSON = "audit.json"
AUDIT_MARKDOWN = "audit.md"


class Accuracy(Record):
    """Share of items a baseline got right, with a 95% Wilson score interval."""

    correct: int
    n: int
    accuracy: float | None
    low: float | None
    high: float | None


class BaselineResult(Record):
    name: str
    description: str
    overall: Accuracy
    kinds: dict[str, Accuracy]
    """Per scenario kind present in the audited items."""


class QuestionAudit(Record):
    question: Question
    n: int
    """Audited items that ask this question."""
    candidates: str
    """What an answer is chosen from."""
    chance: float
    kind_chance: dict[str, float]
    baselines: list[BaselineResult]
    best: str
    """The baseline with the highest overall accuracy (ties: the one listed first)."""
    best_accuracy: float
    limit: float
    """The best baseline's accuracy must not exceed this."""
    rule: str
    """The pass rule in words."""
    min_items: int
    """Items needed to judge the point estimate (``limits.min_items``); with fewer, only an
    interval wholly past the limit (fail) or wholly within it (pass) settles the question."""
    status: AuditStatus
    passed: bool
    """``status == "pass"``."""


class TrainingSet(Record):
    """The separately generated items the baselines were trained on."""

    requested: int
    seed: int
    template_version: str
    generated: int
    dropped: int
    """Generated items whose id or prompt is also in the audited suite (left out)."""
    used: int
    kinds: dict[str, int]


class Thresholds(Record):
    emotion_max_accuracy: float
    help_max_margin: float
    help_max_majority: float
    who_max_margin: float


class AuditReport(Record):
    schema_version: int = AUDIT_SCHEMA
    suite: str
    suite_source: str
    suite_sha256: str
    n: int
    template_version: str
    kinds: dict[str, int]
    training: TrainingSet
    thresholds: Thresholds
    questions: list[QuestionAudit]
    not_audited: dict[str, str]
    """Questions with no audited items, and why."""
    status: AuditStatus
    """fail when a question fails; else too few when a question has too few items to judge;
    else pass."""
    passed: bool
    """Every audited question passed (``status == "pass"``)."""


def percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def accuracy_text(accuracy: Accuracy, interval: bool = True) -> str:
    text = percent(accuracy.accuracy)
    if interval and accuracy.low is not None and accuracy.high is not None:
        text += f" [{100 * accuracy.low:.1f}, {100 * accuracy.high:.1f}]"
    return text


def verdict(status: AuditStatus) -> str:
    return {"pass": "pass", "fail": "FAIL", "too few": "too few items to judge"}[status]


def overall_status(statuses: list[AuditStatus]) -> AuditStatus:
    if not statuses or "fail" in statuses:
        return "fail"
    return "too few" if "too few" in statuses else "pass"


def too_few_note(q: QuestionAudit) -> str:
    return (
        f"{q.question}: {q.n} items, too few to judge (the point estimate needs at least "
        f"{q.min_items}, and the interval straddles the limit)"
    )


def audit_markdown(report: AuditReport) -> str:
    from empathybench.report.tables import markdown_table

    training = report.training
    lines = [
        "# empathybench shortcut audit",
        "",
        f"Suite {report.suite} ({report.suite_sha256[:12]}…), {report.n} items, template "
        f"{report.template_version}. Baselines trained on {training.used:,} items generated "
        f"with seed {training.seed} ({training.dropped} generated items dropped because the "
        "suite holds them).",
        "",
        f"**Overall: {verdict(report.status)}**",
        "",
        "Accuracy with 95% Wilson intervals; a question passes when its best baseline is "
        "within the limit. With fewer items than the point estimate needs, only an interval "
        "wholly past the limit (fail) or wholly within it (pass) settles a question.",
        "",
        markdown_table(
            ["question", "items", "chance", "best baseline", "accuracy", "limit", "result"],
            [
                [
                    q.question,
                    str(q.n),
                    percent(q.chance),
                    q.best,
                    accuracy_text(next(b for b in q.baselines if b.name == q.best).overall),
                    f"≤ {percent(q.limit)} ({q.rule})",
                    verdict(q.status),
                ]
                for q in report.questions
            ],
        ),
    ]
    for question, reason in report.not_audited.items():
        lines += ["", f"{question}: not audited ({reason})."]
    for q in report.questions:
        if q.status == "too few":
            lines += ["", f"{too_few_note(q)}."]
    for q in report.questions:
        kinds = list(q.kind_chance)
        lines += ["", f"## {q.question}", "", f"Answer chosen from {q.candidates}.", ""]
        rows = [
            [b.name, accuracy_text(b.overall), *(accuracy_text(b.kinds[k], False) for k in kinds)]
            for b in q.baselines
        ]
        rows.append(["chance", percent(q.chance), *(percent(q.kind_chance[k]) for k in kinds)])
        lines.append(markdown_table(["baseline", "overall", *kinds], rows))
        lines += ["", *(f"- **{b.name}**: {b.description}" for b in q.baselines)]
    return "\n".join(lines) + "\n"
