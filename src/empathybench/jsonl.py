"""Canonical JSON lines: one serialisation for every record the project writes, and one
safe reader for every JSON, JSONL or text file the project reads.

Records are written with the standard library (sorted by declaration order, compact
separators, UTF-8), not with pydantic's serialiser, so that the bytes of a file do not
depend on the installed pydantic version.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import orjson
from pydantic import BaseModel, ValidationError

from empathybench.errors import UserError

ModelT = TypeVar("ModelT", bound=BaseModel)


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def canonical_json_data(data: object) -> str:
    """The canonical text of JSON-ready data (used directly by the generator's fast path)."""
    return _ENCODER.encode(data)


_ORJSON_OPTIONS = (
    orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
)


def _refuse(value: object) -> object:
    raise TypeError(f"not plain JSON data: {type(value).__name__}")


def canonical_json_bytes(data: object, big_integer_at: tuple[str, str] | None = None) -> bytes:
    """``canonical_json_data(data)`` as UTF-8 bytes, byte for byte, for data without floats.

    orjson (several times faster) writes the same bytes as the standard library for strings,
    integers up to 64 bits, booleans, null, and lists and dicts in insertion order. Integers
    beyond 64 bits in a mapping's values or its nested mappings' (the episode generator's space
    index) go in as placeholders replaced by their digits. What it still refuses goes to the
    standard library: integers beyond 64 bits inside lists, subclasses (enums),
    non-string keys, lone surrogates. Floats are the caller's promise: the two libraries format
    some of them differently (``1e-05``) and orjson writes NaN as ``null``, so data that may
    hold a float must use ``canonical_json_data``. Scenario records hold none (``Scenario``
    has no float field, and a test walks every kind the generators make).

    ``big_integer_at`` (``("provenance", "space_index")``): where a writer expects the one
    integer beyond 64 bits of each record. It is swapped for its placeholder directly, which
    skips orjson's failed first attempt and the walk over every mapping (about 3× less time
    for episode records); any other record takes the general path, with the same bytes.
    """
    if big_integer_at is not None:
        fast = _with_big_integer_at(data, big_integer_at)
        if fast is not None:
            return fast
    try:
        return orjson.dumps(data, default=_refuse, option=_ORJSON_OPTIONS)
    except (orjson.JSONEncodeError, TypeError) as error:
        fast = _with_big_integers(data) if "64-bit" in str(error) else None
        return fast if fast is not None else canonical_json_data(data).encode("utf-8")


_PLACEHOLDER = "\ue000"
"""Marks a big integer's stand-in string (a private-use character, never in our data)."""


def _with_big_integer_at(data: object, path: tuple[str, str]) -> bytes | None:
    """orjson's bytes for ``data`` with the big integer at ``data[outer][inner]`` written by
    its digits; None when there is none there, or anything else stops orjson, or the
    placeholder is not found exactly once (the general path then decides)."""
    outer, inner = path
    mapping = data.get(outer) if type(data) is dict else None
    value = mapping.get(inner) if type(mapping) is dict else None
    if type(value) is not int or -(2**63) <= value < 2**64:
        return None
    assert isinstance(data, dict) and isinstance(mapping, dict)
    placeholder = f"{_PLACEHOLDER}0{_PLACEHOLDER}"
    swapped = dict(data)
    swapped[outer] = {**mapping, inner: placeholder}
    try:
        out = orjson.dumps(swapped, default=_refuse, option=_ORJSON_OPTIONS)
    except (orjson.JSONEncodeError, TypeError):
        return None
    # Searched without its quotes: the private-use character's first byte is rare in JSON,
    # so the search skips ahead fast where a leading quote would stop it at every string.
    core = placeholder.encode()
    start = out.find(core)
    end = start + len(core)
    if start < 1 or out[start - 1 : start] != b'"' or out[end : end + 1] != b'"':
        return None
    if out.find(core, end) != -1:
        return None
    return b"".join((out[: start - 1], str(value).encode(), out[end + 1 :]))


def _with_big_integers(data: object) -> bytes | None:
    """orjson's bytes for a mapping holding integers beyond 64 bits in its own values or its
    nested mappings' (episode records carry one: their position in the generator's space).
    Each such integer stands in as a unique placeholder string and the quoted placeholder is
    then replaced by its digits, which is how the standard library writes it. Lists are not
    searched (cheap on records); None (use the standard library) when anything else stops
    orjson, or a placeholder is not found exactly once."""
    if type(data) is not dict:
        return None
    digits: list[bytes] = []

    def swap(mapping: dict[Any, Any]) -> dict[Any, Any]:
        out = mapping
        for key, value in mapping.items():
            if type(value) is int and not -(2**63) <= value < 2**64:
                digits.append(str(value).encode())
                replacement: object = f"{_PLACEHOLDER}{len(digits) - 1}{_PLACEHOLDER}"
            elif type(value) is dict:
                replacement = swap(value)
            else:
                continue
            if replacement is not value:
                out = dict(out) if out is mapping else out
                out[key] = replacement
        return out

    try:
        out = orjson.dumps(swap(data), default=_refuse, option=_ORJSON_OPTIONS)
    except (orjson.JSONEncodeError, TypeError):
        return None
    for index, number in enumerate(digits):
        token = f'"{_PLACEHOLDER}{index}{_PLACEHOLDER}"'.encode()
        if out.count(token) != 1:
            return None
        out = out.replace(token, number)
    return out


def canonical_digest(*parts: object) -> str:
    """SHA-256 of ``parts`` as one canonical JSON list: seeded orders and ids that cannot
    collide by concatenation, and do not depend on the platform or Python version."""
    return hashlib.sha256(canonical_json_data(list(parts)).encode("utf-8")).hexdigest()


def canonical_json(record: BaseModel) -> str:
    return _ENCODER.encode(record.model_dump(mode="json"))


def pretty_json(record: BaseModel) -> str:
    """Indented JSON in declaration order, ending in a newline: for files people open."""
    return json.dumps(record.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"


def _first_error(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "record"
    return f"{where}: {first['msg']}"


class RecordFormatError(UserError):
    """A JSON or JSONL file (or one of its lines) is not valid; the message names file:line."""


MAX_JSON_DEPTH = 64
"""Deepest nesting of arrays and objects a file may hold (records need fewer than 10)."""
MAX_FILE_BYTES = 1 << 30
"""Largest file read whole (JSON, YAML, CSV) or line by line (JSONL): 1 GiB."""
MAX_LINE_BYTES = 64 << 20
"""Longest JSONL line: 64 MiB (a record is a few KiB)."""


def _too_deep(data: object, limit: int) -> bool:
    """Whether ``data`` nests arrays/objects deeper than ``limit`` (iterative: no recursion)."""
    stack: list[tuple[object, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > limit:
                return True
            children = value.values() if isinstance(value, dict) else value
            stack.extend((child, depth + 1) for child in children)
    return False


def parse_json(text: str, where: str) -> object:
    """One JSON value from ``text``; anything wrong is one ``RecordFormatError`` naming
    ``where`` (``file`` or ``file:line``): syntax, non-finite numbers, nesting deeper than
    ``MAX_JSON_DEPTH``."""
    # Nesting needs brackets: counting them (in C) skips the walk for every ordinary record.
    may_be_deep = text.count("[") + text.count("{") > MAX_JSON_DEPTH
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordFormatError(f"{where}: not valid JSON ({error.msg})") from None
    except RecursionError:
        data = None
        may_be_deep = True
    if may_be_deep and (data is None or _too_deep(data, MAX_JSON_DEPTH)):
        raise RecordFormatError(
            f"{where}: JSON nested deeper than {MAX_JSON_DEPTH} levels; not a file this reads"
        )
    return data


def check_readable_file(path: Path, what: str) -> int:
    """The size of ``path`` after checking it is a regular file of at most MAX_FILE_BYTES."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except OSError as error:
        raise UserError(f"{path}: cannot read ({error.strerror})") from None
    if stat.S_ISDIR(info.st_mode):
        raise UserError(f"{path}: is a folder, expected {what}")
    if not stat.S_ISREG(info.st_mode):
        raise UserError(f"{path}: not a regular file, expected {what}")
    if info.st_size > MAX_FILE_BYTES:
        raise UserError(
            f"{path}: {info.st_size:,} bytes is larger than the {MAX_FILE_BYTES:,} bytes "
            f"this reads as {what}"
        )
    return info.st_size


def read_text(path: Path, what: str = "a text file", *, encoding: str = "utf-8") -> str:
    """The whole text of a UTF-8 file; a missing, binary, oversized or non-file path is one
    ``UserError`` naming it and saying what was expected (``what``, e.g. "a JSON file")."""
    check_readable_file(path, what)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise UserError(f"{path}: cannot read ({error.strerror})") from None
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise RecordFormatError(f"{path}:{line}: not UTF-8 text; expected {what}") from None
    if "\x00" in text:
        raise RecordFormatError(f"{path}: holds NUL bytes (binary data), expected {what}")
    return text


def read_json(path: Path) -> object:
    """One JSON document (any value) from a file, read safely (see ``parse_json``)."""
    return parse_json(read_text(path, "a JSON file"), str(path))


def read_json_lines(path: Path, *, torn_tail: bool = False) -> Iterator[tuple[int, object]]:
    """``(line number, value)`` for each non-blank line of a JSONL file, read safely.

    ``torn_tail``: a last line without its newline (a writer killed mid-line) is skipped
    instead of reported, for append-only logs.
    """
    check_readable_file(path, "a JSONL file")
    with path.open("rb") as handle:
        number = 0
        while raw := handle.readline(MAX_LINE_BYTES + 1):
            number += 1
            if not raw.endswith(b"\n"):
                if len(raw) > MAX_LINE_BYTES:
                    raise RecordFormatError(
                        f"{path}:{number}: line longer than {MAX_LINE_BYTES:,} bytes"
                    )
                if torn_tail:
                    return
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise RecordFormatError(f"{path}:{number}: not UTF-8 text") from None
            if not line.strip():
                continue
            yield number, parse_json(line, f"{path}:{number}")


def read_json_objects(
    path: Path, *, torn_tail: bool = False
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``read_json_lines`` where every line must be a JSON object."""
    for number, data in read_json_lines(path, torn_tail=torn_tail):
        if not isinstance(data, dict):
            raise RecordFormatError(f"{path}:{number}: expected a JSON object")
        yield number, data


def read_records(path: Path, model: type[ModelT], *, torn_tail: bool = False) -> Iterator[ModelT]:
    """Parse each non-empty line of ``path`` as ``model``; errors name the file and line."""
    for number, data in read_json_objects(path, torn_tail=torn_tail):
        yield parse_record(data, model, f"{path}:{number}")


def parse_record(data: dict[str, object], model: type[ModelT], where: str) -> ModelT:
    schema_version = data.get("schema_version")
    if "schema_version" in model.model_fields and schema_version is not None:
        from empathybench.records import KNOWN_SCHEMA_VERSIONS

        if schema_version not in KNOWN_SCHEMA_VERSIONS:
            known = ", ".join(str(v) for v in sorted(KNOWN_SCHEMA_VERSIONS))
            raise RecordFormatError(
                f"{where}: schema version {schema_version!r} is not supported (known: {known}); "
                "upgrade empathybench or regenerate the file"
            )
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise RecordFormatError(
            f"{where}: invalid {model.__name__} ({_first_error(error)})"
        ) from None


def read_json_record(path: Path, model: type[ModelT]) -> ModelT:
    """One JSON file as ``model``; a bad file is one ``UserError`` line naming it."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise RecordFormatError(f"{path}: expected a JSON object")
    return parse_record(data, model, str(path))


def atomic_write_text(path: Path, text: str) -> None:
    """Write a whole file so that readers never see it half-written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with temporary.open("w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        temporary.replace(path)
    finally:  # a failed write (text that cannot be encoded, a full disk) leaves nothing behind
        temporary.unlink(missing_ok=True)


def write_text_files(directory: Path, files: dict[str, str]) -> list[Path]:
    """Write each ``name → text`` into ``directory`` atomically; the paths, in order."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        atomic_write_text(directory / name, text)
    return [directory / name for name in files]
