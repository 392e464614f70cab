"""How much of the emotion and help keys the asked person's own lines give away, and how
much of that is memorising the templates rather than reading words that carry over.

The audit's ``asked-person`` baseline (TF-IDF + logistic regression on the lines of the
person the question names) is trained here two ways, beside the whole-prompt ``ngram``:

* **same templates**: the audit's protocol: trained on ``--train-n`` items of one seed,
  scored on ``--fresh-n`` items of each ``--seeds`` seed. Fresh items reuse the training
  items' episodes, so a person's lines are memorised with their role's emotion.
* **unseen scenes**: ``--split-n`` items of one seed split by scene family (a salted hash,
  fixed before any result was seen); trained on one half, scored on the other, both ways.
  Only words that carry over to new situations help here.

Prints a table and writes benchmarks/results/asked_person.json.

    python benchmarks/asked_person.py [--versions v2 v3 v4] [--seeds 2025 77]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from empathybench.audit.keys import emotion_key, help_key
from empathybench.audit.ngram import NgramAsked, NgramChoice
from empathybench.audit.visible import VisibleItem, visible_item
from empathybench.records import Scenario
from empathybench.scenarios.generator import generate

RESULTS = Path(__file__).resolve().parent / "results" / "asked_person.json"
SPLIT_SALT = "asked-person-split"
TRAIN_SEED = 424242


def _items(n: int, seed: int, version: str) -> list[tuple[Scenario, VisibleItem]]:
    return [(item, visible_item(item)) for item in generate(n, seed, template_version=version)]


def _score(
    train: list[tuple[Scenario, VisibleItem]], test: list[tuple[Scenario, VisibleItem]]
) -> dict[str, float]:
    """Accuracy per question and baseline; help's majority rate beside it."""
    out: dict[str, float] = {}
    for question, key, candidates in (
        ("emotion", emotion_key, None),
        ("help", help_key, ("yes", "no")),
    ):

        def views(
            items: list[tuple[Scenario, VisibleItem]], fixed: tuple[str, ...] | None = candidates
        ) -> list[VisibleItem]:
            return [v.with_candidates(fixed or v.options) for _, v in items]

        keys = [key(item) for item, _ in train]
        truth = [key(item) for item, _ in test]
        for baseline in (NgramAsked(), NgramChoice()):
            baseline.fit(views(train), keys)
            answers = baseline.predict_many(views(test))
            hits = sum(a == t for a, t in zip(answers, truth, strict=True))
            out[f"{question}/{baseline.name}"] = round(hits / len(test), 3)
        if question == "help":
            out["help/majority"] = round(max(Counter(truth).values()) / len(truth), 3)
    return out


def _half(item: Scenario) -> int:
    family = item.provenance.templates.get("family", item.setting.location_id)
    return hashlib.sha256(f"{SPLIT_SALT}:{family}".encode()).digest()[0] % 2


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--versions", nargs="+", default=["v2", "v3", "v4"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[2025, 77])
    parser.add_argument("--train-n", type=int, default=3000)
    parser.add_argument("--fresh-n", type=int, default=1000)
    parser.add_argument("--split-n", type=int, default=6000)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    for version in args.versions:
        train = _items(args.train_n, TRAIN_SEED, version)
        for seed in args.seeds:
            scores = _score(train, _items(args.fresh_n, seed, version))
            rows.append({"version": version, "protocol": f"same templates, seed {seed}", **scores})
        pool = _items(args.split_n, TRAIN_SEED + 1, version)
        for side in (0, 1):
            trained = [pair for pair in pool if _half(pair[0]) == side]
            scored = [pair for pair in pool if _half(pair[0]) != side]
            scores = _score(trained, scored)
            rows.append(
                {
                    "version": version,
                    "protocol": f"unseen scenes, trained on half {side}",
                    "train": len(trained),
                    "test": len(scored),
                    **scores,
                }
            )
        for row in rows[-len(args.seeds) - 2 :]:
            print(
                f"{row['version']}  {row['protocol']:<34} emotion asked"
                f" {row['emotion/asked-person']:.3f}"
                f" (whole prompt {row['emotion/ngram']:.3f}, chance 0.333)  help asked"
                f" {row['help/asked-person']:.3f} (whole prompt {row['help/ngram']:.3f},"
                f" majority {row['help/majority']:.3f})",
                flush=True,
            )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps(
            {
                "machine": platform.platform(),
                "python": sys.version.split()[0],
                "train_seed": TRAIN_SEED,
                "split_salt": SPLIT_SALT,
                "rows": rows,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
