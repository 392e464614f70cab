"""A run directory: ``manifest.json`` plus append-only ``responses.jsonl``.

Each response is appended and flushed as soon as it finishes, so a killed process loses
only the calls that were in flight. A torn last line (the process died mid-write) is cut
off before appending again. When an item has several records (an error, then a later
success on resume), the last one wins.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO

from empathybench.errors import UserError
from empathybench.jsonl import atomic_write_text, canonical_json, parse_record
from empathybench.types import Response, RunManifest

MANIFEST = "manifest.json"
RESPONSES = "responses.jsonl"

ItemKey = tuple[str, int]


class RunStore:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._handle: IO[str] | None = None

    @property
    def manifest_path(self) -> Path:
        return self.directory / MANIFEST

    @property
    def responses_path(self) -> Path:
        return self.directory / RESPONSES

    def exists(self) -> bool:
        return self.manifest_path.is_file()

    def read_manifest(self) -> RunManifest:
        if not self.exists():
            raise UserError(f"{self.directory}: not a run directory (no {MANIFEST})")
        try:
            data = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as error:
            raise UserError(f"{self.manifest_path}: not valid JSON ({error.msg})") from None
        return parse_record(data, RunManifest, str(self.manifest_path))

    def write_manifest(self, manifest: RunManifest) -> None:
        atomic_write_text(
            self.manifest_path,
            json.dumps(manifest.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n",
        )

    def _repair_torn_tail(self) -> None:
        """Drop a final line without its newline: it was being written when the run died."""
        path = self.responses_path
        if not path.exists() or path.stat().st_size == 0:
            return
        with path.open("rb+") as handle:
            handle.seek(-1, os.SEEK_END)
            if handle.read(1) == b"\n":
                return
            data = path.read_bytes()
            handle.truncate(data.rfind(b"\n") + 1)

    def read_responses(self) -> list[Response]:
        """Every record in file order (a torn final line is ignored)."""
        if not self.responses_path.exists():
            return []
        records = []
        with self.responses_path.open("r", encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.endswith("\n"):
                    break
                if line.strip():
                    data = json.loads(line)
                    records.append(parse_record(data, Response, f"{self.responses_path}:{number}"))
        return records

    def latest_responses(self) -> dict[ItemKey, Response]:
        latest: dict[ItemKey, Response] = {}
        for record in self.read_responses():
            latest[(record.scenario_id, record.epoch)] = record
        return latest

    def open_for_append(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self._repair_torn_tail()
        self._handle = self.responses_path.open("a", encoding="utf-8")

    def append(self, response: Response) -> None:
        if self._handle is None:
            raise RuntimeError("open_for_append() first")
        self._handle.write(canonical_json(response) + "\n")
        self._handle.flush()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.flush()
            os.fsync(self._handle.fileno())
            self._handle.close()
            self._handle = None
