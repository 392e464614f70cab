"""``annotate init``: an annotation study directory from a suite, and reading one back.

Order: the suite's items are ranked by ``sha256("order", seed, item_id)``; the first ``n``
are the study, in that order. The rank of an item depends only on the seed and its id, so
the same suite and seed give the same study on every platform, and ``--n`` takes a prefix.

Re-initialising a directory is safe: the same study again keeps ``study.json`` and rewrites
the (identical) form and key, restoring them if they were lost; a different
study replaces the files only while no one has answered; a suite of another template
version than the one recorded is refused (its items would not be comparable), as is a
non-empty directory that is not a study.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from empathybench.annotation.items import form_item, key_item
from empathybench.annotation.records import (
    ANSWERS_FILE,
    FORM_FILE,
    KEY_FILE,
    STUDY_FILE,
    AnnotationForm,
    AnnotationKey,
    StudyInfo,
)
from empathybench.errors import ParameterError, UserError
from empathybench.jsonl import atomic_write_text, canonical_digest, pretty_json, read_json_record
from empathybench.records import Suite
from empathybench.runtime.provenance import now_iso
from empathybench.scenarios.suites import load_suite

STUDY_ID_LENGTH = 12
INIT_HINT = "run empathybench annotate init SUITE -o DIR"


@dataclass(frozen=True)
class InitOutcome:
    """What ``init_study`` did: ``created``, ``unchanged`` (same study) or ``replaced``."""

    action: Literal["created", "unchanged", "replaced"]
    study: StudyInfo
    form: AnnotationForm


def study_order(item_ids: list[str], *, seed: int, n: int | None = None) -> list[str]:
    """The first ``n`` (default all) of ``item_ids`` in seeded order (see the module notes)."""
    if len(set(item_ids)) != len(item_ids):
        raise UserError("the suite has duplicate item ids; regenerate it")
    if n is not None and not 1 <= n <= len(item_ids):
        raise ParameterError(
            f"n {n}: the suite has {len(item_ids)} items; use 1 to {len(item_ids)}",
            parameters=["n"],
        )
    ranked = sorted(
        item_ids, key=lambda item_id: (canonical_digest("order", seed, item_id), item_id)
    )
    return ranked if n is None else ranked[:n]


def suite_template_version(suite: Suite) -> str:
    """The suite's template version (``+``-joined if its items mix versions)."""
    if suite.info is not None:
        return suite.info.template_version
    return "+".join(sorted({item.template_version for item in suite.scenarios}))


def build_study(
    suite: Suite, *, source: str, seed: int = 0, n: int | None = None, created_at: str | None = None
) -> tuple[StudyInfo, AnnotationForm, AnnotationKey]:
    """The study, the form raters see and the key, for ``n`` items of ``suite``."""
    if not suite.scenarios:
        raise UserError(f"suite {source} has no items; nothing to annotate")
    order = study_order([item.id for item in suite.scenarios], seed=seed, n=n)
    by_id = {item.id: item for item in suite.scenarios}
    template_version = suite_template_version(suite)
    study_id = canonical_digest("study", suite.sha256, template_version, order)[:STUDY_ID_LENGTH]
    study = StudyInfo(
        study_id=study_id,
        suite_name=suite.name,
        suite_source=source,
        suite_sha256=suite.sha256,
        template_version=template_version,
        seed=seed,
        created_at=created_at if created_at is not None else now_iso(),
        item_ids=order,
    )
    form = AnnotationForm(study_id=study_id, items=[form_item(by_id[i]) for i in order])
    key = AnnotationKey(study_id=study_id, items=[key_item(by_id[i]) for i in order])
    return study, form, key


def _study_file(directory: Path, name: str) -> Path:
    if not directory.is_dir():
        raise UserError(f"{directory}: no such study directory; {INIT_HINT}")
    path = directory / name
    if not path.is_file():
        raise UserError(f"{directory}: not an annotation study (no {name}); {INIT_HINT}")
    return path


def load_study(directory: Path) -> StudyInfo:
    """``study.json``: which suite and items the study holds."""
    return read_json_record(_study_file(directory, STUDY_FILE), StudyInfo)


def load_form(directory: Path) -> AnnotationForm:
    """``form.json``, checked to belong to the study: all the rater app may read."""
    study = load_study(directory)
    form = read_json_record(_study_file(directory, FORM_FILE), AnnotationForm)
    if form.study_id != study.study_id or [i.item_id for i in form.items] != study.item_ids:
        raise UserError(
            f"{directory / FORM_FILE} does not match {STUDY_FILE} (study {study.study_id}); "
            f"re-run empathybench annotate init for {study.suite_source}"
        )
    return form


def load_key(directory: Path) -> AnnotationKey:
    """``key.json``, checked to belong to the study (for results, never for the rater app)."""
    study = load_study(directory)
    key = read_json_record(_study_file(directory, KEY_FILE), AnnotationKey)
    if key.study_id != study.study_id or [i.item_id for i in key.items] != study.item_ids:
        raise UserError(
            f"{directory / KEY_FILE} does not match {STUDY_FILE} (study {study.study_id}); "
            f"re-run empathybench annotate init for {study.suite_source}"
        )
    return key


def _answer_count(directory: Path) -> int:
    from empathybench.annotation.store import AnnotationStore

    if not (directory / ANSWERS_FILE).exists():
        return 0
    with AnnotationStore(directory / ANSWERS_FILE) as store:
        return store.count()


def _check_target(directory: Path, study: StudyInfo) -> Literal["created", "unchanged", "replaced"]:
    """What writing ``study`` into ``directory`` would do; a UserError where it must not."""
    if directory.exists() and not directory.is_dir():
        raise UserError(f"{directory}: exists and is not a directory")
    if not directory.exists() or not any(directory.iterdir()):
        return "created"
    if not (directory / STUDY_FILE).exists():
        raise UserError(
            f"{directory}: not empty and not an annotation study (no {STUDY_FILE}); "
            "give an empty or new directory"
        )
    existing = load_study(directory)
    if existing.template_version != study.template_version:
        raise UserError(
            f"{directory} holds a study of template version {existing.template_version}, but "
            f"{study.suite_source} is template version {study.template_version}; "
            "use another directory"
        )
    if existing.study_id == study.study_id:
        return "unchanged"
    answers = _answer_count(directory)
    if answers:
        raise ParameterError(
            f"{directory} holds study {existing.study_id} with {answers} answer(s); "
            "use another directory for a different suite, seed or n",
            parameters=["n"],
        )
    return "replaced"


def init_study(
    directory: Path, suite_source: str, *, seed: int = 0, n: int | None = None
) -> InitOutcome:
    """Create (or confirm) the study of ``suite_source`` in ``directory``; see the notes."""
    suite = load_suite(suite_source)
    study, form, key = build_study(suite, source=suite_source, seed=seed, n=n)
    action = _check_target(directory, study)
    if action == "unchanged":  # keep study.json (its date); restore the form and key
        study = load_study(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for name, record in ((FORM_FILE, form), (KEY_FILE, key), (STUDY_FILE, study)):
        atomic_write_text(directory / name, pretty_json(record))
    return InitOutcome(action, study, form)
