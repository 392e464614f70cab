"""Options shared by several commands, and how they turn into library arguments."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from empathybench.errors import UserError

AnswerModeOption = Annotated[
    str | None,
    typer.Option(
        help="guided: the engine fills the answer fields (option likelihood or a JSON schema) "
        "and the model writes the reply; free: the model writes the whole answer. "
        "Default: guided for local/… with the plain strategy, free otherwise."
    ),
]


def parse_options(pairs: list[str]) -> dict[str, str | int | float | bool]:
    """``--option key=value`` pairs as a dict (true/false, numbers and text)."""
    options: dict[str, str | int | float | bool] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise UserError(f"--option takes key=value, got {pair!r}")
        value: str | int | float | bool = raw
        if raw.lower() in ("true", "false"):
            value = raw.lower() == "true"
        else:
            for cast in (int, float):
                try:
                    value = cast(raw)
                    break
                except ValueError:
                    continue
        options[key] = value
    return options


def cache_choice(cache: Path | None, no_cache: bool) -> os.PathLike[str] | bool:
    """``--cache FILE`` / ``--no-cache`` as the library's ``cache`` argument."""
    if no_cache:
        return False
    return cache if cache is not None else True
