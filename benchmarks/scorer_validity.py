"""Does the empathy scorer beat reply length? Cross-validated and held-out Spearman.

Compares, per target (cognitive, emotional, behavioral, empathy = their mean), Spearman with
the labels (bootstrap 95% CIs over messages) of three recipes, each trained here on the same
rows, and the trivial baselines:

- ``signals-v2 ridge``: ``empathy-v3``'s recipe (also ``empathy-v4``'s, the default, trained on
  v4 labels: see docs/scorer.md): embedding + signals-v2, a linear head
  fitted in closed form (ridge, penalty 3000 on standardised features);
- ``signals-v1 mlp``: the previous default's recipe (``empathy-v2``): embedding + the 19
  signals-v1, the seed's MLP and AdamW settings;
- ``seed``: the seed study's method (embedding alone, MLP);
- ``length`` and ``lexicon`` (no training).

On empathy-labels-v3 (v2 plus batch w2, a second independent labeller, split by message with
a fixed salt before any result was seen):
1. 5-fold cross-validation grouped by message on the train split (out-of-fold predictions
   pooled): all rows, v2-* rows, w2 rows;
2. the test split (messages never trained or tuned on), each recipe trained on the whole
   train split: v2's test messages and w2's test half, plus the shipped ``empathy-v2`` head
   as it is (trained on v2 only);
3. loops: SmolLM2's 640-token therapy loops (tests/scorer/fixtures) against the bundled
   therapy references for the same questions, scored by the shipped heads.

Every reply, message and stock phrase is encoded once (``--cache FILE`` keeps the
embeddings between runs). Prints tables and writes benchmarks/results/scorer_validity.json.

    python benchmarks/scorer_validity.py [--cache /tmp/emb.npz] [--resamples 1000] [--save-heads]
    python benchmarks/scorer_validity.py --loops-only   # the loop check of the later heads

``--save-heads`` writes the default recipe's head trained on the whole train split as the
bundled ``empathy-v3`` (the same as ``empathybench scorer train --method signals --solver
ridge --hidden-size 0`` on empathy-labels-v3, on cached embeddings).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "scorer_validity.json"
LOOPS = ROOT / "tests" / "scorer" / "fixtures" / "smollm2-therapy-loops.jsonl"


class CachedEncoder:
    """The bundled encoder's embeddings, computed once per distinct text."""

    def __init__(self, texts: Sequence[str], cache: Path | None) -> None:
        from empathybench.scorer.encoder import load_encoder

        self.rows: dict[str, np.ndarray] = {}
        if cache is not None and cache.is_file():
            stored = np.load(cache)
            self.rows = dict(zip(stored["keys"].tolist(), stored["rows"], strict=True))
        missing = sorted({t for t in texts if self._key(t) not in self.rows})
        if missing:
            encoder = load_encoder()
            for text, row in zip(missing, encoder.encode(missing), strict=True):
                self.rows[self._key(text)] = row
            if cache is not None:
                np.savez(
                    cache, keys=np.array(list(self.rows)), rows=np.stack(list(self.rows.values()))
                )
        self.dimension = len(next(iter(self.rows.values())))

    @staticmethod
    def _key(text: str) -> str:
        return hashlib.sha256(text.encode()).hexdigest()

    def encode(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        return np.stack([self.rows[self._key(t)] for t in texts]).astype(np.float32)


RECIPES = {
    "signals-v2 ridge": ("signals", "v2", 0, "ridge"),
    "signals-v1 mlp": ("signals", "v1", 256, "adamw"),
    "seed": ("seed", "", 256, "adamw"),
}
"""name → (method, signals version, hidden size, solver); the first is the shipped default."""
DESCRIPTIONS = {
    "signals-v2 ridge": "embedding + signals-v2, ridge (empathy-v3, the default)",
    "signals-v1 mlp": "embedding + signals-v1, MLP (empathy-v2's recipe)",
    "seed": "seed method: embedding alone, MLP",
    "shipped empathy-v2": "the previous default head as shipped (v2 labels)",
}


def signal_names(recipe: str) -> list[str]:
    from empathybench.scorer.signals import SIGNAL_NAMES, SIGNAL_NAMES_V1

    version = RECIPES[recipe][1]
    return list(SIGNAL_NAMES if version == "v2" else SIGNAL_NAMES_V1 if version == "v1" else [])


def train(recipe: str, encoder: CachedEncoder, records: list[Any]) -> Any:
    from empathybench.scorer.empathy_scorer import head_config, training_matrix
    from empathybench.scorer.heads import TrainingSettings, train_head

    method, _, hidden, solver = RECIPES[recipe]
    names = signal_names(recipe)
    texts = [r.response for r in records]
    x, y = training_matrix(
        method, encoder, texts, records, encoder.encode(texts), signal_names=names
    )
    settings = TrainingSettings(solver=solver)  # type: ignore[arg-type]
    config = head_config(method, encoder, "minilm", settings, hidden, 0.1, {}, signal_names=names)
    return train_head(config, x, y)


def predict(head: Any, encoder: CachedEncoder, records: list[Any]) -> np.ndarray:
    from empathybench.scorer.agreement import with_mean
    from empathybench.scorer.empathy_scorer import EmpathyScorer

    scorer = EmpathyScorer(encoder, head)
    return with_mean(
        scorer.predict([r.response for r in records], messages=[r.prompt for r in records])
    )


def fold_of(prompt_id: str, folds: int) -> int:
    return int(hashlib.sha256(f"cv:{prompt_id}".encode()).hexdigest(), 16) % folds


def out_of_fold(encoder: CachedEncoder, records: list[Any], groups: list[Any]) -> dict[str, Any]:
    predictions = {m: np.zeros((len(records), 4), np.float32) for m in RECIPES}
    for group in sorted(set(groups)):
        held = [i for i, g in enumerate(groups) if g == group]
        kept = [r for r, g in zip(records, groups, strict=True) if g != group]
        for recipe in predictions:
            head = train(recipe, encoder, kept)
            predictions[recipe][held] = predict(head, encoder, [records[i] for i in held])
    return predictions


def report(records: list[Any], predictions: dict[str, Any], selection: str, args: Any) -> Any:
    from empathybench.scorer.agreement import agreement_report

    table = agreement_report(
        records,
        {name: (DESCRIPTIONS[name], values) for name, values in predictions.items()},
        labels="empathy-labels-v3",
        selection=selection,
        resamples=args.resamples,
    )
    print(f"\n{selection}: {table.n} replies to {table.messages} messages")
    print(
        f"{'':22s}"
        + "".join(f"{t:>24s}" for t in ("cognitive", "emotional", "behavioral", "empathy"))
    )
    for row in table.rows:
        cells = "".join(
            f"{e.rho:>8.2f} [{e.low:.2f}, {e.high:.2f}]" if e.rho is not None else f"{'-':>24s}"
            for e in row.spearman.values()
        )
        print(f"{row.name:22s}{cells}")
    return table.model_dump(mode="json")


def subset(
    records: list[Any], predictions: dict[str, Any], keep: list[bool]
) -> tuple[list[Any], dict[str, Any]]:
    index = [i for i, k in enumerate(keep) if k]
    return [records[i] for i in index], {m: v[index] for m, v in predictions.items()}


def said_once(text: str) -> str:
    """``text`` with every sentence after its first occurrence left out (the labelling
    guide's "judge what is said once", tried as a way to score loops)."""
    from empathybench.scorer.signals import _sentences, words

    seen: set[str] = set()
    kept = []
    for sentence in _sentences(text):
        key = " ".join(words(sentence)).lower()
        if key not in seen:
            seen.add(key)
            kept.append(sentence)
    return " ".join(kept)


def loops(encoder_heads: dict[str, Any], transform: Any = None) -> dict[str, Any]:
    """Loops against references per head; ``transform`` (if given) applied to both texts."""
    from empathybench.therapy.questions import load_questions

    references = {q.id: q.reference for q in load_questions("sample-v1").questions}
    rows = [json.loads(line) for line in LOOPS.read_text().splitlines() if line.strip()]
    change = transform or (lambda text: text)
    result = {}
    for name, scorer in encoder_heads.items():
        loop = scorer.score([change(r["text"]) for r in rows])
        good = scorer.score([change(references[r["question_id"]] or "") for r in rows])
        wins = sum(g.empathy > x.empathy for g, x in zip(good, loop, strict=True))
        loop_mean = float(np.mean([s.empathy for s in loop]))
        reference_mean = float(np.mean([s.empathy for s in good]))
        result[name] = {
            "loop_mean": round(loop_mean, 3),
            "reference_mean": round(reference_mean, 3),
            "gap": round(reference_mean - loop_mean, 3),
            "reference_above_loop": f"{wins}/{len(rows)}",
        }
        print(
            f"{name:22s} loops {loop_mean:.2f}  references {reference_mean:.2f}  gap "
            f"{reference_mean - loop_mean:.3f}  reference above its loop {wins}/{len(rows)}"
        )
    return result


def loops_only() -> None:
    """The loop check alone for the later heads, as is and with repeats said once."""
    from empathybench.scorer.empathy_scorer import bundled_head_dir, load_empathy_scorer

    heads = {
        name: load_empathy_scorer(bundled_head_dir(name))
        for name in ("empathy-v4", "empathy-v5", "empathy-v6")
    }
    print("loops vs references, texts as they are:")
    result = {"as_is": loops(heads)}
    print("loops vs references, each sentence said once:")
    result["said_once"] = loops(heads, said_once)
    out = RESULTS.with_name("scorer_loops.json")
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", type=Path, help="Keep embeddings in this .npz file.")
    parser.add_argument(
        "--loops-only",
        action="store_true",
        help="Only the loop check of empathy-v4/v5/v6 (as is and said once): scorer_loops.json",
    )
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument(
        "--save-heads",
        action="store_true",
        help="Save the default recipe trained on the whole train split as empathy-v3.",
    )
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)  # small heads: threads only add overhead on a busy machine
    from empathybench.scorer.empathy_data import load_empathy_labels
    from empathybench.scorer.empathy_scorer import (
        BUNDLED_HEADS,
        bundled_head_dir,
        load_empathy_scorer,
    )
    from empathybench.scorer.signals import STOCK_PHRASES

    if args.loops_only:
        loops_only()
        return
    started = time.perf_counter()
    labels = load_empathy_labels("empathy-labels-v3")
    texts = [t for r in labels.records for t in (r.response, r.prompt)] + list(STOCK_PHRASES)
    encoder = CachedEncoder(texts, args.cache)
    train_part, test_part = labels.part("train"), labels.part("test")
    result: dict[str, Any] = {"labels": labels.name, "sha256": labels.sha256}

    def batch_of(record: Any) -> str:
        return "w2" if record.batch == "w2" else "v2" if record.batch != "v1" else "v1"

    cv = out_of_fold(encoder, train_part, [fold_of(r.prompt_id, args.folds) for r in train_part])
    title = f"{args.folds}-fold CV by message, train split"
    result["cv_by_message"] = report(train_part, cv, title, args)
    for name, keep in (("v2", "v2-* rows only"), ("w2", "w2 rows only")):
        chosen = [batch_of(r) == name for r in train_part]
        result[f"cv_by_message_{name}"] = report(
            *subset(train_part, cv, chosen), f"same, {keep}", args
        )

    held: dict[str, Any] = {}
    for recipe in RECIPES:
        head = train(recipe, encoder, train_part)
        held[recipe] = predict(head, encoder, test_part)
        if args.save_heads and recipe == next(iter(RECIPES)):
            from empathybench.scorer.empathy_scorer import fit_empathy_head
            from empathybench.scorer.heads import TrainingSettings

            shipped = fit_empathy_head(
                labels,
                encoder,
                method="signals",
                encoder_name="minilm",
                settings=TrainingSettings(solver="ridge"),
                hidden_size=0,
            )
            shipped.save(bundled_head_dir("empathy-v3"))  # this script's labels are v3's
            print(f"saved {bundled_head_dir('empathy-v3')}")
    previous = load_empathy_scorer(bundled_head_dir("empathy-v2"))
    previous.encoder = encoder
    held["shipped empathy-v2"] = predict(previous.head, encoder, test_part)
    for name, keep in (
        ("test_w2", "w2 test half (second labeller; never trained or tuned on)"),
        ("test_v2", "v2 test messages, v2-* rows"),
    ):
        chosen = [batch_of(r) == name[-2:] for r in test_part]
        result[name] = report(*subset(test_part, held, chosen), f"test split, {keep}", args)
    result["test"] = report(test_part, held, "test split, all rows", args)
    print("\nloops (SmolLM2 therapy answers) vs the therapy references, shipped heads:")
    heads = {"signals (empathy-v2)": previous}
    heads["signals (empathy-v2)"] = load_empathy_scorer(bundled_head_dir("empathy-v2"))
    for method, head_name in BUNDLED_HEADS.items():
        if bundled_head_dir(head_name).is_dir():
            heads[f"{method} ({head_name})"] = load_empathy_scorer(method=method)
    result["loops"] = loops(heads)
    result["wall_s"] = round(time.perf_counter() - started, 1)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nwrote {RESULTS} ({result['wall_s']} s)")


if __name__ == "__main__":
    main()
