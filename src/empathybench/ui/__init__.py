"""The web app (``empathybench ui``): score a text, browse runs, rate a blind survey.

Gradio is an optional extra, so importing this package does not import it: ``UiSettings``
and the checks in ``settings`` work without it, and ``empathybench.ui.app.build_app`` is
imported only once ``require_gradio`` has passed.
"""

from empathybench.ui.settings import UiSettings

__all__ = ["UiSettings"]
