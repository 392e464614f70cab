"""Audit a suite for shortcuts: surface-only baselines trained on a separately generated set.

The training set is ``generate_records(train_n, train_seed, template_version=...)`` of the
suite's own template version, minus any item the suite holds (same id or same prompt). Each
baseline is fitted on the training items' visible text and keys, then answers every audited
item; its accuracy (overall and per kind, with 95% Wilson intervals) stands beside chance.
A question passes when its best baseline stays within the limit below, fails when it goes
past it, and is "too few" to judge when it has fewer items than the point estimate needs
(``limits.min_items``) and the interval straddles the limit; the suite passes when every
audited question does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from empathybench.analysis.statistics import wilson_interval
from empathybench.audit.baseline import Baseline
from empathybench.audit.keys import (
    NO,
    NOBODY,
    QUESTIONS,
    YES,
    AnswerKeys,
    GeneratedKeys,
    Question,
)
from empathybench.audit.limits import (
    CONFIDENCE,
    DEFAULT_TRAIN_N,
    DEFAULT_TRAIN_SEED,
    EMOTION_MAX_ACCURACY,
    HELP_MAX_MAJORITY,
    HELP_MAX_MARGIN,
    MAX_TRAIN_N,
    WHO_MAX_MARGIN,
    min_items,
)
from empathybench.audit.ngram import (
    NgramAsked,
    NgramChoice,
    NgramLinkedBoard,
    NgramLinkedNote,
    NgramLinkedNoteBoard,
    NgramWho,
    WordCounts,
)
from empathybench.audit.results import (
    Accuracy,
    AuditReport,
    AuditStatus,
    BaselineResult,
    QuestionAudit,
    Thresholds,
    TrainingSet,
    overall_status,
)
from empathybench.audit.rules import (
    AlwaysYes,
    CueLines,
    CueLinesWho,
    FirstNamed,
    FirstSpeaker,
    LastSpeaker,
    LongestOption,
    MajorityKey,
    MajorityLetter,
    MostWords,
    ShortestOption,
    ValenceEmotion,
    ValenceHelp,
)
from empathybench.audit.scene_lookup import SceneLookup
from empathybench.audit.visible import VisibleItem, visible_item
from empathybench.errors import ParameterError, UserError
from empathybench.records import SCENARIO_KINDS, Scenario, Suite
from empathybench.scenarios.episode_versions import BANKS_FROM, CONTENT_FROM
from empathybench.scenarios.generator import (
    MAX_SEED,
    generate_records,
    load_any_templates,
    prompt_digest,
)

ProgressCallback = Callable[[str], None]


@dataclass(frozen=True)
class _Item:
    view: VisibleItem
    kind: str
    keys: dict[Question, str | None]


def installed_template_versions() -> list[str]:
    root = Path(str(resources.files("empathybench.scenarios") / "templates"))
    return sorted(
        path.name
        for path in root.iterdir()
        if (path / "emotions.yaml").is_file()
        or path.name in CONTENT_FROM
        or path.name in BANKS_FROM
    )


def suite_template_version(suite: Suite) -> str:
    """The one template version of the suite's items (a UserError when mixed or empty)."""
    if not suite.scenarios:
        raise UserError(f"suite {suite.name} has no items to audit")
    versions = Counter(item.template_version for item in suite.scenarios)
    if len(versions) > 1:
        counts = ", ".join(f"{v} ({n} items)" for v, n in sorted(versions.items()))
        raise UserError(
            f"suite {suite.name} mixes template versions {counts}; audit one version at a time"
        )
    version = next(iter(versions))
    installed = installed_template_versions()
    if version not in installed:
        raise UserError(
            f"suite {suite.name} uses template version {version!r}, which this empathybench "
            f"cannot generate (installed: {', '.join(installed)}); upgrade empathybench"
        )
    return version


def _check_training_options(suite: Suite, train_n: int, train_seed: int) -> None:
    if not 1 <= train_n <= MAX_TRAIN_N:
        raise ParameterError(
            f"train_n must be between 1 and {MAX_TRAIN_N:,} training items, got {train_n:,}",
            parameters=["train_n"],
        )
    if not 0 <= train_seed <= MAX_SEED:
        raise ParameterError(
            f"train_seed must be between 0 and {MAX_SEED}, got {train_seed}",
            parameters=["train_seed"],
        )
    seeds = {item.provenance.seed for item in suite.scenarios}
    if suite.info is not None:
        seeds.add(suite.info.seed)
    if train_seed in seeds:
        raise ParameterError(
            f"train_seed {train_seed} is the seed suite {suite.name} was "
            "generated with; choose another so the training items are generated separately",
            parameters=["train_seed"],
        )


def _prepare(item: Scenario, keys: AnswerKeys) -> _Item:
    return _Item(visible_item(item), item.kind, {q: keys.key(item, q) for q in QUESTIONS})


def make_baselines(question: Question, valences: dict[str, str]) -> list[Baseline]:
    """The baselines audited for ``question``, in table order."""
    if question == "emotion":
        return [
            NgramChoice(),
            NgramAsked(),
            NgramLinkedNote(),
            NgramLinkedBoard(),
            NgramLinkedNoteBoard(),
            WordCounts(),
            CueLines(),
            ValenceEmotion(valences),
            SceneLookup(),
            MajorityLetter(),
            LongestOption(),
            ShortestOption(),
        ]
    if question == "help":
        return [
            NgramChoice(),
            NgramAsked(),
            NgramLinkedNote(),
            NgramLinkedBoard(),
            NgramLinkedNoteBoard(),
            WordCounts(),
            CueLines(),
            SceneLookup(),
            ValenceHelp(),
            AlwaysYes(),
            MajorityKey(),
        ]
    return [
        NgramWho(),
        CueLinesWho(),
        FirstSpeaker(),
        LastSpeaker(),
        MostWords(),
        FirstNamed(),
    ]


def _accuracy(hits: Sequence[bool]) -> Accuracy:
    correct, n = sum(hits), len(hits)
    interval = wilson_interval(correct, n, CONFIDENCE)
    return Accuracy(
        correct=correct,
        n=n,
        accuracy=correct / n if n else None,
        low=interval[0] if interval else None,
        high=interval[1] if interval else None,
    )


def _chance(question: Question, items: Sequence[VisibleItem], keys: Sequence[str]) -> float:
    if question == "help":
        return max(Counter(keys).values()) / len(keys)
    return sum(1 / len(item.candidates) for item in items) / len(items)


def _limit(question: Question, chance: float) -> tuple[float, str, bool]:
    """The accuracy limit, its rule in words, and whether the chance level itself is fine."""
    if question == "emotion":
        return EMOTION_MAX_ACCURACY, f"at most {EMOTION_MAX_ACCURACY:.0%}", True
    if question == "help":
        rule = (
            f"majority + {HELP_MAX_MARGIN * 100:.0f} points, with a majority of at most "
            f"{HELP_MAX_MAJORITY:.0%}"
        )
        return chance + HELP_MAX_MARGIN, rule, chance <= HELP_MAX_MAJORITY + 1e-12
    return chance + WHO_MAX_MARGIN, f"chance + {WHO_MAX_MARGIN * 100:.0f} points", True


_CANDIDATES = {
    "emotion": "the item's options",
    "help": "yes / no",
    "who": "the group's members",
}


def _audit_question(
    question: Question,
    training: Sequence[tuple[VisibleItem, str]],
    audited: Sequence[tuple[VisibleItem, str, str]],
    valences: dict[str, str],
    progress: ProgressCallback,
) -> QuestionAudit:
    views = [view for view, _, _ in audited]
    keys = [key for _, key, _ in audited]
    kinds = [kind for _, _, kind in audited]
    kind_order = [kind for kind in SCENARIO_KINDS if kind in kinds]
    chance = _chance(question, views, keys)
    kind_chance = {}
    for kind in kind_order:
        chosen = [i for i, k in enumerate(kinds) if k == kind]
        kind_chance[kind] = _chance(question, [views[i] for i in chosen], [keys[i] for i in chosen])
    results = []
    for baseline in make_baselines(question, valences):
        progress(f"{question}: {baseline.name}")
        baseline.fit([view for view, _ in training], [key for _, key in training])
        predictions = baseline.predict_many(views)
        for view, prediction in zip(views, predictions, strict=True):
            if prediction not in view.candidates:
                raise RuntimeError(f"{baseline.name} answered {prediction!r}, not a candidate")
        hits = [p == k for p, k in zip(predictions, keys, strict=True)]
        results.append(
            BaselineResult(
                name=baseline.name,
                description=baseline.description,
                overall=_accuracy(hits),
                kinds={
                    kind: _accuracy([h for h, k in zip(hits, kinds, strict=True) if k == kind])
                    for kind in kind_order
                },
            )
        )
    best = max(results, key=lambda r: r.overall.accuracy or 0.0)
    best_accuracy = best.overall.accuracy or 0.0
    limit, rule, chance_ok = _limit(question, chance)
    needed = min_items(chance, limit)
    status = question_status(best.overall, limit, needed, chance_ok)
    nobody = any(NOBODY in view.candidates for view in views)
    return QuestionAudit(
        question=question,
        n=len(audited),
        candidates=_CANDIDATES[question] + (" or nobody" if nobody else ""),
        chance=chance,
        kind_chance=kind_chance,
        baselines=results,
        best=best.name,
        best_accuracy=best_accuracy,
        limit=limit,
        rule=rule,
        min_items=needed,
        status=status,
        passed=status == "pass",
    )


def question_status(
    best: Accuracy, limit: float, needed: int, chance_ok: bool = True
) -> AuditStatus:
    """pass or fail from the best baseline's point estimate when it has ``needed`` items;
    with fewer, only an interval wholly past the limit fails and one wholly within it
    passes; otherwise too few. A suite whose chance level itself breaks the rule (help
    majority over 60%) fails at any size: that is a count, not an estimate."""
    if not chance_ok:
        return "fail"
    over = (best.accuracy or 0.0) > limit + 1e-12
    if best.n >= needed:
        return "fail" if over else "pass"
    if over and best.low is not None and best.low > limit + 1e-12:
        return "fail"
    if not over and best.high is not None and best.high <= limit + 1e-12:
        return "pass"
    return "too few"


def _training_items(
    records: Iterable[dict[str, object]],
    suite: Suite,
    valences: dict[str, str],
) -> tuple[list[_Item], int, int]:
    """Prepared training items, how many were generated, and how many were dropped."""
    suite_ids = {item.id for item in suite.scenarios}
    suite_prompts = {
        prompt_digest([(m.role, m.content) for m in item.messages]) for item in suite.scenarios
    }
    keys = GeneratedKeys()
    items: list[_Item] = []
    generated = dropped = 0
    for record in records:
        generated += 1
        scenario = Scenario.model_validate(record)
        digest = prompt_digest([(m.role, m.content) for m in scenario.messages])
        if scenario.id in suite_ids or digest in suite_prompts:
            dropped += 1
            continue
        valences.setdefault(scenario.emotion.name, scenario.emotion.valence)
        items.append(_prepare(scenario, keys))
    return items, generated, dropped


def _kind_counts(kinds: Iterable[str]) -> dict[str, int]:
    counts = Counter(kinds)
    return {kind: counts[kind] for kind in SCENARIO_KINDS if kind in counts}


def _candidates(question: Question, view: VisibleItem, nobody: bool) -> tuple[str, ...]:
    if question == "emotion":
        return view.options
    if question == "help":
        return (YES, NO)
    return (*view.names, NOBODY) if nobody else view.names


def audit_suite(
    suite: Suite,
    *,
    source: str | None = None,
    train_n: int = DEFAULT_TRAIN_N,
    train_seed: int = DEFAULT_TRAIN_SEED,
    keys: AnswerKeys | None = None,
    progress: ProgressCallback | None = None,
) -> AuditReport:
    """Train the surface baselines on a fresh set and report their accuracy on ``suite``.

    ``keys`` supplies the audited items' keys (default: the generated ones); it is the hook
    for human annotations. ``progress`` receives a short line before each step.
    """
    say = progress or (lambda _: None)
    version = suite_template_version(suite)
    _check_training_options(suite, train_n, train_seed)
    templates = load_any_templates(version)
    template_valences: dict[str, str] = {e.name: e.valence for e in templates.emotions}
    say(f"generating {train_n:,} training items (template {version}, seed {train_seed})")
    training_valences: dict[str, str] = {}
    training, generated, dropped = _training_items(
        generate_records(train_n, train_seed, template_version=version), suite, training_valences
    )
    valences = {**training_valences, **template_valences}
    audited = [_prepare(item, keys or GeneratedKeys()) for item in suite.scenarios]
    group_keys = [i.keys["who"] for i in (*training, *audited)]
    nobody = NOBODY in group_keys

    questions: list[QuestionAudit] = []
    not_audited: dict[str, str] = {}
    for question in QUESTIONS:
        train_pairs = [
            (i.view.with_candidates(_candidates(question, i.view, nobody)), key)
            for i in training
            if (key := i.keys[question]) is not None
        ]
        audit_triples = [
            (i.view.with_candidates(_candidates(question, i.view, nobody)), key, i.kind)
            for i in audited
            if (key := i.keys[question]) is not None
        ]
        if not audit_triples:
            not_audited[question] = (
                "no group items in the suite" if question == "who" else "no keyed items"
            )
            continue
        if not train_pairs:
            not_audited[question] = "no keyed training items"
            continue
        questions.append(_audit_question(question, train_pairs, audit_triples, valences, say))
    status = overall_status([q.status for q in questions])

    return AuditReport(
        suite=suite.name,
        suite_source=source or suite.name,
        suite_sha256=suite.sha256,
        n=len(suite.scenarios),
        template_version=version,
        kinds=_kind_counts(item.kind for item in suite.scenarios),
        training=TrainingSet(
            requested=train_n,
            seed=train_seed,
            template_version=version,
            generated=generated,
            dropped=dropped,
            used=len(training),
            kinds=_kind_counts(item.kind for item in training),
        ),
        thresholds=Thresholds(
            emotion_max_accuracy=EMOTION_MAX_ACCURACY,
            help_max_margin=HELP_MAX_MARGIN,
            help_max_majority=HELP_MAX_MAJORITY,
            who_max_margin=WHO_MAX_MARGIN,
        ),
        questions=questions,
        not_audited=not_audited,
        status=status,
        passed=status == "pass",
    )
