"""The Gradio app: four tabs (Score, Runs, Survey, Annotate) in one Blocks, launched offline.

The app must work without a network: analytics and gradio's version check are switched
off before gradio is imported, the theme uses system fonts only (no Google Fonts), share
links, server-side rendering, MCP and monitoring are off. Import this module only after
``settings.require_gradio`` has passed.
"""

from __future__ import annotations

import os

os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"  # also disables the version check

import gradio as gr

from empathybench.annotation.session import AnnotationSession
from empathybench.errors import UserError
from empathybench.survey.session import SurveySession
from empathybench.ui.annotate_flow import AnnotationFlow
from empathybench.ui.annotate_tab import build_annotate_tab
from empathybench.ui.flagging import FlagLog
from empathybench.ui.run_browser import FigureFolders
from empathybench.ui.runs_tab import build_runs_tab
from empathybench.ui.score_tab import build_score_tab
from empathybench.ui.scoring import ScoreService
from empathybench.ui.settings import UiSettings
from empathybench.ui.survey_flow import SurveyFlow
from empathybench.ui.survey_tab import build_survey_tab

TITLE = "empathybench"
SYSTEM_FONTS = ("ui-sans-serif", "system-ui", "-apple-system", "Segoe UI", "Roboto", "sans-serif")
SYSTEM_MONO_FONTS = ("ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "monospace")


def offline_theme() -> gr.themes.Base:
    """Gradio's base theme with system fonts, so the page never fetches a web font."""
    return gr.themes.Base(font=list(SYSTEM_FONTS), font_mono=list(SYSTEM_MONO_FONTS))


def build_app(settings: UiSettings) -> gr.Blocks:
    """The app for ``settings``; opens the survey and the annotation study and checks the
    flag file (UserError)."""
    flags = FlagLog(settings.flag_file)
    flags.check()
    flow = SurveyFlow(SurveySession.open(settings.survey_dir)) if settings.survey_dir else None
    annotation = (
        AnnotationFlow(AnnotationSession.open(settings.annotation_dir))
        if settings.annotation_dir
        else None
    )
    service = ScoreService(settings.scorer_head)
    app = gr.Blocks(title=TITLE, analytics_enabled=False)
    with app:
        gr.Markdown(
            "# empathybench\nScore a reply's empathy, browse benchmark runs, rate a blind "
            "survey, or annotate benchmark items."
        )
        with gr.Tabs():
            with gr.Tab("Score", id="score", elem_id="tab-score"):
                build_score_tab(service, flags)
            with gr.Tab("Runs", id="runs", elem_id="tab-runs"):
                build_runs_tab(settings.runs_dir, FigureFolders())
            with gr.Tab("Survey", id="survey", elem_id="tab-survey"):
                build_survey_tab(flow)
            with gr.Tab("Annotate", id="annotate", elem_id="tab-annotate"):
                build_annotate_tab(annotation)
    return app


def launch_app(app: gr.Blocks, settings: UiSettings, *, block: bool = True) -> str:
    """Serve ``app`` on ``settings.host:port``; the local URL. Blocks until stopped when
    ``block`` (the CLI); returns at once otherwise (in-process tests). A port in use or an
    address this machine does not have is a ``UserError``."""
    try:
        return _launch(app, settings, block=block)
    except OSError as error:
        raise UserError(
            f"cannot serve the web app on {settings.host}:{settings.port} ({error}); "
            "choose another --port or --host"
        ) from None


def _launch(app: gr.Blocks, settings: UiSettings, *, block: bool) -> str:
    _, local_url, _ = app.launch(
        server_name=settings.host,
        server_port=settings.port,
        share=False,
        prevent_thread_lock=not block,
        show_error=False,
        quiet=False,
        footer_links=["api", "settings"],
        run_history=False,
        enable_monitoring=False,
        ssr_mode=False,
        pwa=False,
        mcp_server=False,
        theme=offline_theme(),
    )
    return local_url
