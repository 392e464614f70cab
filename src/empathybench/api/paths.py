"""How the API takes runs and cache files: a path, a string, or a finished run."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Union

from empathybench.runtime.cache import default_cache_path
from empathybench.runtime.run_store import RunStore

RunLike = Union[str, "os.PathLike[str]"]
"""A run directory: a path, a string, or what ``empathybench.run`` returned (a path-like)."""


def run_directory(run: RunLike) -> Path:
    """The directory of ``run``; it must hold a run (its ``manifest.json``)."""
    directory = Path(os.fspath(run))
    RunStore(directory).read_manifest()  # a clear error when there is no run here
    return directory


def cache_file(cache: str | os.PathLike[str] | bool) -> Path | None:
    """The response cache to use: True → the default file, False → none, else that file."""
    if cache is True:
        return default_cache_path()
    if cache is False:
        return None
    return Path(os.fspath(cache))


PathArg = Union[str, "os.PathLike[str]"]
"""A file or folder the caller names: a path or a string."""


def optional_path(path: PathArg | None) -> Path | None:
    """``path`` as a ``Path`` (None stays None)."""
    return None if path is None else Path(os.fspath(path))
