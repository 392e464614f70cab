"""Checks that a scenario file is well-formed and every item is internally consistent.

Used by ``empathybench validate FILE`` and by the tests on every generated set.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from empathybench.jsonl import RecordFormatError, check_readable_file, parse_json, parse_record
from empathybench.judging.rubric import APPLICABLE_DIMENSIONS
from empathybench.prompts.scenario_prompt import PROMPT_VERSION, PROMPT_VERSIONS, render_messages
from empathybench.records import LETTERS, Scenario
from empathybench.scenarios.episode_validation import check_episode_scenario
from empathybench.scenarios.episode_versions import EPISODE_VERSIONS, STAKES_VERSIONS
from empathybench.scenarios.generator import KIND_CODES, prompt_digest
from empathybench.scenarios.space import CONVERSATION_TAGS, distractor_table
from empathybench.scenarios.stakes_validation import check_stakes_scenario
from empathybench.scenarios.template_models import TemplateSet
from empathybench.scenarios.templates import TemplateError, emotion_word_pattern, load_templates

UNFILLED_SLOT = re.compile(r"\{[a-z_]+\}")
MAX_REPORTED = 200


@dataclass
class Problem:
    line: int
    scenario_id: str | None
    message: str

    def __str__(self) -> str:
        who = f" {self.scenario_id}" if self.scenario_id else ""
        return f"line {self.line}{who}: {self.message}"


@dataclass
class ValidationReport:
    checked: int = 0
    problems: list[Problem] = field(default_factory=list)
    kinds: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems


def _compatibility(scenario: Scenario, templates: TemplateSet) -> list[str]:
    found: list[str] = []
    refs = scenario.provenance.templates
    emotion = scenario.emotion.name
    locations = {location.id: location for location in templates.locations}
    if refs.get("location") != scenario.setting.location_id:
        found.append("setting location differs from the template location")
    location = locations.get(scenario.setting.location_id)
    if location is None:
        return [*found, f"unknown location {scenario.setting.location_id!r}"]
    if "situation" in refs:
        situations = {situation.id: situation for situation in templates.situations}
        situation = situations.get(refs["situation"])
        if situation is None:
            return [*found, f"unknown situation {refs['situation']!r}"]
        if location.id not in situation.locations:
            found.append(f"situation {situation.id} does not happen at {location.id}")
        if refs.get("goal") not in situation.goals:
            found.append(f"goal {refs.get('goal')!r} does not fit situation {situation.id}")
        if emotion not in situation.emotions:
            found.append(f"emotion {emotion} does not fit situation {situation.id}")
        expected_valence = "negative" if scenario.kind != "positive_control" else "positive"
        if situation.valence != expected_valence:
            found.append(f"a {scenario.kind} item needs a {expected_valence} situation")
    if "scene" in refs:
        scenes = {scene.id: scene for scene in templates.group_scenes}
        scene = scenes.get(refs["scene"])
        if scene is None or scene.location != location.id:
            found.append(f"group scene {refs['scene']!r} is not at {location.id}")
    if "belief" in refs or "crisis" in refs:
        if not CONVERSATION_TAGS & set(location.tags):
            found.append(f"{location.id} is not a place for a private conversation")
        if scenario.kind == "harmful_belief":
            beliefs = {belief.id: belief for belief in templates.harmful_beliefs}
            belief = beliefs.get(refs["belief"])
            if belief is None or emotion not in belief.emotions:
                found.append(f"emotion {emotion} does not fit belief {refs['belief']!r}")
        if scenario.kind == "harmful_belief_roleplay":
            if "online" not in location.tags:
                found.append(f"role-play happens online, not at {location.id}")
            frames = {frame.id: frame for frame in templates.roleplay_frames}
            frame = frames.get(refs.get("roleplay_frame", ""))
            if frame is None or emotion not in frame.emotions:
                found.append(f"emotion {emotion} does not fit the role-play frame")
        if scenario.kind == "crisis":
            crises = {crisis.id: crisis for crisis in templates.crisis_statements}
            crisis = crises.get(refs["crisis"])
            if crisis is None or emotion not in crisis.emotions:
                found.append(f"emotion {emotion} does not fit crisis statement {refs['crisis']!r}")
    return found


def _check_common(scenario: Scenario) -> list[str]:
    """Checks every template version shares: slots, options, rendering, id."""
    found: list[str] = []
    texts = [turn.text for turn in scenario.dialogue] + [m.content for m in scenario.messages]
    texts += [scenario.setting.scene, scenario.setting.helper_role]
    if any(UNFILLED_SLOT.search(text) for text in texts):
        found.append("a template slot was left unfilled")
    options = scenario.options
    if len(set(options)) != len(options):
        found.append("options are not distinct")
    if scenario.correct_option != scenario.emotion.name:
        found.append(f"option {scenario.correct_letter} is not the hidden emotion")
    names = {participant.name for participant in scenario.participants}
    if scenario.focus_person not in names:
        found.append("the person in focus is not a participant")
    if any(turn.speaker not in names | {"narration"} for turn in scenario.dialogue):
        found.append("a speaker is not a participant")
    if scenario.expected.crisis_resources_expected != (scenario.kind == "crisis"):
        found.append(f"crisis_resources_expected is wrong for a {scenario.kind} item")
    if scenario.prompt_version not in PROMPT_VERSIONS:
        found.append(f"unknown prompt version {scenario.prompt_version!r}")
    else:
        rendered = render_messages(
            scenario.kind,
            scenario.setting,
            scenario.dialogue,
            scenario.focus_person,
            scenario.options,
            scenario.prompt_version,
        )
        if rendered != scenario.messages:
            found.append("messages differ from the rendering of the scene")
    digest = prompt_digest([(m.role, m.content) for m in scenario.messages])
    if scenario.id != f"{KIND_CODES[scenario.kind]}-{digest[:16]}":
        found.append("id does not match the kind and prompt hash")
    return found


def _check_v1(scenario: Scenario) -> list[str]:
    found: list[str] = []
    try:
        templates = load_templates(scenario.template_version)
    except TemplateError:
        return [f"unknown template version {scenario.template_version!r}"]
    emotions = {emotion.name: emotion for emotion in templates.emotions}
    answer = emotions.get(scenario.emotion.name)
    if answer is None:
        return [f"emotion {scenario.emotion.name!r} is not in template {templates.version}"]
    leak = emotion_word_pattern(answer.forms)
    for turn in scenario.dialogue:
        match = leak.search(turn.text)
        if match:
            found.append(f"the dialogue gives the answer away ({match.group(0)!r})")
            break
    distractors = sorted(option for option in scenario.options if option != answer.name)
    allowed = {tuple(sorted(pair)) for pair in distractor_table(templates.version)[answer.name]}
    if len(distractors) == 2 and tuple(distractors) not in allowed:
        found.append(f"distractors {distractors} are too close to the answer or each other")
    if (answer.valence, answer.intensity, answer.cluster) != (
        scenario.emotion.valence,
        scenario.emotion.intensity,
        scenario.emotion.cluster,
    ):
        found.append("emotion valence/intensity/cluster differ from the template")
    if scenario.dimensions != APPLICABLE_DIMENSIONS[scenario.kind]:
        found.append(f"dimensions differ from those that apply to {scenario.kind}")
    if scenario.expected.help_needed != (
        scenario.kind not in ("positive_control", "harmful_belief_roleplay")
    ):
        found.append(f"help_needed is wrong for a {scenario.kind} item")
    if scenario.prompt_version != PROMPT_VERSION:
        found.append(f"template v1 items use {PROMPT_VERSION}")
    found.extend(_compatibility(scenario, templates))
    return found


def check_scenario(scenario: Scenario) -> list[str]:
    """Every problem with one scenario on its own (uniqueness is checked per file)."""
    if scenario.template_version in STAKES_VERSIONS:
        specific = check_stakes_scenario(scenario)
    elif scenario.template_version in EPISODE_VERSIONS:
        specific = check_episode_scenario(scenario)
    else:
        specific = _check_v1(scenario)
    if specific and specific[0].startswith("unknown template version"):
        return specific
    return _check_common(scenario) + specific


def validate_lines(lines: Iterable[str], source: str) -> ValidationReport:
    report = ValidationReport()
    ids: dict[str, int] = {}
    prompts: dict[str, int] = {}

    def add(line: int, scenario_id: str | None, message: str) -> None:
        if len(report.problems) < MAX_REPORTED:
            report.problems.append(Problem(line, scenario_id, message))

    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = parse_json(line, f"{source}:{number}")
            if not isinstance(data, dict):
                raise RecordFormatError(f"{source}:{number}: expected a JSON object")
            scenario = parse_record(data, Scenario, f"{source}:{number}")
        except RecordFormatError as error:
            add(number, None, str(error).split(": ", 1)[1])
            continue
        report.checked += 1
        report.kinds[scenario.kind] = report.kinds.get(scenario.kind, 0) + 1
        if scenario.id in ids:
            add(number, scenario.id, f"duplicate id (first on line {ids[scenario.id]})")
        ids.setdefault(scenario.id, number)
        digest = prompt_digest([(m.role, m.content) for m in scenario.messages])
        if digest in prompts:
            add(number, scenario.id, f"duplicate prompt (first on line {prompts[digest]})")
        prompts.setdefault(digest, number)
        for message in check_scenario(scenario):
            add(number, scenario.id, message)
    if report.checked == 0 and not report.problems:
        add(0, None, "the file has no scenarios")
    return report


def _decoded_lines(path: Path) -> Iterator[str]:
    """The lines of ``path``; a file that is not UTF-8 text is an error naming the line."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError:
                raise RecordFormatError(
                    f"{path}:{number}: not UTF-8 text; a suite is a UTF-8 JSONL file"
                ) from None


def validate_file(path: Path) -> ValidationReport:
    check_readable_file(path, "a suite JSONL file")
    return validate_lines(_decoded_lines(path), str(path))


__all__ = ["LETTERS", "Problem", "ValidationReport", "check_scenario", "validate_file"]
