"""How the CLI reports an expected mistake: one ``error:`` line on stderr and exit code 2.

Library errors name parameters (``ParameterError(..., parameters=["max_tokens"])``); here
each parameter is shown as the flag or argument the user typed (``--max-tokens``), looked up
on the command that was invoked, so new commands need no table.
"""

from __future__ import annotations

from typing import Any

import typer
from rich.markup import escape
from typer.core import TyperGroup

from empathybench.cli.console import err_console
from empathybench.errors import ParameterError, UserError

EXIT_USER_ERROR = 2


def print_error(message: str) -> None:
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)


def _selected(group: Any, tokens: list[str]) -> tuple[Any, list[str]]:
    """The (sub)command that ``tokens`` select under ``group``, and the names leading to it."""
    command, names = group, []
    for token in tokens:
        commands = getattr(command, "commands", None)
        if not commands or token not in commands:
            break
        command = commands[token]
        names.append(token)
    return command, names


PARAMETER_ALIASES = {
    "requests_per_minute": "rpm",
    "batch_poll_s": "batch_poll",
    "options": "option",
    "scorer_head": "scorer",
    "out": "output",
    "judges": "judge",
    "sources": "source",
    "runs_dir": "runs",
    "survey_dir": "survey",
    "annotation_dir": "annotations",
    "probes": "probe",
    "models": "model",
}
"""Library parameter → CLI parameter, where the CLI names the same value differently."""


def flag_for(command: Any, parameter: str, value: str | None = None) -> str:
    """How ``parameter`` (a Python name) is spelled on ``command``'s command line (``command``
    None: the usual ``--name``), followed by ``value`` where the message gives one."""
    parameter = PARAMETER_ALIASES.get(parameter, parameter)
    name = "--" + parameter.replace("_", "-")
    for param in getattr(command, "params", []):
        if param.name != parameter:
            continue
        long_flags = [opt for opt in param.opts if opt.startswith("--")]
        if param.param_type_name == "option":
            name = str(max(long_flags or param.opts, key=len))
        else:
            name = parameter.upper()
        break
    return name if value is None or value == "True" else f"{name} {value}"


def user_error_text(error: UserError, command: Any = None) -> str:
    """What the user reads: library parameters named as ``command``'s flags."""
    if isinstance(error, ParameterError):
        return error.render(lambda parameter, value: flag_for(command, parameter, value))
    return str(error)


def error_message(error: UserError) -> str:
    """``error`` with its parameters named as flags, when no command is known."""
    return user_error_text(error)


def input_error_text(error: BaseException) -> str | None:
    """One line for an error that comes from what the user gave rather than from a bug: a
    path the system cannot read or write (an ``OSError`` naming a file), or an argument
    holding bytes that are not UTF-8 (Python keeps them as surrogates, which no text can
    encode). None for anything else, which keeps its traceback."""
    if isinstance(error, OSError) and error.filename is not None:
        reason = error.strerror or type(error).__name__
        return f"{error.filename}: {reason}"
    if isinstance(error, UnicodeEncodeError) and "surrogate" in str(error.reason):
        return "an argument holds bytes that are not valid UTF-8; pass text in UTF-8"
    return None


def usage_error_text(error: Any, command_path: str = "empathybench") -> str | None:
    """One line for what the option parser refused (an unknown option or command, a value of
    the wrong type, a missing argument): the command, Click's reason, and where its help is.
    ``error`` is Click's ``UsageError`` as Typer vendors it (not importable under a public
    name), so it is recognised by ``is_usage_error``; ``command_path`` names the command when
    the error carries no context (an option missing its value). None when Click has nothing
    to add: a group run without a subcommand has printed its help already."""
    ctx = getattr(error, "ctx", None)
    path = ctx.command_path if ctx is not None else command_path
    reason = " ".join(error.format_message().split())
    if not reason:
        return None
    return f"{path}: {reason} (see '{path} --help')"


def is_usage_error(error: BaseException) -> bool:
    """Click's usage errors (exit code 2, with the context they arose in) among Typer's."""
    return (
        isinstance(error, typer.TyperException)
        and getattr(error, "exit_code", None) == EXIT_USER_ERROR
        and hasattr(error, "ctx")
        and hasattr(error, "format_message")
    )


def _exit_on_usage_error(error: BaseException, command_path: str = "empathybench") -> None:
    """Print a usage error as one line and exit 2; anything else is left to the caller."""
    if is_usage_error(error):
        text = usage_error_text(error, command_path)
        if text is not None:
            print_error(text)
        raise typer.Exit(EXIT_USER_ERROR) from None


def _command_path(group: Any, tokens: list[str]) -> str:
    """``empathybench`` and the (sub)command names that ``tokens`` select."""
    return " ".join(["empathybench", *_selected(group, tokens)[1]])


class ReportingGroup(TyperGroup):
    """The root group: a ``UserError`` from any command becomes one line and exit 2 (also
    under ``typer.testing.CliRunner``, so in-process tests see what users see), and so do
    what the option parser refuses (``usage_error_text``: Click would print a usage block in
    a box), an unreadable or unwritable path and a non-UTF-8 argument (``input_error_text``)."""

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        """The root's own options (``empathybench --bogus``) are parsed here, before
        ``invoke``."""
        try:
            return super().make_context(*args, **kwargs)
        except typer.TyperException as error:
            _exit_on_usage_error(error)
            raise

    def invoke(self, ctx: Any) -> Any:
        tokens = [*getattr(ctx, "_protected_args", []), *ctx.args]
        try:
            return super().invoke(ctx)
        except typer.TyperException as error:
            _exit_on_usage_error(error, _command_path(self, tokens))
            raise
        except UserError as error:
            print_error(user_error_text(error, _selected(self, tokens)[0]))
            raise typer.Exit(EXIT_USER_ERROR) from None
        except (OSError, UnicodeEncodeError) as error:
            text = input_error_text(error)
            if text is None:
                raise
            print_error(text)
            raise typer.Exit(EXIT_USER_ERROR) from None
