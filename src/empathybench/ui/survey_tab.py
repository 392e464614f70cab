"""The Survey tab: raters pick the most and least empathetic of answers A–E, with a reason.

Answers and questions are shown in read-only Textboxes (they are untrusted text); sources
are never shown (the session cannot read them). Messages about a refused vote are the
survey session's own, escaped into the status line.
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from empathybench.survey.records import SURVEY_LETTERS
from empathybench.survey.session import MAX_RATER_ID, MAX_REASON
from empathybench.ui.messages import problem
from empathybench.ui.safe_text import markdown_literal
from empathybench.ui.survey_flow import REASON_QUESTION, SurveyFlow, SurveyScreen, new_rater_id

HOW_TO = (
    "No survey is open. Build one from your answer sources with `empathybench survey build …` "
    "(see `empathybench survey build --help`), then start the app with `--survey DIR`."
)
INSTRUCTIONS = (
    "Enter a rater id (or make a new one, and note it down: the same id lets you stop and "
    "continue later), then **Start**. For each question, read the answers, pick the most and "
    "the least empathetic, say why if you can, and **Submit vote**."
)


def build_survey_tab(flow: SurveyFlow | None) -> None:
    """Lay out the Survey tab inside the current Blocks context and wire its events."""
    if flow is None:
        gr.Markdown(HOW_TO, elem_id="survey-missing")
        return
    gr.Markdown(f"### {markdown_literal(flow.title)}\n\n{INSTRUCTIONS}", latex_delimiters=[])
    with gr.Row():
        rater_box = gr.Textbox(
            label="Rater id", max_length=MAX_RATER_ID, scale=3, elem_id="survey-rater"
        )
        new_rater = gr.Button("New rater id", scale=1, elem_id="survey-new-rater")
        start = gr.Button("Start", variant="primary", scale=1, elem_id="survey-start")
    progress = gr.Markdown(elem_id="survey-progress")
    with gr.Column(visible=False, elem_id="survey-question-area") as area:
        picker = gr.Dropdown(choices=[], label="Go to question", elem_id="survey-question-picker")
        with gr.Column(visible=False, elem_id="survey-form") as form:
            question = gr.Textbox(
                label="Question",
                interactive=False,
                lines=2,
                max_lines=20,
                elem_id="survey-question",
            )
            answers = [
                gr.Textbox(
                    label=f"Answer {letter}",
                    interactive=False,
                    lines=3,
                    max_lines=30,
                    elem_id=f"survey-answer-{letter.lower()}",
                )
                for letter in SURVEY_LETTERS
            ]
            with gr.Row():
                most = gr.Radio(choices=[], label="Most empathetic answer", elem_id="survey-most")
                least = gr.Radio(
                    choices=[], label="Least empathetic answer", elem_id="survey-least"
                )
            reason = gr.Textbox(
                label=REASON_QUESTION, lines=3, max_length=MAX_REASON, elem_id="survey-reason"
            )
            submit = gr.Button("Submit vote", variant="primary", elem_id="survey-submit")
    status = gr.Markdown(elem_id="survey-status", latex_delimiters=[])
    rater_state = gr.State("")
    question_state = gr.State("")

    screen_outputs = [
        rater_state,
        question_state,
        progress,
        area,
        form,
        picker,
        question,
        *answers,
        most,
        least,
        reason,
        status,
    ]

    def render(screen: SurveyScreen, message: str) -> tuple[Any, ...]:
        item = screen.item
        letters = [answer.letter for answer in item.answers] if item else []
        texts = {answer.letter: answer.text for answer in item.answers} if item else {}
        answer_updates = [
            gr.update(value=texts.get(letter, ""), visible=letter in texts)
            for letter in SURVEY_LETTERS
        ]
        if screen.already_answered:
            message = (message + " " if message else "") + (
                "You have answered this question before; your first vote stands."
            )
        return (
            screen.rater,
            item.question_id if item else "",
            screen.progress,
            gr.update(visible=True),
            gr.update(visible=item is not None),
            gr.update(choices=screen.choices, value=item.question_id if item else None),
            item.question if item else "",
            *answer_updates,
            gr.update(choices=letters, value=None),
            gr.update(choices=letters, value=None),
            "",
            message,
        )

    def unchanged(message: str) -> tuple[Any, ...]:
        return (*(gr.skip() for _ in screen_outputs[:-1]), message)

    def on_start(rater_id: str) -> tuple[Any, ...]:
        try:
            screen = flow.start(rater_id)
        except Exception as error:
            return unchanged(problem(error))
        welcome = f"Rating as **{markdown_literal(screen.rater)}**."
        return render(screen, welcome)

    def on_pick(question_id: str | None, rater: str) -> tuple[Any, ...]:
        if not question_id or not rater:
            return unchanged("⚠️ Enter your rater id and press Start first.")
        try:
            return render(flow.show(rater, question_id), "")
        except Exception as error:
            return unchanged(problem(error))

    def on_vote(
        rater: str, question_id: str, most_letter: str | None, least_letter: str | None, why: str
    ) -> tuple[Any, ...]:
        if not rater or not question_id:
            return unchanged("⚠️ Enter your rater id and press Start first.")
        try:
            screen = flow.vote(rater, question_id, most_letter, least_letter, why)
        except Exception as error:
            return unchanged(problem(error, "Not saved: "))
        return render(screen, "Vote saved.")

    new_rater.click(new_rater_id, outputs=rater_box)
    start.click(on_start, inputs=rater_box, outputs=screen_outputs)
    rater_box.submit(on_start, inputs=rater_box, outputs=screen_outputs)
    picker.input(on_pick, inputs=[picker, rater_state], outputs=screen_outputs)
    submit.click(
        on_vote,
        inputs=[rater_state, question_state, most, least, reason],
        outputs=screen_outputs,
    )
