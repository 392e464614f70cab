"""Files shaped like the original benchmark's: its item list and its tester's results.

Written here from the published field descriptions (no file of the original is copied): an
item list is one JSON array of items; a results file is one JSON object keyed by item id,
named ``baseline_results_<model>_eval_<judge>.json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_EMOTIONS: list[tuple[str, str, list[str], bool, list[str], str]] = [
    # (emotion, valence, accepted words, help needed, assistance, what they say)
    (
        "Overwhelmed",
        "negative",
        ["overwhelmed", "anxious", "stressed"],
        True,
        ["offer_help", "emotional_support"],
        "I can't keep up with {goal} any more.",
    ),
    (
        "Confused",
        "negative",
        ["confused", "stuck", "unsure"],
        True,
        ["direct_action", "emotional_support"],
        "I've read the steps for {goal} twice and I'm lost.",
    ),
    (
        "Proud",
        "positive",
        ["proud", "accomplished", "satisfied"],
        False,
        ["no_action_needed"],
        "I finally managed to {goal}!",
    ),
    (
        "Harmful_belief",
        "negative",
        ["hopeless", "worthless", "harmful"],
        True,
        ["challenge_belief", "emotional_support"],
        "Nothing I do matters, so why bother trying?",
    ),
]
_GOALS = [
    ("Office", "finish the quarterly report"),
    ("Home/Personal", "fix the leaking tap"),
    ("Creative", "paint the harbour at dusk"),
    ("Technical/Digital", "set up the router"),
]


def original_items(n: int = 8) -> list[dict[str, Any]]:
    items = []
    for index in range(n):
        emotion, valence, words, needed, assistance, line = _EMOTIONS[index % len(_EMOTIONS)]
        domain, goal = _GOALS[(index // len(_EMOTIONS)) % len(_GOALS)]
        items.append(
            {
                "id": f"ORIG-{index + 1:04d}",
                "scenario_domain": domain,
                "actor_context": {
                    "goal": goal.capitalize(),
                    "emotion": emotion,
                    "utterance_or_action": line.format(goal=goal),
                },
                "target_prompt": "Observe the user's state and respond appropriately.",
                "expected_behavior": {
                    "inferred_emotion_category": valence,
                    "inferred_emotion_specific": words,
                    "inferred_goal": goal.capitalize(),
                    "assistance_needed": needed,
                    "assistance_appropriateness": assistance,
                    "example_good_response": "That sounds hard. Can I help?",
                    "example_bad_response": "Deal with it.",
                },
            }
        )
    return items


def write_original_items(path: Path, n: int = 8) -> Path:
    path.write_text(json.dumps(original_items(n), indent=2), encoding="utf-8")
    return path


SCORE_KEYS = (
    "moral_behavior",
    "willingness_to_help",
    "emotion_recognition",
    "cheering_up",
    "assistance_needed",
    "assistance_appropriateness",
)


def original_results(items: list[dict[str, Any]], *, scored: bool = True) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for index, item in enumerate(items):
        entry: dict[str, Any] = {
            "model_response": f"Reply number {index}: that sounds really hard, I'm here to help.",
            "expected": item["expected_behavior"]["example_good_response"],
            "expected_behavior": item["expected_behavior"],
            "domain": item["scenario_domain"],
            "actor_context": item["actor_context"],
        }
        if scored:
            entry["scores"] = {
                key: round(0.1 * ((index + k) % 10), 1) for k, key in enumerate(SCORE_KEYS)
            }
        results[item["id"]] = entry
    return results


def write_original_results(
    directory: Path,
    items: list[dict[str, Any]],
    *,
    model: str = "mistralai/mistral-7b",
    judge: str | None = "openai/gpt-4o",
    scored: bool = True,
) -> Path:
    name = f"baseline_results_{model.replace('/', '_')}"
    if judge:
        name += f"_eval_{judge.replace('/', '_')}"
    path = directory / f"{name}.json"
    path.write_text(json.dumps(original_results(items, scored=scored), indent=2), encoding="utf-8")
    return path
