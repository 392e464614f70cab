"""Throughput of ``empathybench.rewards.empathy_reward`` (completions/s) on this machine.

Scores the same completions two ways in one run: one batched call (as a GRPO step calls it)
and one call per completion (the naive loop), so the ratio is measured side by side. The
offline judge is loaded before timing (a trainer loads it once).

    python benchmarks/rewards.py [--n 256]

Prints a table and writes benchmarks/results/rewards.json.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "rewards.json"

REPLIES = [
    "That sounds exhausting, and it makes sense you feel this way. Want to plan the next step?",
    "Okay.",
    "I'm so sorry. I'm here with you; would it help to talk it through, or to call someone?",
    "Congratulations! That's wonderful news, you earned it.",
    "Have you tried just not worrying about it?",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=256)
    args = parser.parse_args()
    from empathybench.rewards import _judge, empathy_reward, training_prompts

    rows = training_prompts(args.n, seed=11, template_version="v1")
    completions = [
        f"EMOTION: A\nNEEDS_HELP: yes\nREPLY: {REPLIES[i % len(REPLIES)]}" for i in range(args.n)
    ]
    scenarios = [r["scenario"] for r in rows]
    _judge()
    empathy_reward([None], completions[:1], scenario=scenarios[:1])  # warm-up
    started = time.perf_counter()
    batched = empathy_reward([None] * args.n, completions, scenario=scenarios)
    batched_s = time.perf_counter() - started
    started = time.perf_counter()
    single = [
        empathy_reward([None], [c], scenario=[s])[0]
        for c, s in zip(completions, scenarios, strict=True)
    ]
    single_s = time.perf_counter() - started
    same = max(abs(a - b) for a, b in zip(batched, single, strict=True))
    result = {
        "n": args.n,
        "cpu_cores": os.cpu_count(),
        "batched_completions_per_s": args.n / batched_s,
        "one_by_one_completions_per_s": args.n / single_s,
        "batched_over_one_by_one": single_s / batched_s,
        "max_abs_difference": same,
    }
    print(f"{'mode':<14}{'completions/s':>15}")
    print(f"{'batched':<14}{result['batched_completions_per_s']:>15.1f}")
    print(f"{'one by one':<14}{result['one_by_one_completions_per_s']:>15.1f}")
    print(f"batched / one-by-one: {result['batched_over_one_by_one']:.2f}x; max |Δ| {same:.2e}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
