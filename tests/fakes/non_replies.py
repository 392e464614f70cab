"""Outputs that hold no reply to the person, built from a few patterns × an item's options.

Each pattern is what a weak model was seen to write (SmolLM2 answers with the option list, a
bare invented option, or lines copied from the scene) or what a template echo looks like.
``non_replies(scenario)`` gives 36 per item (fewer without spoken lines); six items, 216.
"""

from __future__ import annotations

from empathybench.records import LETTERS, Scenario

PLACEHOLDERS = (
    "<what you would say or do>",
    "[your reply]",
    "[reply]",
    "{reply}",
    "...",
    "…",
    "N/A",
    "none",
    "TBD",
    "-",
)


def _head(scenario: Scenario, letter: str = "B", help_answer: str = "yes") -> str:
    person = f"PERSON: {scenario.focus_person}\n" if scenario.kind == "group" else ""
    return f"{person}EMOTION: {letter}\nNEEDS_HELP: {help_answer}"


def non_replies(scenario: Scenario) -> list[str]:
    """Outputs with nothing said to the person, for one item."""
    options = list(scenario.options)
    option_lines = [f"{letter}) {option}" for letter, option in zip(LETTERS, options, strict=True)]
    spoken = [t for t in scenario.dialogue if t.speaker != "narration"]
    outputs = [
        "",
        "  \n\t",
        "\n".join(option_lines),
        "\n".join(option_lines) + "\nD) ashamed",
        "D) ashamed",
        "(b)",
        "B",
        "The answer is C.",
        _head(scenario),
        _head(scenario, "A", "no"),
        f"**Emotion:** {LETTERS[1]}\n**Needs help:** yes",
        f"{_head(scenario)}\nREPLY:",
        f"{_head(scenario)}\nREPLY:   \n",
        "EMOTION: <A, B or C>\nNEEDS_HELP: <yes or no>\nREPLY: <what you would say or do>",
        f"{_head(scenario)}\nREPLY: {options[0]}",
        f"{_head(scenario)}\nREPLY:\n" + "\n".join(option_lines),
        f"{_head(scenario)}\nREPLY: B) {options[1]}",
        f"{_head(scenario)}\nREPLY: yes",
    ]
    outputs += [f"{_head(scenario)}\nREPLY: {placeholder}" for placeholder in PLACEHOLDERS]
    outputs += [f"{letter}) {option}" for letter, option in zip(LETTERS, options, strict=True)]
    outputs += [option.capitalize() + "." for option in options]
    if spoken:  # the model speaking the person's own lines back
        turn = spoken[-1]
        outputs.append(f'{turn.speaker}: "{turn.text}"')
        outputs.append(f'{turn.speaker}: "{turn.text}"\n\n' + "\n".join(option_lines))
    return outputs
