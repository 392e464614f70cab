"""Errors that reach users as one clear line (the CLI prints them without a traceback)."""


class UserError(Exception):
    """A mistake the user can fix: bad input, unknown name, missing file or key."""
