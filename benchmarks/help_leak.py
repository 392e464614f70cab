"""Where the help answer leaks: per scene line and per episode, how one-sided the help key is.

Trains the audit's cue-line memory (a dialogue line, names masked → its help keys) on one
generated set and reads another, per kind: for each line, the yes/no counts it was seen
with in training and how often it decided a correct vote on the evaluation set. A line seen
with one key only is a lookup; the goal is that every line appears with both keys.

    python benchmarks/help_leak.py [--train-n 3000] [--train-seed 11] [--eval-n 1000]
                                   [--eval-seed 12] [--top 15] [--version v3] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from pathlib import Path

from empathybench.audit.keys import help_key
from empathybench.audit.visible import visible_item
from empathybench.records import Scenario
from empathybench.scenarios.episode_versions import NEWEST_EPISODE_VERSION
from empathybench.scenarios.generator import generate


def line_keys(items: list[Scenario], kind: str | None = None) -> dict[str, Counter[str]]:
    seen: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for item in items:
        if kind and item.kind != kind:
            continue
        view = visible_item(item)
        for text in {view.masked(line.text) for line in view.lines}:
            seen[text][help_key(item)] += 1
    return seen


def one_sided_share(seen: dict[str, Counter[str]], min_count: int = 3) -> float:
    """Share of lines seen at least ``min_count`` times that were seen with one key only."""
    counted = [c for c in seen.values() if sum(c.values()) >= min_count]
    return sum(len(c) == 1 for c in counted) / len(counted) if counted else 0.0


def top_ngrams(items: list[Scenario], kind: str, top: int) -> list[dict[str, object]]:
    """The word n-grams with the largest "yes" and "no" weights in a help classifier trained
    on one kind alone (the audit's n-gram settings: TF-IDF 1-2 grams, names masked)."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    chosen = [item for item in items if item.kind == kind]
    keys = [help_key(item) for item in chosen]
    if len(set(keys)) < 2:
        return []
    vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True)
    features = vectorizer.fit_transform([visible_item(item).masked_prompt for item in chosen])
    model = LogisticRegression(C=10, solver="newton-cg", max_iter=1000).fit(features, keys)
    names = vectorizer.get_feature_names_out()
    weights = model.coef_[0]  # positive: towards the second class ("yes")
    order = weights.argsort()
    picked = [*order[:top], *order[::-1][:top]]
    return [{"ngram": str(names[i]), "weight": round(float(weights[i]), 2)} for i in picked]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--train-n", type=int, default=3000)
    parser.add_argument("--train-seed", type=int, default=11)
    parser.add_argument("--eval-n", type=int, default=1000)
    parser.add_argument("--eval-seed", type=int, default=12)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--version", default=NEWEST_EPISODE_VERSION)
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).parent / "results" / "help_leak.json"
    )
    args = parser.parse_args()
    train = list(generate(args.train_n, args.train_seed, template_version=args.version))
    evaluate = list(generate(args.eval_n, args.eval_seed, template_version=args.version))
    report: dict[str, object] = {}
    print(f"{'kind':18} {'lines':>6} {'one-sided':>9} {'episodes one-key':>16}")
    for kind in sorted({item.kind for item in evaluate}):
        seen = line_keys(train, kind)
        decided: Counter[str] = Counter()
        for item in evaluate:
            if item.kind != kind:
                continue
            view = visible_item(item)
            for text in {view.masked(line.text) for line in view.lines}:
                counts = seen.get(text)
                if counts and len(counts) == 1 and help_key(item) in counts:
                    decided[text] += 1
        episodes: defaultdict[str, Counter[str]] = defaultdict(Counter)
        for item in train:
            if item.kind == kind:
                episodes[item.setting.location_id][help_key(item)] += 1
        one_key = sum(len(c) == 1 for c in episodes.values())
        print(f"{kind:18} {len(seen):6d} {one_sided_share(seen):9.2f} {one_key:7d}/{len(episodes)}")
        top = [
            {"line": text, "train": dict(seen[text]), "decided_eval": n}
            for text, n in decided.most_common(args.top)
        ]
        report[kind] = {
            "lines": len(seen),
            "one_sided_share": round(one_sided_share(seen), 3),
            "episodes_one_key": one_key,
            "episodes": len(episodes),
            "episode_keys": {e: dict(c) for e, c in sorted(episodes.items())},
            "top_one_sided_lines": top,
            "ngram_weights": top_ngrams(train, kind, args.top),
        }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
