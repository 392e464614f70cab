"""Untrusted text (model replies, judge rationales, survey answers, paths) inside Markdown.

Most untrusted text is shown in read-only Textboxes, which never interpret it. Where it must
sit inside Markdown (status lines, the results tables), it is escaped here first: HTML
special characters become entities, so no tag reaches the page even before Gradio's own
sanitiser runs, and Markdown punctuation is backslash-escaped so a value cannot restyle or
link the text around it.
"""

from __future__ import annotations

import html
import re

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~$])")
"""Markdown punctuation; ``<``, ``>`` and ``&`` are left to ``html.escape`` (run first)."""


def escape_html(markdown: str) -> str:
    """``markdown`` with its HTML neutralised but its Markdown (tables, headings) kept."""
    return html.escape(markdown, quote=False)


def markdown_literal(text: str) -> str:
    """``text`` shown verbatim inside Markdown: no HTML, no formatting, one line."""
    flat = " ".join(text.split())
    return _MARKDOWN_SPECIAL.sub(r"\\\1", html.escape(flat, quote=False))
