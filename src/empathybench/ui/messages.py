"""Status-line messages: what a visitor sees when something could not be done.

Expected mistakes (``UserError``) show their own one-line text. Anything else is a bug or
an environment problem: the visitor gets one friendly line and the traceback goes to the
server's log (the terminal running ``empathybench ui``), never to the page.
"""

from __future__ import annotations

import logging

from empathybench.errors import UserError
from empathybench.ui.safe_text import markdown_literal

logger = logging.getLogger("empathybench.ui")
UNEXPECTED = (
    "⚠️ Something unexpected went wrong; the details are in the terminal running `empathybench ui`."
)


def problem(error: Exception, prefix: str = "") -> str:
    """The status line for ``error`` (Markdown, with any untrusted text escaped)."""
    if isinstance(error, UserError):
        return f"⚠️ {prefix}{markdown_literal(str(error))}"
    logger.error("unexpected error in the web app", exc_info=error)
    return UNEXPECTED
