"""What the validation layer and the safe JSON/JSONL reader cost per run, beside a baseline.

Setup (not timed): a 1,000-item suite is generated and run through ``mock/bench`` with the real
runner, giving a run directory with ``responses.jsonl`` and ``manifest.json``.

Timed (median of the rounds), each beside the same work without the new code:
- reading the suite and the responses with the safe reader (``read_records``: size and file
  checks, UTF-8 per line, the nesting check) vs a plain loop of ``json.loads`` +
  ``model_validate`` over ``read_text().splitlines()`` (what the project did before);
- every parameter check the ``run`` command makes before a call (numbers, paths, URL, cache
  file) vs nothing;
- a whole in-process ``run`` over the 1,000 items with the mock model, for scale.

Prints a table and writes benchmarks/results/validation_cost.json.

    python benchmarks/validation_cost.py [--items 1000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from empathybench.cli.run_commands import check_generation
from empathybench.jsonl import read_records
from empathybench.models.registry import parse_model_id
from empathybench.records import Response, Scenario
from empathybench.runner import RunOptions, execute_run
from empathybench.runtime.cache import check_cache_path
from empathybench.scenarios.generator import generate
from empathybench.scenarios.suites import load_suite, write_scenarios
from empathybench.validation import (
    check_count,
    check_directory_target,
    check_existing_file,
    check_number,
    check_url,
)

RESULTS = Path(__file__).parent / "results" / "validation_cost.json"


def median_seconds(work: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def plain_read(path: Path, model: type[BaseModel]) -> list[BaseModel]:
    """The baseline: no size, type, UTF-8-per-line or depth checks."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [model.model_validate(json.loads(line)) for line in lines if line.strip()]


def run_checks(run_dir: Path, cache: Path, prices: Path) -> None:
    """Every check ``empathybench run`` makes on its values before a model call."""
    check_generation(temperature=0.7, top_p=0.9, max_tokens=400, seed=1)
    for name, count in (("epochs", 1), ("limit", 100), ("max_attempts", 6)):
        check_count(name, count)
    check_count("max_connections", 8)
    check_number("rpm", 60.0, above=0)
    check_url("base_url", "http://127.0.0.1:8000/v1")
    check_directory_target("run_dir", run_dir)
    check_cache_path(cache)
    check_existing_file("prices", prices)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        suite_path = root / "suite.jsonl"
        write_scenarios(suite_path, generate(args.items, seed=3, template_version="v1"))
        run_dir = root / "run"
        cache = root / "cache.sqlite"
        prices = root / "prices.json"
        prices.write_text("{}")

        def one_run() -> None:
            target = root / f"run-{time.perf_counter_ns()}"
            asyncio.run(
                execute_run(
                    RunOptions(
                        suite=load_suite(str(suite_path)),
                        suite_source=str(suite_path),
                        spec=parse_model_id("mock/bench"),
                        run_dir=target,
                        cache_path=cache,
                        progress=None,
                    )
                )
            )

        asyncio.run(
            execute_run(
                RunOptions(
                    suite=load_suite(str(suite_path)),
                    suite_source=str(suite_path),
                    spec=parse_model_id("mock/bench"),
                    run_dir=run_dir,
                    progress=None,
                )
            )
        )
        responses = run_dir / "responses.jsonl"
        rows = [
            (
                f"read suite ({args.items} scenarios)",
                median_seconds(lambda: list(read_records(suite_path, Scenario)), args.rounds),
                median_seconds(lambda: plain_read(suite_path, Scenario), args.rounds),
            ),
            (
                f"read responses ({args.items} records)",
                median_seconds(lambda: list(read_records(responses, Response)), args.rounds),
                median_seconds(lambda: plain_read(responses, Response), args.rounds),
            ),
            (
                "run's parameter checks",
                median_seconds(lambda: run_checks(root / "new-run", cache, prices), args.rounds),
                0.0,
            ),
        ]
        whole_run = median_seconds(one_run, max(1, args.rounds // 2))
    added = sum(with_s - without_s for _, with_s, without_s in rows)
    print(f"{'step':38} {'with (ms)':>10} {'without (ms)':>13} {'ratio':>7}")
    for name, with_s, without_s in rows:
        ratio = f"{with_s / without_s:.2f}" if without_s else "-"
        print(f"{name:38} {with_s * 1e3:10.2f} {without_s * 1e3:13.2f} {ratio:>7}")
    print(f"{'whole mock run (for scale)':38} {whole_run * 1e3:10.1f}")
    print(
        f"added per run: {added * 1e3:.2f} ms = {100 * added / whole_run:.2f}% of a "
        f"{args.items}-item mock run (a real model's run takes minutes to hours)"
    )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "items": args.items,
                "rounds": args.rounds,
                "machine": platform.platform(),
                "python": platform.python_version(),
                "steps": [
                    {"step": name, "with_s": with_s, "without_s": without_s}
                    for name, with_s, without_s in rows
                ],
                "whole_mock_run_s": whole_run,
                "added_per_run_s": added,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
