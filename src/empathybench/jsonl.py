"""Canonical JSON lines: one serialisation for every record the project writes.

Records are written with the standard library (sorted by declaration order, compact
separators, UTF-8), not with pydantic's serialiser, so that the bytes of a file do not
depend on the installed pydantic version.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

import orjson
from pydantic import BaseModel, ValidationError

from empathybench.errors import UserError

ModelT = TypeVar("ModelT", bound=BaseModel)


class RecordFormatError(UserError):
    """A JSONL file has a line that is not a valid record."""


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


def canonical_json_bytes(data: object) -> bytes:
    """``canonical_json_data(data)`` as UTF-8 bytes, byte for byte, for data without floats.

    orjson (several times faster) writes the same bytes as the standard library for strings,
    integers up to 64 bits, booleans, null, and lists and dicts in insertion order. What it
    refuses goes to the standard library: integers beyond 64 bits, subclasses (enums),
    non-string keys, lone surrogates. Floats are the caller's promise: the two libraries format
    some of them differently (``1e-05``) and orjson writes NaN as ``null``, so data that may
    hold a float must use ``canonical_json_data``. Scenario records hold none (``Scenario``
    has no float field, and a test walks every kind the generators make).
    """
    try:
        return orjson.dumps(data, default=_refuse, option=_ORJSON_OPTIONS)
    except (orjson.JSONEncodeError, TypeError):
        return canonical_json_data(data).encode("utf-8")


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


def read_records(path: Path, model: type[ModelT]) -> Iterator[ModelT]:
    """Parse each non-empty line of ``path`` as ``model``; errors name the file and line."""
    if not path.exists():
        raise UserError(f"{path}: no such file")
    if path.is_dir():
        raise UserError(f"{path}: is a directory, expected a JSONL file")
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise RecordFormatError(f"{path}:{number}: not UTF-8 text") from None
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as error:
                raise RecordFormatError(f"{path}:{number}: not valid JSON ({error.msg})") from None
            if not isinstance(data, dict):
                raise RecordFormatError(f"{path}:{number}: expected a JSON object")
            yield parse_record(data, model, f"{path}:{number}")


def parse_record(data: dict[str, object], model: type[ModelT], where: str) -> ModelT:
    schema_version = data.get("schema_version")
    if "schema_version" in model.model_fields and schema_version is not None:
        from empathybench.types import KNOWN_SCHEMA_VERSIONS

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
    if not path.is_file():
        raise UserError(f"{path}: no such file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise UserError(f"{path}: not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise UserError(f"{path}: not valid JSON ({error.msg})") from None
    if not isinstance(data, dict):
        raise UserError(f"{path}: expected a JSON object")
    return parse_record(data, model, str(path))


def atomic_write_text(path: Path, text: str) -> None:
    """Write a whole file so that readers never see it half-written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with temporary.open("w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    temporary.replace(path)


def write_text_files(directory: Path, files: dict[str, str]) -> list[Path]:
    """Write each ``name → text`` into ``directory`` atomically; the paths, in order."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        atomic_write_text(directory / name, text)
    return [directory / name for name in files]
