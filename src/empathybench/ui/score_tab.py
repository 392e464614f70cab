"""The Score tab: the seed study's app (text in, Clear, Submit, four scores, Flag to CSV)."""

from __future__ import annotations

from typing import Any

import gradio as gr

from empathybench.ui.flagging import FlagLog
from empathybench.ui.messages import problem
from empathybench.ui.safe_text import markdown_literal
from empathybench.ui.scoring import SCORE_FIELDS, ScoredText, ScoreService, flag, score_cells

CAVEAT = (
    "Approximate scores from the offline scorer (a small frozen encoder with a trained head), "
    "on the seed study's scale: **1 = absent, 2 = some, 3 = strong**. A quick guide, not a "
    "clinical judgement."
)
MAX_TEXT = 20_000
"""Characters accepted in the text box: far above any reply, far below a pasted book (the
encoder reads only the start anyway)."""
ELEMENT_IDS = {"empathy": "score-overall"}
"""Element ids that differ from ``score-<field>``: the mean is shown as the overall score."""


def build_score_tab(service: ScoreService, flags: FlagLog) -> None:
    """Lay out the Score tab inside the current Blocks context and wire its events."""
    gr.Markdown(CAVEAT, elem_id="score-caveat")
    text = gr.Textbox(
        label="Reply to score",
        placeholder="Paste a reply to someone who is struggling…",
        lines=6,
        max_lines=20,
        max_length=MAX_TEXT,
        elem_id="score-text",
    )
    with gr.Row():
        clear = gr.Button("Clear", elem_id="score-clear")
        submit = gr.Button("Submit", variant="primary", elem_id="score-submit")
    with gr.Row():
        boxes = [
            gr.Textbox(
                label=label,
                interactive=False,
                elem_id=ELEMENT_IDS.get(field, f"score-{field}"),
            )
            for field, label in SCORE_FIELDS
        ]
    flag_button = gr.Button("Flag", elem_id="score-flag")
    status = gr.Markdown(elem_id="score-status", latex_delimiters=[])
    scored = gr.State(None)

    def on_submit(value: str) -> tuple[Any, ...]:
        try:
            result = service.score(value)
        except Exception as error:
            return ("", "", "", "", problem(error), None)
        return (
            *score_cells(result.scores),
            "Scored. **Flag** saves this text and its scores.",
            result,
        )

    def on_clear() -> tuple[Any, ...]:
        return ("", "", "", "", "", "", None)

    def on_flag(current: ScoredText | None) -> str:
        try:
            flag(flags, current, service.name)
        except Exception as error:
            return problem(error)
        return f"Flagged: saved to {markdown_literal(str(flags.path.resolve()))}."

    submit.click(on_submit, inputs=text, outputs=[*boxes, status, scored])
    clear.click(on_clear, outputs=[text, *boxes, status, scored])
    flag_button.click(on_flag, inputs=scored, outputs=status)
