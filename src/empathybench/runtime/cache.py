"""A response cache in SQLite with JSON values (never pickle).

The key is a sha256 over everything that can change an answer: provider, model, base URL,
system prompt, provider options, messages, every generation parameter, the epoch and the
prompt/strategy versions. A guided request (``--answer-mode guided``) adds its answer guide
and ``GUIDED_VERSION``, so guided and free answers never share a key; a free request's key
is exactly what it was before guided answers existed, so old caches still hit.
Only successful outputs are stored; errors and content-filter stops never are. Entries do
not expire.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import warnings
from datetime import datetime, timezone
from pathlib import Path

from pydantic import ValidationError

from empathybench.errors import ParameterError, UserError
from empathybench.models.base import ModelOutput, ModelRequest, ModelSpec
from empathybench.models.guided import GUIDED_VERSION
from empathybench.validation import check_file_target

CACHE_FORMAT = 1
# Options that only change how we talk to the provider, not what it answers.
_TRANSPORT_OPTIONS = frozenset({"timeout", "batch_size", "client"})


def default_cache_path() -> Path:
    configured = os.environ.get("EMPATHYBENCH_CACHE")
    if configured:
        return Path(configured)
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "empathybench" / "responses.sqlite"


def cache_key(
    spec: ModelSpec, request: ModelRequest, *, epoch: int, versions: dict[str, str]
) -> str:
    material: dict[str, object] = {
        "format": CACHE_FORMAT,
        "provider": spec.provider,
        "model": spec.name,
        "base_url": spec.base_url,
        "system_prompt": spec.system_prompt,
        "options": {k: v for k, v in sorted(spec.options.items()) if k not in _TRANSPORT_OPTIONS},
        "messages": [message.model_dump() for message in request.messages],
        "params": request.params.model_dump(),
        "json_schema": request.json_schema,
        "epoch": epoch,
        "versions": dict(sorted(versions.items())),
    }
    if request.guide is not None:  # only guided keys change: free keys stay as they were
        material["guided"] = {"version": GUIDED_VERSION, "guide": request.guide.model_dump()}
    canonical = json.dumps(material, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


_SQLITE_HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT_S = 30.0
"""How long a write waits for another process holding the cache database."""


def _warn(message: str) -> None:
    warnings.warn(message, RuntimeWarning, stacklevel=3)


def check_cache_path(path: Path | None, parameter: str = "cache") -> None:
    """``path`` can be the cache: a new file, or an existing SQLite database."""
    check_file_target(parameter, path)
    if path is None or not path.is_file() or path.stat().st_size == 0:
        return
    with path.open("rb") as handle:
        if handle.read(len(_SQLITE_HEADER)) != _SQLITE_HEADER:
            raise ParameterError.about(parameter, f"{path} is not a cache database (SQLite)")


class ResponseCache:
    """Thread-safe get/put of ModelOutput by key.

    The cache only saves calls: once it is open, a row that no longer reads (a corrupt value, an
    older format) is a miss, and a write that fails (another process holding the database past
    the busy timeout) is a warning, so a paid answer is never lost to the cache."""

    def __init__(self, path: Path) -> None:
        check_cache_path(path)
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._connection = sqlite3.connect(
                path, check_same_thread=False, isolation_level=None, timeout=BUSY_TIMEOUT_S
            )
            self._connection.execute("PRAGMA journal_mode=WAL")
            self._connection.execute("PRAGMA synchronous=NORMAL")
            self._connection.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT NOT NULL, "
                "value TEXT NOT NULL, created_at TEXT NOT NULL)"
            )
        except sqlite3.Error as error:
            raise UserError(f"{path}: cannot use as the response cache ({error})") from None

    def get(self, key: str) -> ModelOutput | None:
        try:
            with self._lock:
                row = self._connection.execute(
                    "SELECT value FROM responses WHERE key = ?", (key,)
                ).fetchone()
            return None if row is None else ModelOutput.model_validate_json(row[0])
        except (sqlite3.Error, ValidationError) as error:
            _warn(f"{self.path}: cannot read a cached answer, calling the model instead ({error})")
            return None

    def put(self, key: str, model_id: str, output: ModelOutput) -> None:
        created = datetime.now(timezone.utc).isoformat(timespec="seconds")
        try:
            with self._lock:
                self._connection.execute(
                    "INSERT OR REPLACE INTO responses (key, model, value, created_at) "
                    "VALUES (?, ?, ?, ?)",
                    (key, model_id, output.model_dump_json(), created),
                )
        except sqlite3.Error as error:
            _warn(f"{self.path}: answer kept but not cached ({error})")

    def discard(self, key: str) -> None:
        """Forget ``key`` (an answer that turned out unusable must not be served again)."""
        with self._lock:
            self._connection.execute("DELETE FROM responses WHERE key = ?", (key,))

    def __len__(self) -> int:
        with self._lock:
            return int(self._connection.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._connection.close()
