"""How well raters' answers agree with the benchmark's key, and with each other.

Per item: how many raters answered, the share whose answer matches the key (emotion letter,
help yes/no, and on group items who needs help), and each question's majority answer. An
item is *flagged* when fewer than ``min_agreement`` (default 80%) of its raters agree with
the key on emotion, help or who; with fewer than two raters it is reported as *too few
raters* instead, never flagged or passed. Between raters: Fleiss' kappa for emotion (A/B/C)
and for help (yes/no) over the items with at least two raters (``annotation.kappa``); who
needs help has different names on every item and gets no kappa. Per rater: the share of
their answers that match the key.

``item_agreement(study_dir)`` is the entry point for other commands (``empathybench audit
--annotations DIR``); ``agreement_report`` does the same from records already in memory.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import Field

from empathybench.annotation.kappa import fleiss_kappa
from empathybench.annotation.records import (
    ANSWERS_FILE,
    EMOTION_LETTERS,
    HELP_ANSWERS,
    Annotation,
    AnnotationKey,
    HelpAnswer,
    KeyItem,
    StudyInfo,
)
from empathybench.errors import ParameterError, UserError
from empathybench.records import SCHEMA_VERSION, Letter, Record, ScenarioKind

DEFAULT_MIN_AGREEMENT = 0.8
MIN_RATERS = 2
ItemStatus = Literal["ok", "flagged", "too few raters"]


class ItemAgreement(Record):
    """One item: its raters, their agreement with the key, and the majority answers.

    Agreements are shares in [0, 1], None when the item has no answers (or, for ``who``, is
    not a group item). A majority is None when there is no answer or a tie for first place.
    """

    item_id: str
    kind: ScenarioKind
    raters: int
    status: ItemStatus
    reasons: list[str]
    """Why the item is flagged, e.g. ``emotion 0.50 < 0.80``."""
    emotion_key: Letter
    emotion_agreement: float | None
    emotion_majority: str | None
    emotion_counts: dict[str, int]
    help_key: HelpAnswer
    help_agreement: float | None
    help_majority: str | None
    help_counts: dict[str, int]
    who_key: str | None = None
    who_agreement: float | None = None
    who_majority: str | None = None
    who_counts: dict[str, int] = Field(default_factory=dict)


class KappaResult(Record):
    """Fleiss' kappa for one question over the items with at least two raters."""

    question: Literal["emotion", "help"]
    kappa: float | None
    """None when undefined (see ``note``)."""
    items: int
    ratings: int
    note: str | None = None


class RaterAccuracy(Record):
    """One rater: how many answers, and the share that match the key."""

    rater_id: str
    answers: int
    emotion_accuracy: float
    help_accuracy: float
    who_answers: int
    who_accuracy: float | None
    """None when the rater answered no group item."""


class AgreementReport(Record):
    """Everything ``annotate results`` reports (``results.json``)."""

    schema_version: int = SCHEMA_VERSION
    study_id: str
    suite_name: str
    suite_sha256: str
    template_version: str
    min_agreement: float
    answers: int
    raters: int
    study_items: int
    answered_items: int
    """Items with at least one answer."""
    rated_items: int
    """Items with at least two raters: the ones that can be flagged or passed."""
    flagged: list[str]
    """Ids of the flagged items, in study order."""
    too_few_raters: list[str]
    kappa_emotion: KappaResult
    kappa_help: KappaResult
    items: list[ItemAgreement]
    rater_accuracy: list[RaterAccuracy]


def _share(matches: Sequence[bool]) -> float | None:
    return sum(matches) / len(matches) if matches else None


def _majority(counts: Counter[str]) -> str | None:
    ranked = counts.most_common(2)
    if not ranked or (len(ranked) == 2 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]


def _help_word(needed: bool) -> HelpAnswer:
    return "yes" if needed else "no"


def _item(key: KeyItem, answers: Sequence[Annotation], min_agreement: float) -> ItemAgreement:
    emotion: Counter[str] = Counter(answer.emotion for answer in answers)
    help_: Counter[str] = Counter(answer.help for answer in answers)
    who: Counter[str] = Counter(answer.who for answer in answers if answer.who is not None)
    help_key = _help_word(key.help_needed)
    shares = {
        "emotion": _share([answer.emotion == key.correct_letter for answer in answers]),
        "help": _share([answer.help == help_key for answer in answers]),
        "who": _share([answer.who == key.who for answer in answers])
        if key.who is not None
        else None,
    }
    if len(answers) < MIN_RATERS:
        status: ItemStatus = "too few raters"
        reasons: list[str] = []
    else:
        reasons = [
            f"{question} {share:.2f} < {min_agreement:.2f}"
            for question, share in shares.items()
            if share is not None and share < min_agreement
        ]
        status = "flagged" if reasons else "ok"
    return ItemAgreement(
        item_id=key.item_id,
        kind=key.kind,
        raters=len(answers),
        status=status,
        reasons=reasons,
        emotion_key=key.correct_letter,
        emotion_agreement=shares["emotion"],
        emotion_majority=_majority(emotion),
        emotion_counts={letter: emotion[letter] for letter in EMOTION_LETTERS},
        help_key=help_key,
        help_agreement=shares["help"],
        help_majority=_majority(help_),
        help_counts={word: help_[word] for word in HELP_ANSWERS},
        who_key=key.who,
        who_agreement=shares["who"],
        who_majority=_majority(who) if key.who is not None else None,
        who_counts=dict(sorted(who.items())),
    )


def _kappa(question: Literal["emotion", "help"], items: Sequence[ItemAgreement]) -> KappaResult:
    rated = [item for item in items if item.raters >= MIN_RATERS]
    categories = EMOTION_LETTERS if question == "emotion" else HELP_ANSWERS
    table = [
        [getattr(item, f"{question}_counts")[category] for category in categories] for item in rated
    ]
    value = fleiss_kappa(table)
    note = None
    if not rated:
        note = f"no item has {MIN_RATERS} or more raters"
    elif value is None:
        note = "every answer is the same, so agreement beyond chance is undefined"
    return KappaResult(
        question=question,
        kappa=value,
        items=len(rated),
        ratings=sum(item.raters for item in rated),
        note=note,
    )


def _rater_accuracy(answers: Sequence[Annotation], keys: dict[str, KeyItem]) -> list[RaterAccuracy]:
    by_rater: dict[str, list[Annotation]] = {}
    for answer in answers:
        by_rater.setdefault(answer.rater_id, []).append(answer)
    results = []
    for rater, own in sorted(by_rater.items()):
        group = [answer for answer in own if keys[answer.item_id].who is not None]
        results.append(
            RaterAccuracy(
                rater_id=rater,
                answers=len(own),
                emotion_accuracy=sum(a.emotion == keys[a.item_id].correct_letter for a in own)
                / len(own),
                help_accuracy=sum(a.help == _help_word(keys[a.item_id].help_needed) for a in own)
                / len(own),
                who_answers=len(group),
                who_accuracy=_share([a.who == keys[a.item_id].who for a in group]),
            )
        )
    return results


def check_min_agreement(min_agreement: float) -> float:
    if not 0.0 < min_agreement <= 1.0:
        raise ParameterError(
            f"min_agreement {min_agreement}: use a share above 0 and at most 1",
            parameters=["min_agreement"],
        )
    return min_agreement


def agreement_report(
    study: StudyInfo,
    key: AnnotationKey,
    answers: Sequence[Annotation],
    *,
    min_agreement: float = DEFAULT_MIN_AGREEMENT,
) -> AgreementReport:
    """The report for ``answers`` to the study (answers of other studies are left out)."""
    check_min_agreement(min_agreement)
    if key.study_id != study.study_id:
        raise UserError(f"key.json is for study {key.study_id}, not {study.study_id}")
    keys = {item.item_id: item for item in key.items}
    own = [answer for answer in answers if answer.study_id == study.study_id]
    for answer in own:
        if answer.item_id not in keys:
            raise UserError(
                f"rater {answer.rater_id} answered item {answer.item_id}, which study "
                f"{study.study_id} does not have; the answers do not match this study"
            )
    by_item: dict[str, list[Annotation]] = {item_id: [] for item_id in keys}
    for answer in own:
        by_item[answer.item_id].append(answer)
    items = [_item(k, by_item[k.item_id], min_agreement) for k in key.items]
    return AgreementReport(
        study_id=study.study_id,
        suite_name=study.suite_name,
        suite_sha256=study.suite_sha256,
        template_version=study.template_version,
        min_agreement=min_agreement,
        answers=len(own),
        raters=len({answer.rater_id for answer in own}),
        study_items=len(items),
        answered_items=sum(item.raters > 0 for item in items),
        rated_items=sum(item.raters >= MIN_RATERS for item in items),
        flagged=[item.item_id for item in items if item.status == "flagged"],
        too_few_raters=[item.item_id for item in items if item.status == "too few raters"],
        kappa_emotion=_kappa("emotion", items),
        kappa_help=_kappa("help", items),
        items=items,
        rater_accuracy=_rater_accuracy(own, keys),
    )


def item_agreement(
    study_dir: Path, *, min_agreement: float = DEFAULT_MIN_AGREEMENT
) -> AgreementReport:
    """The agreement report of the study in ``study_dir`` (``annotate init`` made it).

    Raises ``UserError`` (one line) for a missing or broken study and for a study with no
    answers yet.
    """
    from empathybench.annotation.store import AnnotationStore
    from empathybench.annotation.study import load_key, load_study

    check_min_agreement(min_agreement)
    study, key = load_study(study_dir), load_key(study_dir)
    path = study_dir / ANSWERS_FILE
    answers: list[Annotation] = []
    if path.exists():
        with AnnotationStore(path) as store:
            answers = store.answers(study.study_id)
    if not answers:
        raise UserError(
            f"study {study.study_id} in {study_dir} has no answers yet; collect some with "
            f"empathybench ui --annotations {study_dir} or empathybench annotate import"
        )
    return agreement_report(study, key, answers, min_agreement=min_agreement)
