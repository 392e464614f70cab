"""Does the empathy scorer beat reply length? Cross-validated and held-out Spearman.

Compares, per target (cognitive, emotional, behavioral, empathy = their mean), Spearman with
the labels (bootstrap 95% CIs over messages) of:

- ``signals``: the default method (embedding + reply signals), trained here;
- ``seed``: the seed study's method (embedding alone), trained here on the same rows;
- ``shipped empathy-v1``: the earlier shipped head (seed method, v1 labels), held-out only;
- ``length`` and ``lexicon``: the trivial baselines (no training).

On empathy-labels-v2:
1. 5-fold cross-validation grouped by message on the train split (out-of-fold predictions
   pooled), on all rows and on the peer-support rows (batches v2-*);
2. leave-one-writing-batch-out on the train split (v1 / v2-a / v2-b / v2-c);
3. the test split (messages never trained or tuned on), all rows and v2-* rows, with each
   method trained on the whole train split;
4. loops: SmolLM2's 640-token therapy loops (tests/scorer/fixtures) against the bundled
   therapy references for the same questions, scored by the shipped heads.

Every reply, message and stock phrase is encoded once (``--cache FILE`` keeps the
embeddings between runs). Prints tables and writes benchmarks/results/scorer_validity.json.

    python benchmarks/scorer_validity.py [--cache /tmp/emb.npz] [--resamples 1000] [--save-heads]

``--save-heads`` writes the two held-out heads as the bundled ``empathy-v2`` and
``empathy-seed-v2`` (the same training as ``empathybench scorer train --method signals|seed``,
on cached embeddings).
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


def train(method: str, encoder: CachedEncoder, records: list[Any]) -> Any:
    from empathybench.scorer.empathy_scorer import head_config, training_matrix
    from empathybench.scorer.heads import TrainingSettings, train_head

    texts = [r.response for r in records]
    x, y = training_matrix(method, encoder, texts, records, encoder.encode(texts))
    config = head_config(method, encoder, "minilm", TrainingSettings(), 256, 0.1, {})
    return train_head(config, x, y)


def predict(method: str, head: Any, encoder: CachedEncoder, records: list[Any]) -> np.ndarray:
    from empathybench.scorer.agreement import with_mean
    from empathybench.scorer.empathy_scorer import design_matrix

    texts = [r.response for r in records]
    messages = encoder.encode([r.prompt for r in records])
    x = design_matrix(method, encoder, texts, encoder.encode(texts), messages)
    return with_mean(head.predict(x))


def fold_of(prompt_id: str, folds: int) -> int:
    return int(hashlib.sha256(f"cv:{prompt_id}".encode()).hexdigest(), 16) % folds


def out_of_fold(encoder: CachedEncoder, records: list[Any], groups: list[Any]) -> dict[str, Any]:
    predictions = {m: np.zeros((len(records), 4), np.float32) for m in ("signals", "seed")}
    for group in sorted(set(groups)):
        held = [i for i, g in enumerate(groups) if g == group]
        kept = [r for r, g in zip(records, groups, strict=True) if g != group]
        for method in predictions:
            head = train(method, encoder, kept)
            predictions[method][held] = predict(method, head, encoder, [records[i] for i in held])
    return predictions


def report(records: list[Any], predictions: dict[str, Any], selection: str, args: Any) -> Any:
    from empathybench.scorer.agreement import agreement_report

    descriptions = {
        "signals": "embedding + reply signals (default)",
        "seed": "seed method: embedding alone",
        "shipped empathy-v1": "seed method trained on v1 labels (earlier default)",
    }
    table = agreement_report(
        records,
        {name: (descriptions[name], values) for name, values in predictions.items()},
        labels="empathy-labels-v2",
        selection=selection,
        resamples=args.resamples,
    )
    print(f"\n{selection}: {table.n} replies to {table.messages} messages")
    print(
        f"{'':20s}"
        + "".join(f"{t:>24s}" for t in ("cognitive", "emotional", "behavioral", "empathy"))
    )
    for row in table.rows:
        cells = "".join(
            f"{e.rho:>8.2f} [{e.low:.2f}, {e.high:.2f}]" if e.rho is not None else f"{'-':>24s}"
            for e in row.spearman.values()
        )
        print(f"{row.name:20s}{cells}")
    return table.model_dump(mode="json")


def subset(
    records: list[Any], predictions: dict[str, Any], keep: list[bool]
) -> tuple[list[Any], dict[str, Any]]:
    index = [i for i, k in enumerate(keep) if k]
    return [records[i] for i in index], {m: v[index] for m, v in predictions.items()}


def loops(encoder_heads: dict[str, Any]) -> dict[str, Any]:
    from empathybench.therapy.questions import load_questions

    references = {q.id: q.reference for q in load_questions("sample-v1").questions}
    rows = [json.loads(line) for line in LOOPS.read_text().splitlines() if line.strip()]
    result = {}
    for name, scorer in encoder_heads.items():
        loop = scorer.score([r["text"] for r in rows])
        good = scorer.score([references[r["question_id"]] or "" for r in rows])
        wins = sum(g.empathy > x.empathy for g, x in zip(good, loop, strict=True))
        result[name] = {
            "loop_mean": round(float(np.mean([s.empathy for s in loop])), 3),
            "reference_mean": round(float(np.mean([s.empathy for s in good])), 3),
            "reference_above_loop": f"{wins}/{len(rows)}",
        }
        print(
            f"{name:22s} loops {result[name]['loop_mean']:.2f}  references "
            f"{result[name]['reference_mean']:.2f}  reference above its loop {wins}/{len(rows)}"
        )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", type=Path, help="Keep embeddings in this .npz file.")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument(
        "--save-heads",
        action="store_true",
        help="Save the two heads trained on the whole train split as the bundled heads.",
    )
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)  # small heads: threads only add overhead on a busy machine
    from empathybench.scorer.agreement import with_mean
    from empathybench.scorer.empathy_data import load_empathy_labels
    from empathybench.scorer.empathy_scorer import (
        BUNDLED_HEADS,
        EmpathyScorer,
        bundled_head_dir,
        fit_empathy_head,
        load_empathy_scorer,
    )
    from empathybench.scorer.signals import STOCK_PHRASES

    started = time.perf_counter()
    labels = load_empathy_labels("empathy-labels-v2")
    texts = [t for r in labels.records for t in (r.response, r.prompt)] + list(STOCK_PHRASES)
    encoder = CachedEncoder(texts, args.cache)
    train_part, test_part = labels.part("train"), labels.part("test")
    is_v2 = [r.batch != "v1" for r in train_part]
    result: dict[str, Any] = {"labels": labels.name, "sha256": labels.sha256}

    cv = out_of_fold(encoder, train_part, [fold_of(r.prompt_id, args.folds) for r in train_part])
    result["cv_by_message"] = report(
        train_part, cv, f"{args.folds}-fold CV by message, train split", args
    )
    result["cv_by_message_v2"] = report(
        *subset(train_part, cv, is_v2), "same, v2-* rows only", args
    )
    batches = [(r.batch or "v1").replace("v2-d", "v2-c") for r in train_part]
    by_batch = out_of_fold(encoder, train_part, batches)
    result["cv_by_batch"] = report(
        train_part, by_batch, "leave-one-writing-batch-out, train split", args
    )
    result["cv_by_batch_v2"] = report(
        *subset(train_part, by_batch, is_v2), "same, v2-* rows only", args
    )

    held: dict[str, Any] = {}
    for method, name in BUNDLED_HEADS.items():
        head = fit_empathy_head(labels, encoder, method=method, encoder_name="minilm")
        held[method] = with_mean(
            EmpathyScorer(encoder, head).predict(
                [r.response for r in test_part], messages=[r.prompt for r in test_part]
            )
        )
        if args.save_heads:
            head.save(bundled_head_dir(name))
            print(f"saved {bundled_head_dir(name)}")
    shipped_v1 = load_empathy_scorer(bundled_head_dir("empathy-v1"))
    held["shipped empathy-v1"] = with_mean(
        shipped_v1.head.predict(encoder.encode([r.response for r in test_part]))
    )
    result["test"] = report(test_part, held, "test split (never tuned on)", args)
    result["test_v2"] = report(
        *subset(test_part, held, [r.batch != "v1" for r in test_part]),
        "test split, v2-* rows",
        args,
    )
    print("\nloops (SmolLM2 therapy answers) vs the therapy references, shipped heads:")
    heads = {"seed (empathy-v1)": shipped_v1}
    for method, head in BUNDLED_HEADS.items():
        if bundled_head_dir(head).is_dir():
            heads[f"{method} ({head})"] = load_empathy_scorer(method=method)
    result["loops"] = loops(heads)
    result["wall_s"] = round(time.perf_counter() - started, 1)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nwrote {RESULTS} ({result['wall_s']} s)")


if __name__ == "__main__":
    main()
