"""What the run-directory lock and the finished-run check cost, beside the work they guard.

Three measurements, each the median of ``--repeats`` alternating trials:

1. taking and releasing the lock on a directory (``hold_directory``), and the reader's probe
   (``directory_in_use``), in microseconds;
2. a whole ``execute_run`` of ``--items`` items on the mock model (no latency, no cache):
   with the lock, and with the lock replaced by a no-op (the baseline), side by side;
3. the leaderboard's finished-run check (``run_state``) beside loading the run it checks.

Prints a table and writes benchmarks/results/run_lock_cost.json.

    python benchmarks/run_lock_cost.py [--items 100] [--repeats 15]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import platform
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import empathybench.runner as runner_module
from empathybench.analysis.run_status import run_state
from empathybench.models.registry import parse_model_id
from empathybench.runner import RunOptions, execute_run
from empathybench.runtime.directory_lock import directory_in_use, hold_directory
from empathybench.runtime.run_data import load_run_data
from empathybench.scenarios.generator import generate
from empathybench.scenarios.suites import load_suite, write_scenarios

RESULTS = Path(__file__).parent / "results" / "run_lock_cost.json"


def median_s(action: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


@contextlib.contextmanager
def no_lock(directory: Path) -> Iterator[None]:
    yield


def one_run(suite_path: Path, directory: Path, locked: bool) -> float:
    runner_module.hold_directory = hold_directory if locked else no_lock  # type: ignore[assignment]
    options = RunOptions(
        suite=load_suite(str(suite_path)),
        suite_source=str(suite_path),
        spec=parse_model_id("mock/bench"),
        run_dir=directory,
        max_connections=16,
        progress=None,
    )
    start = time.perf_counter()
    asyncio.run(execute_run(options))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="eb-lock-bench-") as scratch:
        root = Path(scratch)
        lock_dir = root / "locked"

        def take_and_release() -> None:
            with hold_directory(lock_dir):
                pass

        take_and_release()
        lock_us = median_s(take_and_release, 2000) * 1e6
        probe_us = median_s(lambda: directory_in_use(lock_dir), 2000) * 1e6

        suite_path = root / "suite.jsonl"
        write_scenarios(suite_path, generate(args.items, seed=11, template_version="v1"))
        with_lock, without = [], []
        for trial in range(args.repeats):  # alternate, so drift hits both alike
            without.append(one_run(suite_path, root / f"plain-{trial}", locked=False))
            with_lock.append(one_run(suite_path, root / f"lock-{trial}", locked=True))
        runner_module.hold_directory = hold_directory

        finished = root / "lock-0"
        load_s = median_s(lambda: load_run_data(finished), args.repeats)
        data = load_run_data(finished)
        check_s = median_s(lambda: run_state(data), args.repeats)

    run_plain, run_locked = statistics.median(without), statistics.median(with_lock)
    rows = [
        {"measure": "lock take + release", "baseline": None, "value": lock_us, "unit": "us"},
        {"measure": "lock probe (reader)", "baseline": None, "value": probe_us, "unit": "us"},
        {
            "measure": f"run of {args.items} mock items",
            "baseline": run_plain * 1e3,
            "value": run_locked * 1e3,
            "unit": "ms",
        },
        {
            "measure": "finished-run check vs loading the run",
            "baseline": load_s * 1e3,
            "value": check_s * 1e3,
            "unit": "ms",
        },
    ]
    print(f"{'measure':40} {'baseline':>10} {'with':>10} {'ratio':>7}  unit")
    for row in rows:
        baseline = row["baseline"]
        value = float(row["value"])  # type: ignore[arg-type]
        ratio = f"{value / float(baseline):.3f}" if baseline else "-"  # type: ignore[arg-type]
        base_text = f"{float(baseline):10.2f}" if baseline else f"{'-':>10}"  # type: ignore[arg-type]
        print(f"{row['measure']:40} {base_text} {value:10.2f} {ratio:>7}  {row['unit']}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "benchmark": "run_lock_cost",
                "items": args.items,
                "repeats": args.repeats,
                "python": platform.python_version(),
                "platform": platform.platform(),
                "rows": rows,
                "run_ms_without_lock": [round(t * 1e3, 2) for t in without],
                "run_ms_with_lock": [round(t * 1e3, 2) for t in with_lock],
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
