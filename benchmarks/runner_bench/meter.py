"""Wall time, CPU time and cyclic-GC time of one measured call."""

from __future__ import annotations

import gc
import time
from typing import Any


class Meter:
    """Wall time, process CPU time and cyclic-GC time (with collections per generation)."""

    def __enter__(self) -> Meter:
        self.gc_s, self.collections, self._gc_started = 0.0, [0, 0, 0], 0.0
        gc.callbacks.append(self._on_gc)
        self.cpu_s, self.wall_s = time.process_time(), time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall_s = time.perf_counter() - self.wall_s
        self.cpu_s = time.process_time() - self.cpu_s
        gc.callbacks.remove(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            self.gc_s += time.perf_counter() - self._gc_started
            self.collections[info["generation"]] += 1

    def fields(self) -> dict[str, Any]:
        return {
            "wall_s": self.wall_s,
            "client_cpu_s": self.cpu_s,
            "gc_s": self.gc_s,
            "gc_collections_by_generation": self.collections,
        }
