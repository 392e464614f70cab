"""The Runs tab: open a finished run, see its tables and figures, read any item in full.

Model replies, prompts and judge rationales are untrusted text: they are shown only in
read-only Textboxes, never as HTML; the tables go through ``escape_html`` first.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gradio as gr

from empathybench.ui.messages import problem
from empathybench.ui.run_browser import (
    FigureFolders,
    RunSelection,
    confined_run_path,
    open_runs,
    run_choices,
)
from empathybench.ui.safe_text import markdown_literal

NO_ITEM = ("", "", "", "")


def _intro(runs_dir: Path | None) -> str:
    where = (
        f"`{markdown_literal(str(runs_dir))}`"
        if runs_dir is not None
        else "the folder the app was started in (start it with `--runs DIR` for another)"
    )
    return (
        f"Runs found under {where}, up to two folders deep. Pick one, or type the path of "
        "a run folder inside it."
    )


def build_runs_tab(runs_dir: Path | None, figure_folders: FigureFolders) -> None:
    """Lay out the Runs tab inside the current Blocks context and wire its events.

    Only runs inside ``runs_dir`` (default: the current folder) can be opened, by the list
    or by a typed path (``confined_run_path``)."""
    gr.Markdown(_intro(runs_dir), latex_delimiters=[])
    root = runs_dir if runs_dir is not None else Path.cwd()
    with gr.Row():
        picker = gr.Dropdown(
            choices=run_choices(root),
            value=None,
            label="Run",
            scale=4,
            elem_id="runs-picker",
        )
        refresh = gr.Button("Refresh", scale=1, elem_id="runs-refresh")
    with gr.Row():
        path = gr.Textbox(label="…or a run folder's path", scale=4, elem_id="runs-path")
        open_button = gr.Button("Open", scale=1, elem_id="runs-open")
    status = gr.Markdown(elem_id="runs-status", latex_delimiters=[])
    table = gr.Markdown(elem_id="runs-table", latex_delimiters=[])
    gallery = gr.Gallery(
        label="Figures",
        format="png",
        columns=3,
        height="auto",
        object_fit="contain",
        elem_id="runs-figures",
    )
    item_picker = gr.Dropdown(choices=[], label="Item", elem_id="runs-item-picker")
    prompt = gr.Textbox(
        label="Prompt (exactly what the tested model was sent)",
        interactive=False,
        lines=6,
        max_lines=24,
        elem_id="runs-prompt",
    )
    response = gr.Textbox(
        label="Response", interactive=False, lines=4, max_lines=24, elem_id="runs-response"
    )
    truth = gr.Textbox(
        label="Hidden truth, parsed answer and scores",
        interactive=False,
        lines=6,
        max_lines=30,
        elem_id="runs-truth",
    )
    verdicts = gr.Textbox(
        label="Judges' verdicts", interactive=False, lines=6, max_lines=40, elem_id="runs-verdicts"
    )
    selection_state = gr.State(None)

    def show(location: str | None) -> tuple[Any, ...]:
        if not location or not location.strip():
            message = "⚠️ Pick a run, or type a run folder's path."
            return (message, "", [], gr.update(choices=[], value=None), *NO_ITEM, None)
        try:
            selection = open_runs(confined_run_path(root, location))
            figures = figure_folders.write(selection)
        except Exception as error:
            message = problem(error)
            return (message, "", [], gr.update(choices=[], value=None), *NO_ITEM, None)
        choices = [(item.label, key) for key, item in selection.items.items()]
        first = choices[0][1] if choices else None
        message = f"Opened {markdown_literal(location.strip())}: {len(choices)} answered items."
        return (
            message,
            selection.table_markdown(),
            figures,
            gr.update(choices=choices, value=first),
            *item_fields(selection, first),
            selection,
        )

    def item_fields(selection: RunSelection | None, key: str | None) -> tuple[str, ...]:
        if selection is None or key is None or key not in selection.items:
            return NO_ITEM
        item = selection.items[key]
        return (item.prompt, item.response, item.truth, item.verdicts)

    def on_refresh() -> Any:
        return gr.update(choices=run_choices(root))

    shown = [status, table, gallery, item_picker, prompt, response, truth, verdicts]
    picker.input(show, inputs=picker, outputs=[*shown, selection_state])
    open_button.click(show, inputs=path, outputs=[*shown, selection_state])
    path.submit(show, inputs=path, outputs=[*shown, selection_state])
    refresh.click(on_refresh, outputs=picker)

    def on_item(key: str | None, selection: RunSelection | None) -> tuple[str, ...]:
        return item_fields(selection, key)

    item_picker.input(
        on_item,
        inputs=[item_picker, selection_state],
        outputs=[prompt, response, truth, verdicts],
    )
