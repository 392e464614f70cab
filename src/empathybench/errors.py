"""Errors that reach users as one clear line (the CLI prints them without a traceback)."""


class UserError(Exception):
    """A mistake the user can fix: bad input, unknown name, missing file or key."""


class ParameterError(UserError, ValueError):
    """A library parameter out of its range; ``parameter`` names it (the CLI maps it to a
    flag)."""

    def __init__(self, parameter: str, message: str) -> None:
        super().__init__(f"{parameter} {message}")
        self.parameter = parameter
