"""Seeded, streaming scenario generation.

For each kind, a keyed permutation of that kind's space (see ``space.py``) is walked in
order; each index decodes to one consistent template combination, rendered into a record.
Records whose prompt was already produced are skipped, so a set never repeats a prompt.
Correct letters rotate A/B/C within each kind (balanced to within one per kind), and kinds
are interleaved by a seeded shuffle.

``generate_records`` yields JSON-ready dicts in ``Scenario`` field order (the fast path used
for files); ``generate`` yields validated ``Scenario`` objects built from the same dicts.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from empathybench.errors import ParameterError, UserError
from empathybench.judging.rubric import APPLICABLE_DIMENSIONS
from empathybench.prompts.scenario_prompt import PROMPT_VERSION, render_prompt
from empathybench.records import (
    LETTERS,
    SCENARIO_KINDS,
    SCHEMA_VERSION,
    Scenario,
    ScenarioKind,
)
from empathybench.scenarios.episode_models import EpisodeTemplateSet
from empathybench.scenarios.episode_rendering import build_episode_record
from empathybench.scenarios.episode_space import (
    build_episode_space,
    distinct_prompts,
    frame_help_rate,
)
from empathybench.scenarios.episode_templates import (
    episode_templates_sha256,
    load_episode_templates,
)
from empathybench.scenarios.episode_versions import (
    EPISODE_VERSIONS,
    GENERATION_RULES,
    STAKES_HELP_BLOCK,
    STAKES_HELP_RADIX,
    STAKES_HELP_YES,
    STAKES_VERSIONS,
)
from empathybench.scenarios.permutation import IndexPermutation, Stream, derive_key
from empathybench.scenarios.rendering import render_content
from empathybench.scenarios.space import KindSpace, build_space, distractor_table
from empathybench.scenarios.spread import MAX_SPREAD_SKIPS, SceneSpread
from empathybench.scenarios.stakes_models import StakesTemplateSet
from empathybench.scenarios.stakes_rendering import build_stakes_record
from empathybench.scenarios.stakes_space import build_stakes_space
from empathybench.scenarios.stakes_space import distinct_prompts as stakes_distinct_prompts
from empathybench.scenarios.stakes_templates import load_stakes_templates, stakes_templates_sha256
from empathybench.scenarios.template_models import Emotion, Location, TemplateSet
from empathybench.scenarios.templates import (
    DEFAULT_TEMPLATE_VERSION,
    load_templates,
    templates_sha256,
)
from empathybench.validation import check_count

GENERATOR_VERSION = "generator-v2"
"""Recorded in every bundled suite's index entry. v2: template v6's emotion-support and
positive-control items take their help answer in shuffled blocks (``STAKES_HELP_BLOCK``), so
a v6 seed draws other items than under v1; v1 to v5 draw exactly as before."""
MAX_SEED = 2**63 - 1
MAX_GENERATE = 5_000_000
"""Most scenarios one call generates: the id check keeps every id in memory (~0.5 GB here)."""

# The standard composition per 100 items; also the default mix of `generate`.
DEFAULT_MIX: dict[ScenarioKind, float] = {
    "emotion_support": 42,
    "positive_control": 16,
    "harmful_belief": 12,
    "harmful_belief_roleplay": 6,
    "crisis": 8,
    "group": 16,
}

# The standard composition of template v2 on. Emotion-support and positive-control items
# share one prompt format and differ only in whether the person asked about feels bad or
# good, so their shares follow how many people of each valence the episodes hold (else the
# kind's share would make one person of an episode the likelier key). Harmful beliefs,
# crises and role-play turns always need help, and a group needs help three times in four
# (each person and nobody are equally likely keys of "who"), so those kinds stay small: the
# whole suite stays under 60% yes while no kind answers "no" more often than "yes" (a kind
# that did would hand a surface reader the difference).
EPISODE_MIX: dict[ScenarioKind, float] = {
    "emotion_support": 40,
    "positive_control": 35,
    "harmful_belief": 5,
    "harmful_belief_roleplay": 4,
    "crisis": 4,
    "group": 12,
}

# The standard composition of template v6 (stakes). Emotion-support and positive-control
# items key frustrated or nervous and delighted, so the two stand 2 : 1 and each of the three
# keys is about a third of a suite. Harmful beliefs, crises and role-play turns always need
# help and a group needs help three times in four, while the other two kinds are exactly half
# yes (``STAKES_HELP_BLOCK``): a reader who recognises a kind gains nothing over answering
# "yes" throughout, and these kinds stay small so a suite stays near 58% yes, under the
# audit's 60% cap.
STAKES_MIX: dict[ScenarioKind, float] = {
    "emotion_support": 52,
    "positive_control": 26,
    "harmful_belief": 4,
    "harmful_belief_roleplay": 3,
    "crisis": 3,
    "group": 12,
}


def default_mix(template_version: str) -> dict[ScenarioKind, float]:
    if template_version in STAKES_VERSIONS:
        return dict(STAKES_MIX)
    return dict(EPISODE_MIX if template_version in EPISODE_VERSIONS else DEFAULT_MIX)


KIND_CODES: dict[ScenarioKind, str] = {
    "emotion_support": "es",
    "positive_control": "pc",
    "harmful_belief": "hb",
    "harmful_belief_roleplay": "hr",
    "crisis": "cr",
    "group": "gr",
}


class SpaceTooSmallError(UserError):
    """More items were asked for than a kind's space can provide."""


def kind_counts(n: int, mix: Mapping[ScenarioKind, float]) -> dict[ScenarioKind, int]:
    """Split ``n`` by the weights in ``mix`` (largest remainder, ties in kind order)."""
    if n <= 0:
        raise ParameterError(f"n must be a positive number of scenarios, got {n}", parameters=["n"])
    weights = {kind: float(mix.get(kind, 0)) for kind in SCENARIO_KINDS}
    if not all(math.isfinite(weight) for weight in weights.values()):
        raise UserError("the kind mix needs finite weights")
    if any(weight < 0 for weight in weights.values()) or sum(weights.values()) <= 0:
        raise UserError("the kind mix needs non-negative weights with a positive total")
    total = sum(weights.values())
    exact = {kind: n * weight / total for kind, weight in weights.items()}
    counts = {kind: int(value) for kind, value in exact.items()}
    order = sorted(SCENARIO_KINDS, key=lambda k: (-(exact[k] - counts[k]), SCENARIO_KINDS.index(k)))
    for kind in order[: n - sum(counts.values())]:
        counts[kind] += 1
    return counts


def prompt_digest(messages: list[tuple[str, str]]) -> str:
    """sha256 over (role, content) pairs: the identity of a prompt."""
    joined = "".join([f"{role}\x1f{content}\x1e" for role, content in messages])
    return hashlib.sha256(joined.encode()).hexdigest()


def build_record(
    kind: ScenarioKind,
    space: KindSpace,
    index: int,
    letter_index: int,
    seed: int,
    rank: int,
    templates: TemplateSet,
) -> dict[str, Any]:
    """The combination at ``index`` of ``kind``'s space, as a JSON-ready Scenario record."""
    frame, digits = space.decode(index)
    emotion, location = frame.parts["emotion"], frame.parts["location"]
    assert isinstance(emotion, Emotion) and isinstance(location, Location)
    content = render_content(kind, frame, digits, templates)
    helper_role = location.helper_roles[digits["helper_role"]]
    pair = distractor_table(templates.version)[emotion.name][digits["distractors"]]
    distractors = list(pair) if digits["distractor_order"] == 0 else [pair[1], pair[0]]
    options = [*distractors[:letter_index], emotion.name, *distractors[letter_index:]]
    system, user = render_prompt(
        kind, location.scene, helper_role, content.turns, content.focus, options
    )
    digest = prompt_digest([("system", system), ("user", user)])
    return {
        "schema_version": SCHEMA_VERSION,
        "id": f"{KIND_CODES[kind]}-{digest[:16]}",
        "kind": kind,
        "template_version": templates.version,
        "prompt_version": PROMPT_VERSION,
        "setting": {
            "location_id": location.id,
            "scene": location.scene,
            "helper_role": helper_role,
        },
        "participants": content.participants,
        "focus_person": content.focus,
        "dialogue": [{"speaker": speaker, "text": text} for speaker, text in content.turns],
        "goal": content.goal,
        "emotion": {
            "name": emotion.name,
            "valence": emotion.valence,
            "intensity": emotion.intensity,
            "cluster": emotion.cluster,
        },
        "options": options,
        "correct_letter": LETTERS[letter_index],
        "expected": content.expected,
        "dimensions": list(APPLICABLE_DIMENSIONS[kind]),
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        "provenance": {
            "seed": seed,
            "rank": rank,
            "space_index": index,
            "templates": {**content.templates, "emotion": emotion.name},
        },
    }


def build_episode_item(
    kind: ScenarioKind,
    space: KindSpace,
    index: int,
    letter_index: int,
    seed: int,
    rank: int,
    templates: EpisodeTemplateSet | StakesTemplateSet,
) -> dict[str, Any]:
    """The combination at ``index`` of an episode or stakes version's ``kind`` space, as a
    record."""
    frame, digits = space.decode(index)
    if isinstance(templates, StakesTemplateSet):
        record = build_stakes_record(kind, frame, digits, letter_index, templates)
    else:
        record = build_episode_record(kind, frame, digits, letter_index, templates)
    system, user = record["messages"]
    digest = prompt_digest([(system["role"], system["content"]), (user["role"], user["content"])])
    record["id"] = f"{KIND_CODES[kind]}-{digest[:16]}"
    record["provenance"] = {
        "seed": seed,
        "rank": rank,
        "space_index": index,
        "templates": record["provenance"]["templates"],
    }
    return record


# Kinds whose help answers the v2 generator balances. It balances whole episodes, never the
# person asked about: a "yes" turn takes an episode where at least half of the people this
# kind can ask about need help, a "no" turn one where at most half do, and within the episode
# every person stays equally likely to be asked about (weighting people by their help answer
# would make some of them likelier keys, which a bag of words learns). Harmful beliefs,
# crises and role-play turns always need help, so they are not balanced; group items are not
# either: their key
# is read off a board of numbered requests, each person and nobody equally often.
HELP_BALANCED_KINDS: frozenset[ScenarioKind] = frozenset({"emotion_support", "positive_control"})
# A frame whose episode gives one answer to everyone this kind can ask about (a help rate of
# 0 or 1) lets a reader who recognises the episode answer without reading who is asked; a
# balanced stream keeps only one in this many of them, preferring episodes whose people
# answer differently.
DETERMINED_KEEP = 2
# How many candidates a balanced stream may skip looking for a fitting episode before it
# takes what it finds (a kind whose templates cannot give one answer stays unbalanced).
MAX_HELP_SKIPS = 64
# Permuted positions computed at a time by a stream: small first (a 100-item suite needs few),
# doubling to a window where numpy's per-call cost no longer shows.
MIN_WINDOW, MAX_WINDOW = 64, 4096


@dataclass
class _KindStream:
    """Walks one kind's permuted space, producing records with balanced letters (and, for
    episode versions, balanced help answers)."""

    kind: ScenarioKind
    space: KindSpace
    seed: int
    templates: TemplateSet | EpisodeTemplateSet | StakesTemplateSet
    seen: set[str]
    spread: SceneSpread | None = None

    def __post_init__(self) -> None:
        self._permutation = IndexPermutation(
            self.space.size, derive_key(self.seed, "kind", self.kind)
        )
        self._letter_offset = derive_key(self.seed, "letters", self.kind) % len(LETTERS)
        self._help_offset = derive_key(self.seed, "help", self.kind) % 2
        stakes = isinstance(self.templates, StakesTemplateSet)
        self._balance_help = self.kind in HELP_BALANCED_KINDS and not stakes
        # Stakes items of these kinds take their help answer from a digit; the stream draws
        # them in shuffled blocks, half yes (``STAKES_HELP_BLOCK``), by skipping candidates
        # from the other half of the digit's range.
        self._help_place = (
            self.space.frames[0].place("help")
            if stakes and self.kind in HELP_BALANCED_KINDS and self.space.frames
            else 0
        )
        self._help_blocks = Stream(derive_key(self.seed, "help-blocks", self.kind))
        self._help_block = bytearray()
        # The share of "yes" a balanced kind aims at (both balanced kinds the same, so
        # neither hands a surface reader a difference); see GenerationRules.
        self._yes_share = (
            GENERATION_RULES[self.templates.version].help_yes_share
            if isinstance(self.templates, EpisodeTemplateSet)
            else 0.5
        )

        self._position = 0
        self._window: list[int] = []  # permuted indices from ``_window_start`` on
        self._window_start = 0
        self.rank = 0
        self._yes = 0
        self._rates: dict[int, float] = {}  # help rate per frame position, computed once

    def _build(self, index: int, letter: int) -> dict[str, Any]:
        if isinstance(self.templates, EpisodeTemplateSet | StakesTemplateSet):
            return build_episode_item(
                self.kind, self.space, index, letter, self.seed, self.rank, self.templates
            )
        return build_record(
            self.kind, self.space, index, letter, self.seed, self.rank, self.templates
        )

    def _permuted(self, position: int) -> int:
        """``self._permutation[position]`` for the stream's next position, computed in
        windows (vectorised for wide spaces), each twice the last up to ``MAX_WINDOW``."""
        offset = position - self._window_start
        if not 0 <= offset < len(self._window):
            count = min(max(2 * len(self._window), MIN_WINDOW), MAX_WINDOW)
            self._window = self._permutation.values(position, count)
            self._window_start, offset = position, 0
        return self._window[offset]

    def _frame_rate(self, position: int) -> float:
        rate = self._rates.get(position)
        if rate is None:
            frame = self.space.frames[position]
            rate = self._rates[position] = frame_help_rate(self.kind, frame, self.templates)
        return rate

    def _stakes_help_turn(self) -> int:
        """This rank's help answer (1 yes, 0 no) in its shuffled block, half of them yes."""
        turn = self.rank % STAKES_HELP_BLOCK
        if turn == 0:
            half = STAKES_HELP_BLOCK // 2
            self._help_block = bytearray([1] * half + [0] * (STAKES_HELP_BLOCK - half))
            self._help_blocks.shuffle(self._help_block)
        return self._help_block[turn]

    def next(self) -> dict[str, Any]:
        """The next record (episode versions steer help by frame; stakes ones draw it in blocks)."""
        # Ask for "yes" while this kind has given fewer yes answers than its share of its
        # items so far (an episode's rate only sets the odds, so the count steers the
        # realised share).
        wanted = self._yes + self._help_offset / 2 < self._yes_share * (self.rank + 1)
        if self._help_place:
            wanted = bool(self._stakes_help_turn())
        skipped = 0
        spread_skips = 0
        while self._position < self.space.size:
            index = self._permuted(self._position)
            self._position += 1
            if self._balance_help and skipped < MAX_HELP_SKIPS:
                rate = self._frame_rate(self.space.frame_position(index))
                determined = rate in (0.0, 1.0) and index % DETERMINED_KEEP != 0
                if determined or ((rate < 0.5) if wanted else (rate > 0.5)):
                    skipped += 1
                    continue
            if (
                self._help_place
                and ((index // self._help_place) % STAKES_HELP_RADIX < STAKES_HELP_YES) != wanted
            ):
                continue
            letter = (self.rank + self._letter_offset) % len(LETTERS)
            record = self._build(index, letter)
            if record["id"] in self.seen:
                continue
            if self.spread is not None:
                if not self.spread.admits(record):
                    spread_skips += 1
                    if spread_skips > MAX_SPREAD_SKIPS:
                        raise SpaceTooSmallError(
                            f"the {self.kind} items ran out of new scenes and people after "
                            f"{self.rank} items (at most {self.spread.per_family} per scene "
                            "family, each person asked about once); lower n"
                        )
                    continue
                self.spread.add(record)
            self.seen.add(record["id"])
            self.rank += 1
            self._yes += bool(record["expected"]["help_needed"])
            return record
        raise SpaceTooSmallError(
            f"the {self.kind} space ran out of distinct prompts after {self.rank} items"
        )


def _spaces(template_version: str) -> dict[ScenarioKind, KindSpace]:
    if template_version in STAKES_VERSIONS:
        return build_stakes_space(template_version)
    if template_version in EPISODE_VERSIONS:
        return build_episode_space(template_version)
    return build_space(template_version)


def load_any_templates(
    template_version: str,
) -> TemplateSet | EpisodeTemplateSet | StakesTemplateSet:
    """The templates of any version (v1 sections, v2-v5 episodes, v6 stakes); all list
    `emotions`."""
    if template_version in STAKES_VERSIONS:
        return load_stakes_templates(template_version)
    if template_version in EPISODE_VERSIONS:
        return load_episode_templates(template_version)
    return load_templates(template_version)


def any_templates_sha256(template_version: str) -> str:
    """The hash over the exact files of any template version (what a suite records)."""
    if template_version in STAKES_VERSIONS:
        return stakes_templates_sha256(template_version)
    if template_version in EPISODE_VERSIONS:
        return episode_templates_sha256(template_version)
    return templates_sha256(template_version)


def space_sizes(template_version: str = DEFAULT_TEMPLATE_VERSION) -> dict[ScenarioKind, int]:
    return {kind: space.size for kind, space in _spaces(template_version).items()}


def space_report(
    template_version: str = DEFAULT_TEMPLATE_VERSION,
) -> dict[ScenarioKind, tuple[int, int]]:
    """Per kind: content frames and distinct prompts the templates can produce."""
    spaces = _spaces(template_version)
    if template_version in STAKES_VERSIONS:
        distinct = stakes_distinct_prompts(template_version)
    elif template_version in EPISODE_VERSIONS:
        distinct = distinct_prompts(template_version)
    else:
        distinct = {kind: space.size for kind, space in spaces.items()}
    return {kind: (len(space.frames), distinct[kind]) for kind, space in spaces.items()}


def generate_records(
    n: int,
    seed: int,
    mix: Mapping[ScenarioKind, float] | None = None,
    template_version: str = DEFAULT_TEMPLATE_VERSION,
    per_family: int | None = None,
) -> Iterator[dict[str, Any]]:
    """Yield ``n`` distinct scenario records for ``seed``, lazily (flat memory in ``n``).

    ``per_family`` (episode versions; for small frozen suites): ask about each person of an
    episode at most once and take at most ``per_family`` items from one scene family.
    """
    check_count("n", n, maximum=MAX_GENERATE)
    if not 0 <= seed <= MAX_SEED:
        raise ParameterError(
            f"seed must be between 0 and {MAX_SEED}, got {seed}", parameters=["seed"]
        )
    counts = kind_counts(n, default_mix(template_version) if mix is None else mix)
    templates = load_any_templates(template_version)
    spaces = _spaces(template_version)
    available = {kind: distinct for kind, (_, distinct) in space_report(template_version).items()}
    for kind, count in counts.items():
        if count > available[kind]:
            raise SpaceTooSmallError(
                f"asked for {count:,} {kind} items but template {template_version} has only "
                f"{available[kind]:,} {kind} combinations; lower n or change the kind mix"
            )
    order = bytearray()
    for position, kind in enumerate(SCENARIO_KINDS):
        order.extend(bytes([position]) * counts[kind])
    Stream(derive_key(seed, "order")).shuffle(order)
    seen: set[str] = set()
    spread = SceneSpread(per_family) if per_family is not None else None
    streams = {
        kind: _KindStream(kind, spaces[kind], seed, templates, seen, spread)
        for kind in SCENARIO_KINDS
        if counts[kind]
    }
    for position in order:
        yield streams[SCENARIO_KINDS[position]].next()


def generate(
    n: int,
    seed: int,
    mix: Mapping[ScenarioKind, float] | None = None,
    template_version: str = DEFAULT_TEMPLATE_VERSION,
) -> Iterator[Scenario]:
    """``generate_records`` as validated ``Scenario`` objects."""
    for record in generate_records(n, seed, mix, template_version):
        yield Scenario.model_validate(record)
