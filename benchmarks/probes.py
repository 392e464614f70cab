"""The real probe run on the bundled SmolLM2-135M: layer sweep, baselines, LOSO and steering.

Runs the three CLI steps as child processes and times each (wall and CPU seconds of the child,
its peak RSS, and the load average, because other processes on a small shared machine change
wall times a lot):

1. ``probe train`` on all 30 layers (activations of 64 pairs x 2 sides x {as written, keywords
   removed}) into a scratch directory (the activations cache is ~18 MB, so it is not kept);
2. ``probe eval`` with 200 random directions and 1000 label permutations per layer;
3. ``probe steer`` at the two best training layers (at least 3 apart), alphas -20..20,
   4 held-out prompts x 3 seeds, 50 new tokens.

Writes eval.json, steer.json, their figures, probe.json/probe.safetensors and timings.json
under benchmarks/results/probes/ and prints the timing table.

    python benchmarks/probes.py [--threads 2] [--seeds 3] [--prompts 4] [--max-new-tokens 50]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "probes"


def step(name: str, args: list[str]) -> dict[str, object]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    completed = subprocess.run([sys.executable, "-m", "empathybench", *args], check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if completed.returncode != 0:
        raise SystemExit(f"{name} failed with exit code {completed.returncode}")
    return {
        "step": name,
        "wall_s": round(wall, 1),
        "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 1),
        "peak_rss_mb": round(after.ru_maxrss / 1024),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--prompts", type=int, default=4)
    parser.add_argument("--max-new-tokens", type=int, default=50)
    options = parser.parse_args()
    RESULTS.mkdir(parents=True, exist_ok=True)
    threads = ["--threads", str(options.threads)]
    steer = ["--top-layers", "2", "--seeds", str(options.seeds), "--prompts", str(options.prompts)]
    steer += ["--max-new-tokens", str(options.max_new_tokens), *threads]
    with tempfile.TemporaryDirectory(prefix="probe-smollm2-") as scratch:
        probe = Path(scratch) / "probe"
        rows = [
            step(
                "train", ["probe", "train", "--model", "local/smollm2", "-o", str(probe), *threads]
            ),
            step("eval", ["probe", "eval", "--probe", str(probe), "-o", str(RESULTS), *threads]),
            step("steer", ["probe", "steer", "--probe", str(probe), "-o", str(RESULTS), *steer]),
        ]
        for name in ("probe.json", "probe.safetensors"):
            shutil.copy(probe / name, RESULTS / name)
    (RESULTS / "timings.json").write_text(json.dumps({"steps": rows}, indent=2) + "\n")
    print(f"{'step':<8}{'wall s':>10}{'cpu s':>10}{'peak MB':>10}{'load':>8}")
    for row in rows:
        print(
            f"{row['step']:<8}{row['wall_s']:>10}{row['cpu_s']:>10}{row['peak_rss_mb']:>10}"
            f"{row['load_average_1m']:>8}"
        )


if __name__ == "__main__":
    main()
