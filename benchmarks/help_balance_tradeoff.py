"""What balancing one-person items' help answers costs on emotion, per scene.

One-person items (emotion support and positive control) look alike to a reader, so a reader
who knows the scene sees them pooled. With the generator's help balancing, some people of a
scene are asked about less often (their help answer is the commoner one), so the scene
hints at the key; without it, every person is asked about equally, but the scene's people
then hint at the help answer. This prints, per setting, a scene oracle's accuracy on both
questions (in sample: the upper end of what a scene lookup can reach) and writes
benchmarks/results/help_balance_tradeoff.json.

    python benchmarks/help_balance_tradeoff.py [--version v4] [--n 30000] [--seed 4321]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import empathybench.scenarios.generator as generator

ONE_PERSON = ("emotion_support", "positive_control")


def scene_oracle(records: list[dict[str, Any]]) -> dict[str, float]:
    emotions: dict[str, Counter[str]] = defaultdict(Counter)
    helps: dict[str, Counter[bool]] = defaultdict(Counter)
    for record in records:
        scene = record["setting"]["scene"]
        emotions[scene][record["emotion"]["name"]] += 1
        helps[scene][record["expected"]["help_needed"]] += 1
    emotion_hits = sum(
        max(r["options"], key=lambda o: emotions[r["setting"]["scene"]][o]) == r["emotion"]["name"]
        for r in records
    )
    n = len(records)
    return {
        "items": n,
        "yes_share": round(sum(r["expected"]["help_needed"] for r in records) / n, 3),
        "emotion_oracle": round(emotion_hits / n, 3),
        "help_oracle": round(sum(max(c.values()) for c in helps.values()) / n, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--version", default="v4")
    parser.add_argument("--n", type=int, default=30_000)
    parser.add_argument("--seed", type=int, default=4321)
    args = parser.parse_args()
    settings = {
        "balanced (as shipped)": (generator.HELP_BALANCED_KINDS, generator.DETERMINED_KEEP),
        "balanced, keep every determined episode": (generator.HELP_BALANCED_KINDS, 1),
        "not balanced": (frozenset(), generator.DETERMINED_KEEP),
    }
    shipped = (generator.HELP_BALANCED_KINDS, generator.DETERMINED_KEEP)
    rows = []
    print(f"{'setting':42} {'items':>6} {'yes':>6} {'emotion':>8} {'help':>6}")
    try:
        for name, (kinds, keep) in settings.items():
            generator.HELP_BALANCED_KINDS, generator.DETERMINED_KEEP = kinds, keep
            records = [
                r
                for r in generator.generate_records(
                    args.n, args.seed, template_version=args.version
                )
                if r["kind"] in ONE_PERSON
            ]
            row = {"setting": name, **scene_oracle(records)}
            rows.append(row)
            print(
                f"{name:42} {row['items']:>6} {row['yes_share']:>6} "
                f"{row['emotion_oracle']:>8} {row['help_oracle']:>6}"
            )
    finally:
        generator.HELP_BALANCED_KINDS, generator.DETERMINED_KEEP = shipped
    out = Path(__file__).parent / "results" / "help_balance_tradeoff.json"
    result = {"version": args.version, "n": args.n, "seed": args.seed, "rows": rows}
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
