"""Scenario generation throughput and memory.

Runs each size in a fresh child process (so peak RSS is that size's alone), streaming to a
temporary file, and prints a table plus benchmarks/results/generate.json.

    python benchmarks/generate.py [--sizes 10000 100000]
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """
import resource, sys, time
from pathlib import Path
from empathybench.scenarios.generator import generate_records as generate
from empathybench.scenarios.space import build_space
from empathybench.scenarios.suites import write_scenarios
t0 = time.perf_counter()
build_space("v1")
setup = time.perf_counter() - t0
rss_setup = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
records = sum(1 for _ in generate(int(sys.argv[1]), seed=1))
records_only = time.perf_counter() - t0
t1 = time.perf_counter()
summary = write_scenarios(Path(sys.argv[2]), generate(int(sys.argv[1]), seed=1))
elapsed = time.perf_counter() - t1
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(summary.n, setup, elapsed, rss_setup, rss, Path(sys.argv[2]).stat().st_size, records_only)
"""


def measure(n: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as directory:
        out = Path(directory) / "set.jsonl"
        result = subprocess.run(
            [sys.executable, "-c", CHILD, str(n), str(out)],
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    args = parser.parse_args()
    rows = [measure(n) for n in args.sizes]
    header = (
        f"{'n':>8} {'setup s':>8} {'gen s':>8} {'items/s':>9} {'no-write/s':>10} "
        f"{'RSS setup MB':>13} {'peak RSS MB':>12} {'file MB':>8}"
    )
    print(header)
    for row in rows:
        print(
            f"{row['n']:>8} {row['setup_s']:>8} {row['generate_s']:>8} "
            f"{row['scenarios_per_s']:>9} {row['records_per_s_without_writing']:>10} "
            f"{row['peak_rss_mb_after_setup']:>13} "
            f"{row['peak_rss_mb']:>12} {row['file_mb']:>8}"
        )
    out = Path(__file__).parent / "results" / "generate.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(
        json.dumps(
            {"machine": platform.platform(), "python": platform.python_version(), "results": rows},
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
