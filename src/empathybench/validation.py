"""Checks of caller-supplied values, made before any file is written or any model is called.

Each check names the *parameter* it refused (``max_tokens``, ``output``), never a command-line
flag: the library speaks in parameters, and the CLI maps a parameter to its flag when it
prints the error (see ``empathybench.cli.errors``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

from pydantic import BaseModel, ValidationError

from empathybench.errors import ParameterError

MAX_SEED = 2**32 - 1
"""Largest seed every consumer accepts (numpy's generators take 0 … 2**32 - 1)."""

ModelT = TypeVar("ModelT", bound=BaseModel)


def check_number(
    name: str,
    value: float | None,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    above: float | None = None,
) -> None:
    """``value`` (None: not given) is a finite number within ``[minimum, maximum]`` and
    greater than ``above``."""
    if value is None:
        return
    if isinstance(value, float) and not math.isfinite(value):
        raise ParameterError.about(name, f"must be a finite number, got {value}")
    if minimum is not None and value < minimum:
        raise ParameterError.about(name, f"must be at least {minimum:g}, got {value:g}")
    if above is not None and value <= above:
        raise ParameterError.about(name, f"must be greater than {above:g}, got {value:g}")
    if maximum is not None and value > maximum:
        raise ParameterError.about(name, f"must be at most {maximum:g}, got {value:g}")


def check_count(
    name: str, value: int | None, *, minimum: int = 1, maximum: int | None = None
) -> None:
    """A whole number of things (items, connections, attempts), at least ``minimum``."""
    check_number(name, value, minimum=minimum, maximum=maximum)


def check_seed(name: str, value: int | None) -> None:
    check_number(name, value, minimum=0, maximum=MAX_SEED)


def check_existing_file(name: str, path: Path | None) -> None:
    """``path`` names a file that exists (not a folder)."""
    if path is None:
        return
    if path.is_dir():
        raise ParameterError.about(name, f"{path} is a folder; give a file")
    if not path.exists():
        raise ParameterError.about(name, f"{path}: no such file")


def check_existing_directory(name: str, path: Path | None) -> None:
    """``path`` names a folder that exists (not a file)."""
    if path is None:
        return
    if not path.exists():
        raise ParameterError.about(name, f"{path}: no such folder")
    if not path.is_dir():
        raise ParameterError.about(name, f"{path} is a file; give a folder")


def _parent_is_not_a_file(name: str, path: Path) -> None:
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise ParameterError.about(name, f"{path}: {parent} is a file, not a folder")
            return


def check_file_target(name: str, path: Path | None) -> None:
    """``path`` can be written as a file: new or an existing file, never a folder."""
    if path is None:
        return
    if path.is_dir():
        raise ParameterError.about(name, f"{path} is a folder; give a file name")
    if path.exists() and not path.is_file():
        raise ParameterError.about(name, f"{path} is not a regular file")
    _parent_is_not_a_file(name, path)


def check_directory_target(name: str, path: Path | None) -> None:
    """``path`` can hold output files: a new or an existing folder, never a file."""
    if path is None:
        return
    if path.exists() and not path.is_dir():
        raise ParameterError.about(name, f"{path} is a file; give a folder")
    _parent_is_not_a_file(name, path)


def check_url(name: str, value: str | None) -> None:
    """An ``http(s)://host…`` URL."""
    if value is None:
        return
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as error:
        raise ParameterError.about(name, f"{value!r} is not a URL ({error})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ParameterError.about(
            name, f"{value!r} is not an http(s) URL (e.g. http://127.0.0.1:8000/v1)"
        )


def check_exclusive(given: Mapping[str, bool]) -> None:
    """At most one of the named parameters is given."""
    chosen = tuple(name for name, present in given.items() if present)
    if len(chosen) > 1:
        raise ParameterError.about(chosen, "cannot be used together; choose one")


def validated(model: type[ModelT], **values: object) -> ModelT:
    """``model(**values)``; a refused field is an ``ParameterError`` naming that field."""
    try:
        return model.model_validate(values)
    except ValidationError as error:
        first = error.errors()[0]
        field = str(first["loc"][0]) if first["loc"] else model.__name__
        raise ParameterError.about(
            field, f"{first['msg'].lower()}, got {first.get('input')!r}"
        ) from None
