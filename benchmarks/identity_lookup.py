"""How much an episode's identity tells a reader, with and without the item's kind.

A lookup trained on generated items: (scene, a view of the kind) -> the emotion most often
keyed there; it answers with the item's option seen most often. Three views:

- ``scene``: the scene alone (a model reads the scene);
- ``scene + visible kind``: also the kind as far as the prompt shows it. Beliefs, crisis
  statements, story turns and group questions can be told from the text; emotion-support and
  positive-control items cannot (the same prompt form), so they count as one. A surface
  reader: the audit's ``scene-lookup`` baseline reads the form from the prompt itself;
- ``scene + hidden kind``: the recorded kind. Not a surface reader: models never see it, and
  for emotion-support and positive-control items it *is* the key's valence. The audit never
  shows baselines the kind (docs/audit.md); this is what an auditor training per kind sees.

Prints a table and writes benchmarks/results/identity_lookup_VERSION.json.

    python benchmarks/identity_lookup.py [--version v4] [--train-n 3000] [--seeds 2025 8086]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from empathybench.audit.limits import DEFAULT_TRAIN_N, DEFAULT_TRAIN_SEED
from empathybench.scenarios.generator import generate_records
from empathybench.scenarios.suites import load_suite

VIEWS = ("scene", "scene + visible kind", "scene + hidden kind")
SAME_PROMPT_FORM = frozenset({"emotion_support", "positive_control"})


def _key(record: dict[str, Any], view: str) -> tuple[str, str | None]:
    kind = record["kind"]
    if view == "scene":
        return record["setting"]["scene"], None
    if view == "scene + visible kind":
        return record["setting"]["scene"], "one person" if kind in SAME_PROMPT_FORM else kind
    return record["setting"]["scene"], kind


def accuracy(
    train: list[dict[str, Any]], test: list[dict[str, Any]], view: str
) -> dict[str, float]:
    table: dict[tuple[str, str | None], Counter[str]] = defaultdict(Counter)
    for record in train:
        table[_key(record, view)][record["emotion"]["name"]] += 1
    hits: dict[str, list[bool]] = defaultdict(list)
    for record in test:
        seen = table.get(_key(record, view), Counter())
        guess = max(record["options"], key=lambda option: seen.get(option, 0))
        hits[record["kind"]].append(guess == record["emotion"]["name"])
    every = [hit for kind_hits in hits.values() for hit in kind_hits]
    result = {"overall": round(sum(every) / len(every), 3)}
    result |= {kind: round(sum(h) / len(h), 3) for kind, h in sorted(hits.items())}
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--version", default="v4")
    parser.add_argument("--train-n", type=int, default=DEFAULT_TRAIN_N)
    parser.add_argument("--seeds", type=int, nargs="+", default=[2025, 8086, 5, 77, 31415])
    parser.add_argument("--suite", default="standard-v4")
    args = parser.parse_args()
    train = list(generate_records(args.train_n, DEFAULT_TRAIN_SEED, template_version=args.version))
    sets = {
        f"fresh {seed}": list(generate_records(1000, seed, template_version=args.version))
        for seed in args.seeds
    }
    if args.suite:
        suite = load_suite(args.suite)
        sets[args.suite] = [s.model_dump(mode="json") for s in suite.scenarios]
    rows = []
    print(f"{'set':14} {'lookup':22} {'overall':>8}  per kind")
    for name, test in sets.items():
        for view in VIEWS:
            found = accuracy(train, test, view)
            rows.append({"set": name, "lookup": view, **found})
            kinds = {k: v for k, v in found.items() if k != "overall"}
            print(f"{name:14} {view:22} {found['overall']:>8.3f}  {kinds}")
    out = Path(__file__).parent / "results" / f"identity_lookup_{args.version}.json"
    out.write_text(
        json.dumps(
            {
                "version": args.version,
                "train_n": args.train_n,
                "train_seed": DEFAULT_TRAIN_SEED,
                "rows": rows,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
