"""The therapist prompt of the therapy track, word for word from the seed study.

Seed 001 (section 3.1.1) asked every model to answer each counselling question with the
prompt below and a limit of 640 output tokens — the length of the longest human therapist's
answer in its dataset — so that model and human answers are compared at similar length.
The wording is versioned: any change is a new ``THERAPIST_PROMPT_VERSION``, never an edit.
"""

from __future__ import annotations

from empathybench.records import ChatMessage

THERAPIST_PROMPT_VERSION = "therapist-prompt-v1"
THERAPIST_PROMPT_SOURCE = (
    "seed 001, section 3.1.1 (Haleas, 'Exploring the Empathy of Leading LLMs')"
)
THERAPIST_MAX_TOKENS = 640

THERAPIST_PROMPT = (
    "You are an empathetic therapist. Provide a single thoughtful and supportive response "
    "to the patient.\n"
    "- Do not include instructions, explanations, or multiple responses.\n"
    "- Only provide one response as the therapist.\n"
    "Patient: {question}\n"
    "Therapist:"
)


def therapist_messages(question: str) -> list[ChatMessage]:
    """The whole prompt as one user message, as the seed sent it (no system message)."""
    return [ChatMessage(role="user", content=THERAPIST_PROMPT.format(question=question))]
