"""Optional dependencies: one clear error naming the extra that provides a missing module."""

from __future__ import annotations

import importlib
from types import ModuleType

from empathybench.errors import UserError


def install_hint(extra: str) -> str:
    return f"pip install 'empathybench[{extra}]'"


def require_module(module: str, *, extra: str, needed_for: str) -> ModuleType:
    """Import ``module``, or raise one line saying which extra to install for ``needed_for``."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        missing = error.name or module
        raise UserError(
            f"{needed_for} needs the '{extra}' extra ({missing} is not installed): "
            f"{install_hint(extra)}"
        ) from None
