"""An append-only JSONL file of records keyed by (scenario id, epoch).

Each record is appended and flushed as soon as it exists, so a killed process loses only
work in flight. A torn last line (the process died mid-write) is ignored on reading and cut
off before appending again. When a key has several records, the last one wins.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Generic, Protocol, TypeVar

from empathybench.jsonl import canonical_json, read_records
from empathybench.records import Record

ItemKey = tuple[str, int]


class _Keyed(Protocol):
    scenario_id: str
    epoch: int


RecordT = TypeVar("RecordT", bound=Record)


class AppendLog(Generic[RecordT]):
    def __init__(self, path: Path, model: type[RecordT]) -> None:
        self.path = path
        self.model = model
        self._handle: IO[str] | None = None

    def _repair_torn_tail(self) -> None:
        if not self.path.exists() or self.path.stat().st_size == 0:
            return
        with self.path.open("rb+") as handle:
            handle.seek(-1, os.SEEK_END)
            if handle.read(1) == b"\n":
                return
            data = self.path.read_bytes()
            handle.truncate(data.rfind(b"\n") + 1)

    def read(self) -> list[RecordT]:
        """Every complete record in file order."""
        if not self.path.exists():
            return []
        return list(read_records(self.path, self.model, torn_tail=True))

    def latest(self) -> dict[ItemKey, RecordT]:
        latest: dict[ItemKey, RecordT] = {}
        for record in self.read():
            keyed: _Keyed = record  # type: ignore[assignment]
            latest[(keyed.scenario_id, keyed.epoch)] = record
        return latest

    def open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._repair_torn_tail()
        self._handle = self.path.open("a", encoding="utf-8")

    def append(self, record: RecordT) -> None:
        if self._handle is None:
            raise RuntimeError("open() the log before appending")
        self._handle.write(canonical_json(record) + "\n")
        self._handle.flush()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.flush()
            os.fsync(self._handle.fileno())
            self._handle.close()
            self._handle = None

    def __enter__(self) -> AppendLog[RecordT]:
        self.open()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
