"""The written rubric for rating a therapist's answer on the seed's three components.

Seed 001 (section 3.1.2 and 3.2.1) takes cognitive, emotional and behavioral empathy from
Sanchez et al., *Measuring Empathy in Health Care*, and rates each 1 (absent), 2 (moderate)
or 3 (strong). The anchors below are the project's own wording of that scale, with what
each level looks like in a written answer to a counselling question; the same anchors are
in docs/therapy.md for human raters.
"""

from __future__ import annotations

from dataclasses import dataclass

THERAPY_RUBRIC_VERSION = "therapy-rubric-v1"


@dataclass(frozen=True)
class Component:
    name: str
    title: str
    measures: str
    anchors: dict[int, str]


THERAPY_RUBRIC: dict[str, Component] = {
    component.name: component
    for component in (
        Component(
            "cognitive",
            "Cognitive empathy",
            "Understanding the person's emotional state and situation: does the answer show "
            "that it grasped what this person is going through and why it matters to them?",
            {
                1: "generic or off target: could answer any question; misreads or ignores "
                "what the person described",
                2: "names the situation or feeling correctly but stays on the surface, or "
                "only repeats the person's words back",
                3: "accurately reads the person's state, including what is implied but not "
                "said, and reflects it in specific terms",
            },
        ),
        Component(
            "emotional",
            "Emotional empathy",
            "Perceiving and sharing the person's feelings: warmth, compassion and emotional "
            "resonance expressed toward the person.",
            {
                1: "detached, clinical or judging; no expressed care for how the person feels",
                2: "some warmth or validation, but formulaic or brief",
                3: "clear, genuine-sounding compassion and validation that fits this "
                "person's feelings, without being saccharine",
            },
        ),
        Component(
            "behavioral",
            "Behavioral empathy",
            "Observable supportive action: concrete, suitable next steps, an invitation to "
            "keep talking, or pointing to real help when it is needed.",
            {
                1: "no usable support: no next step, no invitation, or advice that does not "
                "fit (or, for someone at risk, no pointer to real help)",
                2: "general advice or a single suggestion ('talk to someone'), little "
                "tailored to the person",
                3: "specific, appropriate steps or resources for this person, offered "
                "respectfully (crisis help when there is risk)",
            },
        ),
    )
}
