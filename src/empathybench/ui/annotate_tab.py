"""The Annotate tab: raters read a benchmark scene and answer its emotion and help questions.

The scene is untrusted text (it comes from a suite file) and is shown in a read-only
Textbox, which never interprets it; questions and choices are component labels, which Gradio
renders as text. The key is never available here (the session cannot read it), and no
choice is preselected. Messages about a refused answer are escaped into the status line.
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from empathybench.annotation.records import HELP_ANSWERS
from empathybench.annotation.store import DuplicateAnswerError
from empathybench.survey.session import MAX_RATER_ID
from empathybench.ui.annotate_flow import AnnotationFlow, AnnotationScreen
from empathybench.ui.messages import problem
from empathybench.ui.safe_text import markdown_literal

HOW_TO = (
    "No annotation study is open. Make one from a suite with `empathybench annotate init "
    "SUITE -o DIR` (see `empathybench annotate init --help`), then start the app with "
    "`--annotations DIR`."
)
INSTRUCTIONS = (
    "Enter a rater id, then **Start** (the same id lets you stop and continue later). Read "
    "each scene, answer its questions as you understand the people in it, and **Submit**. "
    "There are no trick questions and your answers are not scored against you: they tell us "
    "whether each item is clear."
)


def build_annotate_tab(flow: AnnotationFlow | None) -> None:
    """Lay out the Annotate tab inside the current Blocks context and wire its events."""
    if flow is None:
        gr.Markdown(HOW_TO, elem_id="annotate-missing")
        return
    gr.Markdown(f"### Validate benchmark items ({flow.total} items)\n\n{INSTRUCTIONS}")
    with gr.Row():
        rater_box = gr.Textbox(
            label="Rater id", max_length=MAX_RATER_ID, scale=3, elem_id="annotate-rater"
        )
        start = gr.Button("Start", variant="primary", scale=1, elem_id="annotate-start")
    progress = gr.Markdown(elem_id="annotate-progress")
    with gr.Column(visible=False, elem_id="annotate-form") as form:
        scene = gr.Textbox(
            label="Scene", interactive=False, lines=6, max_lines=40, elem_id="annotate-scene"
        )
        who = gr.Radio(choices=[], label="Who needs help?", visible=False, elem_id="annotate-who")
        emotion = gr.Radio(choices=[], label="Emotion", elem_id="annotate-emotion")
        help_ = gr.Radio(choices=list(HELP_ANSWERS), label="Help", elem_id="annotate-help")
        submit = gr.Button("Submit", variant="primary", elem_id="annotate-submit")
    status = gr.Markdown(elem_id="annotate-status", latex_delimiters=[])
    rater_state = gr.State("")
    item_state = gr.State("")

    outputs = [rater_state, item_state, progress, form, scene, who, emotion, help_, status]

    def render(screen: AnnotationScreen, message: str) -> tuple[Any, ...]:
        item = screen.item
        if item is None:
            return (
                screen.rater,
                "",
                screen.progress,
                gr.update(visible=False),
                "",
                gr.update(choices=[], value=None, visible=False),
                gr.update(choices=[], value=None),
                gr.update(value=None),
                message,
            )
        return (
            screen.rater,
            item.item_id,
            screen.progress,
            gr.update(visible=True),
            item.scene,
            gr.update(
                choices=item.who_choices,
                value=None,
                label=item.who_question or "",
                visible=item.is_group,
            ),
            gr.update(
                choices=[(f"{o.letter}) {o.text}", o.letter) for o in item.options],
                value=None,
                label=item.emotion_question,
            ),
            gr.update(value=None, label=item.help_question),
            message,
        )

    def unchanged(message: str) -> tuple[Any, ...]:
        return (*(gr.skip() for _ in outputs[:-1]), message)

    def on_start(rater_id: str) -> tuple[Any, ...]:
        try:
            screen = flow.start(rater_id)
        except Exception as error:
            return unchanged(problem(error))
        return render(screen, f"Answering as **{markdown_literal(screen.rater)}**.")

    def on_submit(
        rater: str,
        item_id: str,
        emotion_letter: str | None,
        help_word: str | None,
        person: str | None,
    ) -> tuple[Any, ...]:
        if not rater or not item_id:
            return unchanged("⚠️ Enter your rater id and press Start first.")
        try:
            screen = flow.answer(rater, item_id, emotion_letter, help_word, person)
        except DuplicateAnswerError:  # answered in another tab meanwhile: move on
            first = "You had already answered this item; your first answer stands."
            return render(flow.start(rater), first)
        except Exception as error:
            return unchanged(problem(error, "Not saved: "))
        return render(screen, "Answer saved.")

    start.click(on_start, inputs=rater_box, outputs=outputs)
    rater_box.submit(on_start, inputs=rater_box, outputs=outputs)
    submit.click(on_submit, inputs=[rater_state, item_state, emotion, help_, who], outputs=outputs)
