"""Errors that reach users as one clear line (the CLI prints them without a traceback).

Library code names its own parameters (``limit must be a positive number``); the command
line shows the same message with its flags instead (``--limit must be …``), through
``ParameterError.render``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence


class UserError(Exception):
    """A mistake the user can fix: bad input, unknown name, missing file or key."""


class ParameterError(UserError, ValueError):
    """A bad value of a library parameter; the message names ``parameters`` as written.

    ``parameters`` lists the parameter names the message mentions (the bad one first), each
    written as the bare name (``limit``) or with a value (``answer_mode="free"``), so a
    front end can put its own names in their place.
    """

    def __init__(self, message: str, *, parameters: Sequence[str]) -> None:
        super().__init__(message)
        self.message = message
        self.parameters = tuple(parameters)
        self.problem: str | None = None

    @classmethod
    def about(cls, parameters: str | Sequence[str], problem: str) -> ParameterError:
        """``a and b: problem`` — the parameters lead the message, and only those leading
        names are renamed by ``render`` (a path or value in ``problem`` is kept as given)."""
        names = (parameters,) if isinstance(parameters, str) else tuple(parameters)
        error = cls(f"{' and '.join(names)}: {problem}", parameters=names)
        error.problem = problem
        return error

    @property
    def parameter(self) -> str:
        """The parameter whose value is wrong."""
        return self.parameters[0]

    def render(self, name: Callable[[str, str | None], str]) -> str:
        """The message with each named parameter replaced by ``name(parameter, value)``.

        ``value`` is the text after ``=`` (quotes removed) where the message gives one. Only
        the first mention of each is renamed (later ones are prose: "use a port from …"),
        and never one inside a path (``runs/limit/x``).
        """
        if self.problem is not None:
            names = (name(parameter, None) for parameter in self.parameters)
            return f"{' and '.join(names)}: {self.problem}"
        text = self.message
        for parameter in sorted(self.parameters, key=len, reverse=True):
            pattern = re.compile(
                rf"(?<![\w/\\.-]){re.escape(parameter)}(?:=(\"[^\"]*\"|'[^']*'|[^\s,;:)]+))?(?![\w/\\-])"
            )

            def replace(match: re.Match[str], parameter: str = parameter) -> str:
                value = match.group(1)
                return name(parameter, value.strip("\"'") if value is not None else None)

            text = pattern.sub(replace, text, count=1)  # later mentions are prose
        return text
