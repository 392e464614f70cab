"""Give a new batch of judge labels a train/test split fixed by scenario, before anyone looks at
how a judge does on it, and write it into the package.

The split is a hash of a fixed salt and the scenario id, so it does not depend on the order of
the rows or on rows added later (a batch that grows keeps every earlier assignment). About half
the scenarios go to each side; a scenario is in one side only.

    python scripts/split_judge_labels.py /work/newdata/judge-labels-w1.jsonl \\
        src/empathybench/data/scorer/judge-labels-w1.jsonl --salt judge-labels-w1
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path


def split_of(salt: str, scenario_id: str) -> str:
    digest = hashlib.sha256(f"{salt}:{scenario_id}".encode()).digest()
    return "train" if digest[0] % 2 == 0 else "test"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("target", type=Path)
    parser.add_argument("--salt", required=True, help="Fixed per batch (its name).")
    args = parser.parse_args()
    lines = [line for line in args.source.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [json.loads(line) for line in lines]
    for row in rows:
        row["split"] = split_of(args.salt, row["scenario"]["id"])
    args.target.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    scenarios = {
        side: {r["scenario"]["id"] for r in rows if r["split"] == side}
        for side in ("train", "test")
    }
    print(
        f"{len(rows)} rows: "
        + ", ".join(
            f"{side} {sum(r['split'] == side for r in rows)} rows / {len(ids)} scenarios"
            for side, ids in scenarios.items()
        )
    )


if __name__ == "__main__":
    main()
