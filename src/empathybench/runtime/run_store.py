"""A run directory: ``manifest.json``, ``responses.jsonl`` and ``verdicts/<judge>.jsonl``."""

from __future__ import annotations

import re
from pathlib import Path

from empathybench.errors import UserError
from empathybench.jsonl import atomic_write_text, pretty_json, read_json_record
from empathybench.records import Response, RunManifest, Verdict
from empathybench.runtime.append_log import AppendLog, ItemKey

MANIFEST = "manifest.json"
RESPONSES = "responses.jsonl"
VERDICTS = "verdicts"

__all__ = ["ItemKey", "RunStore"]


def judge_slug(judge: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", judge).strip("-")


class RunStore:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.responses = AppendLog(directory / RESPONSES, Response)

    @property
    def manifest_path(self) -> Path:
        return self.directory / MANIFEST

    @property
    def responses_path(self) -> Path:
        return self.responses.path

    def exists(self) -> bool:
        return self.manifest_path.is_file()

    def read_manifest(self) -> RunManifest:
        if not self.exists():
            raise UserError(f"{self.directory}: not a run directory (no {MANIFEST})")
        return read_json_record(self.manifest_path, RunManifest)

    def write_manifest(self, manifest: RunManifest) -> None:
        atomic_write_text(self.manifest_path, pretty_json(manifest))

    def read_responses(self) -> list[Response]:
        return self.responses.read()

    def latest_responses(self) -> dict[ItemKey, Response]:
        return self.responses.latest()

    def verdicts(self, judge: str) -> AppendLog[Verdict]:
        return AppendLog(self.directory / VERDICTS / f"{judge_slug(judge)}.jsonl", Verdict)

    def judges_on_disk(self) -> list[str]:
        directory = self.directory / VERDICTS
        return sorted(path.stem for path in directory.glob("*.jsonl")) if directory.is_dir() else []
