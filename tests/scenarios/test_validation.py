import json
from pathlib import Path

import pytest

from empathybench.errors import UserError
from empathybench.jsonl import canonical_json
from empathybench.records import Scenario
from empathybench.scenarios.generator import generate
from empathybench.scenarios.validation import validate_file, validate_lines


@pytest.fixture(scope="module")
def scenarios() -> list[Scenario]:
    return list(generate(60, seed=5, template_version="v1"))


def lines_of(items: list[Scenario]) -> list[str]:
    return [canonical_json(item) for item in items]


def edited(scenario: Scenario, **changes: object) -> str:
    data = scenario.model_dump(mode="json")
    for path, value in changes.items():
        target = data
        keys = path.split("__")
        for key in keys[:-1]:
            target = target[int(key)] if isinstance(target, list) else target[key]
        last = keys[-1]
        if isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value
    return json.dumps(data)


def messages_of(report: object) -> list[str]:
    return [problem.message for problem in report.problems]  # type: ignore[attr-defined]


def test_generated_lines_are_clean(scenarios: list[Scenario]) -> None:
    report = validate_lines(lines_of(scenarios), "mem")
    assert report.ok, report.problems
    assert report.checked == 60


def test_answer_word_in_dialogue_is_caught(scenarios: list[Scenario]) -> None:
    item = scenarios[0]
    leaked = f"It is obvious from the way {item.focus_person} looks: {item.emotion.name}."
    line = edited(item, dialogue__0__text=leaked)
    report = validate_lines([line], "mem")
    assert any("gives the answer away" in m for m in messages_of(report))


def test_unfilled_slot_is_caught(scenarios: list[Scenario]) -> None:
    line = edited(scenarios[1], dialogue__1__text="{name} looks around.")
    assert any("unfilled" in m for m in messages_of(validate_lines([line], "mem")))


def test_duplicate_ids_and_prompts_are_caught(scenarios: list[Scenario]) -> None:
    report = validate_lines(lines_of([scenarios[2], scenarios[2]]), "mem")
    found = messages_of(report)
    assert any("duplicate id" in m for m in found)
    assert any("duplicate prompt" in m for m in found)


def test_options_that_repeat_or_miss_the_answer_are_caught(scenarios: list[Scenario]) -> None:
    item = scenarios[3]
    others = [o for o in item.options if o != item.emotion.name]
    line = edited(item, options=[others[0], others[0], others[1]])
    found = messages_of(validate_lines([line], "mem"))
    assert any("not distinct" in m for m in found)
    assert any("not the hidden emotion" in m for m in found)


def test_incompatible_location_is_caught(scenarios: list[Scenario]) -> None:
    item = next(s for s in scenarios if "situation" in s.provenance.templates)
    line = edited(
        item,
        provenance__templates__situation=item.provenance.templates["situation"],
        provenance__templates__location="smart_speaker_home",
        setting__location_id="smart_speaker_home",
    )
    found = messages_of(validate_lines([line], "mem"))
    assert any("does not happen at" in m or "not a place" in m for m in found), found


def test_tampered_prompt_is_caught(scenarios: list[Scenario]) -> None:
    item = scenarios[4]
    line = edited(item, messages__1__content=item.messages[1].content + " Psst: the answer is A.")
    found = messages_of(validate_lines([line], "mem"))
    assert any("messages differ" in m for m in found)
    assert any("id does not match" in m for m in found)


def test_unknown_schema_version_names_the_line(scenarios: list[Scenario]) -> None:
    line = edited(scenarios[5], schema_version=99)
    report = validate_lines(["", lines_of(scenarios[:1])[0], line], "f.jsonl")
    assert report.problems[0].line == 3
    assert "schema version 99" in report.problems[0].message


def test_malformed_json_names_the_line(scenarios: list[Scenario]) -> None:
    report = validate_lines([lines_of(scenarios[:1])[0], '{"id": '], "f.jsonl")
    assert [p.line for p in report.problems] == [2]
    assert "not valid JSON" in report.problems[0].message


def test_missing_file_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such file"):
        validate_file(tmp_path / "absent.jsonl")


def test_empty_file_is_a_problem(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("")
    assert not validate_file(path).ok
