"""Scenario generation throughput and memory, with the writer's encoder against a baseline.

Runs each size in a fresh child process (so peak RSS is that size's alone), streaming to a
temporary file, and prints a table plus benchmarks/results/generate.json. Each size runs with
the project's encoder (``canonical_json_bytes``, orjson) and with the baseline standard-library
encoder (``canonical_json_data``), interleaved over ``--rounds``; the table shows medians and
the ratio of the two in the same run (this machine is shared, so absolute rates wander).
"build/s" generates without writing; "written/s" generates and writes to disk.

    python benchmarks/generate.py [--sizes 10000 100000] [--rounds 3] [--version v1|v2|v3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """
import resource, sys, time
from pathlib import Path
from empathybench.scenarios.generator import generate_records as generate
from empathybench.scenarios.generator import space_sizes
from empathybench.scenarios import suites
from empathybench.scenarios.suites import write_scenarios
if sys.argv[3] == "stdlib":
    from empathybench.jsonl import canonical_json_data
    suites.canonical_json_bytes = lambda data, *hint: canonical_json_data(data).encode("utf-8")
version = sys.argv[4]
t0 = time.perf_counter()
space_sizes(version)
setup = time.perf_counter() - t0
rss_setup = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
records = sum(1 for _ in generate(int(sys.argv[1]), seed=1, template_version=version))
records_only = time.perf_counter() - t0
t1 = time.perf_counter()
summary = write_scenarios(
    Path(sys.argv[2]), generate(int(sys.argv[1]), seed=1, template_version=version)
)
elapsed = time.perf_counter() - t1
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(summary.n, setup, elapsed, rss_setup, rss, Path(sys.argv[2]).stat().st_size, records_only)
"""


def measure(n: int, encoder: str, version: str = "v1") -> dict[str, float]:
    with tempfile.TemporaryDirectory() as directory:
        out = Path(directory) / "set.jsonl"
        result = subprocess.run(
            [sys.executable, "-c", CHILD, str(n), str(out), encoder, version],
            capture_output=True,
            text=True,
            check=True,
        )
    count, setup, elapsed, rss_setup, rss, size, records_only = result.stdout.split()
    return {
        "n": int(count),
        "setup_s": round(float(setup), 3),
        "generate_s": round(float(elapsed), 3),
        "scenarios_per_s": round(int(count) / float(elapsed), 1),
        "records_per_s_without_writing": round(int(count) / float(records_only), 1),
        "peak_rss_mb_after_setup": round(int(rss_setup) / 1024, 1),
        "peak_rss_mb": round(int(rss) / 1024, 1),
        "file_mb": round(int(size) / 2**20, 1),
    }


ENCODERS = ("orjson", "stdlib")


def median_row(trials: list[dict[str, float]]) -> dict[str, float]:
    return {key: statistics.median(trial[key] for trial in trials) for key in trials[0]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--version", default="v1", help="template version to generate")
    args = parser.parse_args()
    rows = []
    for n in args.sizes:
        trials: dict[str, list[dict[str, float]]] = {encoder: [] for encoder in ENCODERS}
        for _ in range(args.rounds):
            for encoder in ENCODERS:
                trials[encoder].append(measure(n, encoder, args.version))
        for encoder in ENCODERS:
            row = {"encoder": encoder, **median_row(trials[encoder])}
            row["written_over_built"] = round(
                row["scenarios_per_s"] / row["records_per_s_without_writing"], 3
            )
            row["written_vs_stdlib_same_run"] = round(
                statistics.median(
                    fast["scenarios_per_s"] / base["scenarios_per_s"]
                    for fast, base in zip(trials[encoder], trials["stdlib"], strict=True)
                ),
                3,
            )
            rows.append(row)
    header = (
        f"{'n':>8} {'encoder':>8} {'setup s':>8} {'gen s':>8} {'written/s':>10} {'build/s':>9} "
        f"{'w/b':>6} {'vs stdlib':>10} {'RSS setup MB':>13} {'peak RSS MB':>12} {'file MB':>8}"
    )
    print(header)
    for row in rows:
        print(
            f"{row['n']:>8} {row['encoder']:>8} {row['setup_s']:>8.3f} {row['generate_s']:>8.3f} "
            f"{row['scenarios_per_s']:>10.0f} {row['records_per_s_without_writing']:>9.0f} "
            f"{row['written_over_built']:>6.2f} {row['written_vs_stdlib_same_run']:>9.2f}x "
            f"{row['peak_rss_mb_after_setup']:>13} {row['peak_rss_mb']:>12} {row['file_mb']:>8}"
        )
    suffix = "" if args.version == "v1" else f"_{args.version}"
    out = Path(__file__).parent / "results" / f"generate{suffix}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "machine": platform.platform(),
                "python": platform.python_version(),
                "load_average_at_end": os.getloadavg(),
                "rounds": args.rounds,
                "template_version": args.version,
                "results": rows,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
