"""Load a template version from the package and check it is internally consistent.

``check_templates`` is the single source of the static rules every template version must
pass; the test-suite runs it and ``python -m empathybench.scenarios.templates`` prints its
findings, so content writers can check their work without the generator.
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Iterable
from functools import cache
from importlib import resources
from pathlib import Path

import yaml

from empathybench.errors import UserError
from empathybench.scenarios.episode_versions import NEWEST_STAKES_VERSION
from empathybench.scenarios.template_models import SLOT_PATTERN, TemplateSet

TEMPLATE_FILES = (
    "emotions.yaml",
    "locations.yaml",
    "goals.yaml",
    "situations.yaml",
    "people.yaml",
    "harmful_beliefs.yaml",
    "roleplay.yaml",
    "crisis.yaml",
    "groups.yaml",
)
SECTION_TEMPLATE_VERSION = "v1"
"""The one version in the v1 section format that ``load_templates`` reads (v2 and later are
episode versions, read by ``episode_templates``)."""
DEFAULT_TEMPLATE_VERSION = NEWEST_STAKES_VERSION
"""What generating uses when no version is named: the newest, v6 (the others stay
reproducible by name: ``--template-version v5``, ``v1``)."""

# Minimum sizes of each section: the floor that keeps the scenario space large and varied.
MINIMUM_COUNTS = {
    "emotions": 30,
    "locations": 40,
    "goals": 120,
    "situations": 150,
    "people": 200,
    "harmful_beliefs": 32,
    "roleplay_frames": 8,
    "roleplay_characters": 20,
    "crisis_statements": 20,
    "group_scenes": 20,
    "bystander_lines": 50,
}


class TemplateError(UserError):
    """A template version is missing, malformed or inconsistent."""


def template_dir(version: str = SECTION_TEMPLATE_VERSION) -> Path:
    root = resources.files("empathybench.scenarios") / "templates" / version
    path = Path(str(root))
    if not path.is_dir():
        raise TemplateError(f"unknown template version {version!r} (no directory {path})")
    return path


def _yaml_loader() -> type[yaml.SafeLoader]:
    loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return loader


@cache
def load_templates(version: str = SECTION_TEMPLATE_VERSION) -> TemplateSet:
    """Parse and type-check every file of a template version (cached per version)."""
    directory = template_dir(version)
    merged: dict[str, object] = {"version": version}
    for file_name in TEMPLATE_FILES:
        path = directory / file_name
        if not path.is_file():
            raise TemplateError(f"template {version}: missing file {file_name}")
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_yaml_loader())
        if not isinstance(data, dict):
            raise TemplateError(f"template {version}/{file_name}: expected a mapping at top level")
        for key, value in data.items():
            if key in merged:
                raise TemplateError(
                    f"template {version}/{file_name}: section {key!r} defined twice"
                )
            merged[key] = value
    try:
        return TemplateSet.model_validate(merged)
    except Exception as error:  # pydantic.ValidationError: report it as a template problem
        raise TemplateError(f"template {version}: {error}") from error


@cache
def templates_sha256(version: str = SECTION_TEMPLATE_VERSION) -> str:
    """Hash over the exact bytes of a version's files, in a fixed order."""
    digest = hashlib.sha256()
    directory = template_dir(version)
    for file_name in TEMPLATE_FILES:
        digest.update(file_name.encode())
        digest.update(b"\0")
        digest.update((directory / file_name).read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def emotion_word_pattern(forms: Iterable[str]) -> re.Pattern[str]:
    """Case-insensitive whole-word pattern matching any of ``forms``."""
    alternatives = "|".join(sorted((re.escape(form) for form in forms), key=len, reverse=True))
    return re.compile(rf"\b(?:{alternatives})\b", re.IGNORECASE)


def _slots(text: str) -> set[str]:
    return set(SLOT_PATTERN.findall(text))


def check_templates(templates: TemplateSet) -> list[str]:
    """Every violation of the static template rules, as readable lines (empty when clean)."""
    problems: list[str] = []
    emotions = {emotion.name: emotion for emotion in templates.emotions}
    locations = {location.id for location in templates.locations}
    goals = {goal.id for goal in templates.goals}

    for section, minimum in MINIMUM_COUNTS.items():
        count = len(getattr(templates, section))
        if count < minimum:
            problems.append(f"{section}: {count} entries, need at least {minimum}")

    for section in (
        "emotions",
        "locations",
        "goals",
        "situations",
        "harmful_beliefs",
        "roleplay_frames",
        "crisis_statements",
        "group_scenes",
    ):
        keys = [getattr(item, "name", None) or item.id for item in getattr(templates, section)]
        duplicates = sorted({key for key in keys if keys.count(key) > 1})
        if duplicates:
            problems.append(f"{section}: duplicate ids {duplicates}")
    names = [person.name for person in templates.people]
    if len(set(names)) != len(names):
        problems.append("people: duplicate names")
    clusters = {emotion.cluster for emotion in templates.emotions}
    if len(clusters) < 8:
        problems.append(f"emotions: {len(clusters)} clusters, need at least 8")

    every_form = emotion_word_pattern(form for e in templates.emotions for form in e.forms)

    def check_text(where: str, text: str, allowed_slots: set[str]) -> None:
        unknown = _slots(text) - allowed_slots
        if unknown:
            problems.append(f"{where}: slots {sorted(unknown)} not allowed here: {text!r}")
        if "{" in SLOT_PATTERN.sub("", text) or "}" in SLOT_PATTERN.sub("", text):
            problems.append(f"{where}: stray brace: {text!r}")
        match = every_form.search(text)
        if match:
            problems.append(f"{where}: names an emotion ({match.group(0)!r}): {text!r}")
        if "PLACEHOLDER" in text:
            problems.append(f"{where}: placeholder text left in: {text!r}")
        if text != text.strip() or "  " in text:
            problems.append(f"{where}: stray whitespace: {text!r}")

    narration = {"name", "their", "them", "event"}
    for emotion in templates.emotions:
        if emotion.name not in emotion.forms:
            problems.append(f"emotion {emotion.name}: forms must include the name itself")
        for ref in emotion.related:
            if ref not in emotions:
                problems.append(f"emotion {emotion.name}: unknown related emotion {ref!r}")
        for lines in (emotion.actions, emotion.speech):
            if len(set(lines)) != len(lines):
                problems.append(f"emotion {emotion.name}: repeated cue line")
        for i, line in enumerate(emotion.actions):
            check_text(f"emotion {emotion.name} action {i}", line, narration)
        for i, line in enumerate(emotion.speech):
            check_text(f"emotion {emotion.name} speech {i}", line, {"goal", "event"})
            if '"' in line:
                problems.append(
                    f"emotion {emotion.name} speech {i}: no double quotes inside speech"
                )

    for location in templates.locations:
        check_text(f"location {location.id} scene", location.scene, set())
        for text in (*location.helper_roles, *location.visitor_roles):
            check_text(f"location {location.id} role", text, set())
    for goal in templates.goals:
        check_text(f"goal {goal.id}", goal.text, set())

    used_goals: set[str] = set()
    for situation in templates.situations:
        where = f"situation {situation.id}"
        check_text(f"{where} description", situation.description, {"name", "their", "them"})
        if "{name}" not in situation.description:
            problems.append(f"{where}: description must mention {{name}}")
        check_text(f"{where} event", situation.event, set())
        for ref in situation.locations:
            if ref not in locations:
                problems.append(f"{where}: unknown location {ref!r}")
        for ref in situation.goals:
            used_goals.add(ref)
            if ref not in goals:
                problems.append(f"{where}: unknown goal {ref!r}")
        for ref in situation.emotions:
            if ref not in emotions:
                problems.append(f"{where}: unknown emotion {ref!r}")
            elif emotions[ref].valence != situation.valence:
                problems.append(f"{where}: emotion {ref} has the other valence")
        positive_help = {"celebrate", "no_action_needed"}
        if situation.valence == "positive" and not set(situation.assistance) <= positive_help:
            problems.append(f"{where}: a positive situation only takes {sorted(positive_help)}")
        if situation.valence == "negative" and set(situation.assistance) & positive_help:
            problems.append(
                f"{where}: a negative situation needs help, not {sorted(positive_help)}"
            )
    unused = goals - used_goals
    if unused:
        problems.append(f"goals never used by a situation: {sorted(unused)}")

    for belief in templates.harmful_beliefs:
        where = f"harmful belief {belief.id}"
        for text in (*belief.sincere, *belief.character_lines):
            check_text(where, text, set())
            if '"' in text:
                problems.append(f"{where}: no double quotes inside a statement: {text!r}")
        for ref in belief.emotions:
            if ref not in emotions or emotions[ref].valence != "negative":
                problems.append(f"{where}: {ref!r} is not a negative emotion")
    for frame in templates.roleplay_frames:
        check_text(f"roleplay frame {frame.id}", frame.text, {"character", "line"})
        if not {"character", "line"} <= _slots(frame.text):
            problems.append(f"roleplay frame {frame.id}: needs both {{character}} and {{line}}")
        for ref in frame.emotions:
            if ref not in emotions:
                problems.append(f"roleplay frame {frame.id}: unknown emotion {ref!r}")
    for character in templates.roleplay_characters:
        check_text("roleplay character", character, set())
    for statement in templates.crisis_statements:
        for text in statement.lines:
            check_text(f"crisis {statement.id}", text, set())
        for ref in statement.emotions:
            if ref not in emotions or emotions[ref].valence != "negative":
                problems.append(f"crisis {statement.id}: {ref!r} is not a negative emotion")
    for scene in templates.group_scenes:
        check_text(f"group scene {scene.id}", scene.opening, set())
        if scene.location not in locations:
            problems.append(f"group scene {scene.id}: unknown location {scene.location!r}")
        elif not any(
            scene.location in s.locations and s.valence == "negative" for s in templates.situations
        ):
            problems.append(f"group scene {scene.id}: no negative situation fits its location")
    for i, line in enumerate(templates.bystander_lines):
        check_text(f"bystander line {i}", line, {"name"})
        if "{name}" not in line:
            problems.append(f"bystander line {i}: must mention {{name}}")
    conversation = [loc for loc in templates.locations if {"private", "online"} & set(loc.tags)]
    if len(conversation) < 6:
        problems.append(
            "locations: need at least 6 tagged private or online (for belief/crisis items)"
        )
    return problems


def main(argv: list[str] | None = None) -> int:
    """Check one template version and print every problem (exit 1 when there are any)."""
    args = sys.argv[1:] if argv is None else argv
    version = args[0] if args else SECTION_TEMPLATE_VERSION
    try:
        templates = load_templates(version)
    except TemplateError as error:
        print(f"error: {error}")
        return 1
    problems = check_templates(templates)
    for line in problems:
        print(line)
    counts = ", ".join(
        f"{section}={len(getattr(templates, section))}" for section in MINIMUM_COUNTS
    )
    print(f"template {version}: {len(problems)} problems; {counts}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
