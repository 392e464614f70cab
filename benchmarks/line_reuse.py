"""How often one dialogue line repeats across generated items (goal: none in over 1% of items).

Counts each dialogue line (as shown, names filled) once per item over ``--n`` items per seed,
and prints per seed the most frequent line's share and how many lines are in more than 1% of
items. Writes benchmarks/results/line_reuse.json.

    python benchmarks/line_reuse.py [--n 1000] [--seeds 31 77 2025] [--version v3] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from empathybench.scenarios.episode_versions import NEWEST_EPISODE_VERSION
from empathybench.scenarios.generator import generate_records


def line_counts(records: Iterable[dict[str, Any]]) -> tuple[Counter[str], int]:
    """In how many items each dialogue line appears, and the number of items."""
    counts: Counter[str] = Counter()
    n = 0
    for record in records:
        n += 1
        counts.update({turn["text"] for turn in record["dialogue"]})
    return counts, n


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--seeds", type=int, nargs="+", default=[31, 77, 2025])
    parser.add_argument("--version", default=NEWEST_EPISODE_VERSION)
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).parent / "results" / "line_reuse.json"
    )
    args = parser.parse_args()
    rows = []
    print(f"{'seed':>6} {'items':>6} {'top share':>9} {'lines > 1%':>10}  top line")
    for seed in args.seeds:
        counts, n = line_counts(generate_records(args.n, seed, template_version=args.version))
        line, top = counts.most_common(1)[0]
        over = sum(count > n / 100 for count in counts.values())
        rows.append(
            {"seed": seed, "items": n, "top_share": top / n, "top_line": line, "over_1pct": over}
        )
        print(f"{seed:6d} {n:6d} {top / n:9.3f} {over:10d}  {line[:70]}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps({"version": args.version, "rows": rows}, indent=2) + "\n", encoding="utf-8"
    )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
