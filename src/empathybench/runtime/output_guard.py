"""Refuse to write over what a command did not make.

A path from an unset variable (``--run-dir ''`` is the current folder) or a slip of the
finger (``generate -o RUN/responses.jsonl``) must not replace someone's data. Before a
command writes, it checks its target: a folder must be new, empty, or already hold the same
kind of artefact (found by its marker file); a file must be new or already be the same kind
of file. Anything else is refused with one line naming what is there, unless ``force``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from empathybench.errors import UserError
from empathybench.jsonl import parse_json
from empathybench.runtime.directory_lock import LOCK_FILE, DirectoryInUse, directory_in_use

FORCE_HINT = "choose a new or empty folder, or pass --force to write into it anyway"


def require_path(value: str | Path | None, flag: str) -> None:
    """An empty path (often an unset shell variable) is refused instead of meaning ``.``."""
    if value is not None and not str(value).strip():
        raise UserError(f"{flag} is empty (an unset variable?); give a path")


def _listing(names: Sequence[str]) -> str:
    shown = ", ".join(sorted(names)[:5])
    return shown + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def check_output_directory(
    directory: Path, *, kind: str, markers: Sequence[str], force: bool = False
) -> None:
    """``directory`` is new, empty, or holds one of ``markers`` (a ``kind``); else refuse."""
    if not directory.exists():
        return
    if not directory.is_dir():
        raise UserError(f"{directory}: is a file, expected a folder for the {kind}")
    writer = directory_in_use(directory)
    if writer is not None:
        raise DirectoryInUse(directory, writer if writer > 0 else None)
    names = [entry.name for entry in directory.iterdir() if entry.name != LOCK_FILE]
    if not names or force or any((directory / marker).is_file() for marker in markers):
        return
    raise UserError(
        f"{directory} is not empty and holds no {kind} (it has {_listing(names)}); {FORCE_HINT}"
    )


def first_json_object(path: Path) -> dict[str, object] | None:
    """The first line of a JSONL file (or the whole of a JSON file) as an object, if it is one."""
    try:
        with path.open("rb") as handle:
            head = handle.read(1 << 20)
    except OSError:
        return None
    text = head.decode("utf-8", errors="replace")
    for candidate in (text, text.split("\n", 1)[0]):
        try:
            data = parse_json(candidate, str(path))
        except UserError:  # not JSON, not finite, or nested too deep: not our kind of file
            continue
        return data if isinstance(data, dict) else None
    return None


def has_fields(*fields: str) -> Callable[[Path], bool]:
    """A file whose first JSON object has every one of ``fields``."""

    def check(path: Path) -> bool:
        data = first_json_object(path)
        return data is not None and all(name in data for name in fields)

    return check


def whole_json_object(path: Path) -> bool:
    """A file that is one JSON object as a whole (a results file), not JSON lines."""
    try:
        data = parse_json(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError, UserError):
        return False
    return isinstance(data, dict)


def csv_with_header(columns: Sequence[str]) -> Callable[[Path], bool]:
    """A CSV file whose first line is exactly ``columns`` (a file this export wrote)."""

    def check(path: Path) -> bool:
        try:
            with path.open(encoding="utf-8-sig", newline="") as handle:
                first = handle.readline().rstrip("\r\n")
        except (OSError, UnicodeDecodeError):
            return False
        return first == ",".join(columns)

    return check


def refuse_input_as_output(output: Path | None, inputs: Sequence[object], flag: str) -> None:
    """An output path that names one of the command's own input files is refused (it would
    be replaced before, or instead of, being read)."""
    if output is None or not output.exists():
        return
    for value in inputs:
        candidate = Path(str(value)) if value is not None else None
        if candidate is not None and candidate.exists() and candidate.samefile(output):
            raise UserError(
                f"{flag} {output} is also an input of this command; choose another file"
            )


def check_output_file(
    path: Path, *, kind: str, same_kind: Callable[[Path], bool], force: bool = False
) -> None:
    """``path`` is new, empty, or already a ``kind`` (by ``same_kind``); else refuse."""
    if not path.exists():
        return
    if path.is_dir():
        raise UserError(f"{path}: is a folder, expected a file for the {kind}")
    if force or path.stat().st_size == 0 or same_kind(path):
        return
    raise UserError(
        f"{path} exists and is not a {kind}; choose another file, or pass --force to replace it"
    )


def path_parser(flag: str) -> Callable[[str], Path]:
    """A command-line path parser that refuses an empty value (see ``require_path``)."""

    def parse(value: str) -> Path:
        require_path(value, flag)
        return Path(value)

    return parse
