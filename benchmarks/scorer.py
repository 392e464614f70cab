"""Throughput, training time and memory of the offline empathy scorer and offline judge.

Scoring: ``score_responses`` over N replies from the bundled labelled set (repeated to N),
at several batch sizes, after one warm-up batch; the offline judge over the bundled labelled
benchmark responses. Training: the empathy head (plain and perturbation-augmented) and the
offline judge head with the default settings (50 epochs), embeddings included. Encoder load
time is measured in a fresh child process. CPU seconds and the load average are recorded
because other processes on a small machine change wall times a lot. Prints a table and writes
benchmarks/results/scorer.json.

Encoder backends (issue 18), side by side in one process, interleaved over --rounds on the
distinct labelled replies (no repeats, so the embedding cache does not help them):
sentence-transformers' ``encode`` on the bundled model (the baseline), our encoder on torch,
our encoder on ONNX Runtime, on torch with bfloat16 autocast (opt-in), and the ONNX encoder
again on the same texts (all cached); per
stage, the tokenizer alone. Then the bundled empathy head's scores from the ONNX embeddings
against the torch ones (max |Δ| on the 1–3 scale) and the cosine of the two embeddings.

    python benchmarks/scorer.py [--n 2000] [--batch-sizes 16 64 128] [--threads 2]
    python benchmarks/scorer.py --backends-only [--rounds 3] [--n 2000]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results" / "scorer.json"
LOAD_CHILD = """
import time
t0 = time.perf_counter()
from empathybench.scorer import load_empathy_scorer
load_empathy_scorer()
print(time.perf_counter() - t0)
"""


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed(action: Any) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), cpu_seconds()
    result = action()
    return result, time.perf_counter() - wall, cpu_seconds() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="Replies to score per batch size.")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[16, 64, 128])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--skip-training", action="store_true")
    parser.add_argument("--backends-only", action="store_true")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    if args.backends_only:
        compare_backends(args.rounds, args.n)
        return
    from empathybench.judging.offline_data import load_judge_labels
    from empathybench.judging.offline_judge import load_offline_judge, train_offline_judge
    from empathybench.scorer.empathy_data import load_empathy_labels
    from empathybench.scorer.empathy_scorer import (
        load_empathy_scorer,
        score_responses,
        train_empathy_scorer,
    )
    from empathybench.scorer.heads import TrainingSettings

    load_s = float(
        subprocess.run(
            [sys.executable, "-c", LOAD_CHILD], check=True, capture_output=True, text=True
        ).stdout.split()[-1]
    )
    labels = load_empathy_labels()
    replies = [r.response for r in labels.records]
    texts = (replies * (args.n // len(replies) + 1))[: args.n]
    words = sum(len(t.split()) for t in texts) / len(texts)
    scorer = load_empathy_scorer()
    score_responses(texts[:64], scorer=scorer)  # warm-up
    rows: list[dict[str, Any]] = []
    for batch_size in args.batch_sizes:
        _, wall, cpu = timed(
            lambda b=batch_size: score_responses(texts, scorer=scorer, batch_size=b)
        )
        rows.append(
            {
                "what": f"score_responses, batch {batch_size}",
                "items": len(texts),
                "wall_s": round(wall, 2),
                "cpu_s": round(cpu, 2),
                "per_s": round(len(texts) / wall, 1),
            }
        )
    judge_labels = load_judge_labels()
    items = [(r.scenario, r.response) for r in judge_labels.records]
    judge = load_offline_judge()
    judge.judge(items[:32], run_id="warm-up")
    _, wall, cpu = timed(lambda: judge.judge(items, run_id="bench"))
    rows.append(
        {
            "what": "offline judge (reply + context)",
            "items": len(items),
            "wall_s": round(wall, 2),
            "cpu_s": round(cpu, 2),
            "per_s": round(len(items) / wall, 1),
        }
    )
    if not args.skip_training:
        train_split = [r for r in judge_labels.records if r.split == "train"]
        for name, action in (
            ("train empathy head (50 epochs)", lambda: train_empathy_scorer(labels)),
            (
                "train empathy head, augmented ×8",
                lambda: train_empathy_scorer(labels, settings=TrainingSettings(augment=True)),
            ),
            (
                "train offline judge head (50 epochs)",
                lambda: train_offline_judge(train_split, data={"name": "bench"}),
            ),
        ):
            _, wall, cpu = timed(action)
            rows.append(
                {"what": name, "items": None, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2)}
            )
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"encoder + head load (fresh process, imports included): {load_s:.2f} s")
    print(f"mean reply length: {words:.0f} words; torch threads: {args.threads}")
    print(f"{'what':42} {'items':>6} {'wall s':>8} {'cpu s':>8} {'per s':>8}")
    for row in rows:
        print(
            f"{row['what']:42} {row['items'] or '':>6} {row['wall_s']:>8} {row['cpu_s']:>8} "
            f"{row.get('per_s', ''):>8}"
        )
    print(f"peak RSS: {peak_mb:.0f} MB; load average: {os.getloadavg()[0]:.2f}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "load_s": round(load_s, 2),
                "mean_words": round(words, 1),
                "threads": args.threads,
                "rows": rows,
                "peak_rss_mb": round(peak_mb),
                "load_average_1m": round(os.getloadavg()[0], 2),
                "cpu_count": os.cpu_count(),
                "python": platform.python_version(),
                "torch": torch.__version__,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {RESULTS}")


def compare_backends(rounds: int, limit: int) -> None:
    import statistics

    import numpy as np
    from sentence_transformers import SentenceTransformer

    from empathybench.scorer.empathy_data import load_empathy_labels
    from empathybench.scorer.empathy_scorer import EmpathyScorer, load_empathy_scorer
    from empathybench.scorer.encoder import TextEncoder, bundled_encoder_dir

    texts = sorted({r.response for r in load_empathy_labels().records})[:limit]
    baseline = SentenceTransformer(str(bundled_encoder_dir()), device="cpu")
    torch_encoder = TextEncoder(backend="torch")
    onnx_encoder = TextEncoder(backend="onnx")
    half_encoder = TextEncoder(backend="torch-bf16")
    half_one_batch = TextEncoder(backend="torch-bf16")
    half_one_batch.workers = 1  # the same backend with one batch in flight, side by side
    head = load_empathy_scorer().head

    def cold(encoder: TextEncoder) -> Any:
        encoder.clear_cache()
        return encoder.encode(texts)

    systems: dict[str, Any] = {
        "sentence-transformers encode": lambda: baseline.encode(texts, batch_size=64),
        "empathybench, torch": lambda: cold(torch_encoder),
        "empathybench, onnx": lambda: cold(onnx_encoder),
        "empathybench, torch-bf16 (opt-in)": lambda: cold(half_encoder),
        "  torch-bf16, one batch in flight": lambda: cold(half_one_batch),
        "empathybench, onnx, cached": lambda: onnx_encoder.encode(texts),
        "  stage: tokenizer only": lambda: onnx_encoder._tokenizer(
            texts, truncation=True, max_length=256
        ),
    }
    for action in systems.values():  # warm-up (first-use costs, the cache for "cached")
        action()
    walls: dict[str, list[float]] = {name: [] for name in systems}
    for _ in range(rounds):
        for name, action in systems.items():
            walls[name].append(timed(action)[1])
    base = statistics.median(walls["sentence-transformers encode"])
    rows = []
    print(f"{len(texts)} distinct replies; median of {rounds} interleaved rounds")
    print(f"{'system':32} {'wall s':>8} {'texts/s':>9} {'vs s-t':>8}")
    for name, values in walls.items():
        wall = statistics.median(values)
        ratio = base / wall
        rows.append(
            {
                "system": name,
                "wall_s": round(wall, 3),
                "rounds_s": [round(v, 3) for v in values],
                "vs_sentence_transformers": ratio,
            }
        )
        print(f"{name:32} {wall:>8.3f} {len(texts) / wall:>9.1f} {ratio:>7.2f}x")
    a, b = cold(onnx_encoder), cold(torch_encoder)
    cosine = (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    reference = baseline.encode(texts, batch_size=64)
    cosine_st = (a * reference).sum(axis=1) / (
        np.linalg.norm(a, axis=1) * np.linalg.norm(reference, axis=1)
    )
    # The shipped scorer's whole path (embedding and reply signals) on each backend.
    onnx_encoder.clear_cache()
    torch_encoder.clear_cache()
    half_encoder.clear_cache()
    on_onnx = EmpathyScorer(encoder=onnx_encoder, head=head).predict(texts)
    on_torch = EmpathyScorer(encoder=torch_encoder, head=head).predict(texts)
    on_half = EmpathyScorer(encoder=half_encoder, head=head).predict(texts)
    delta = float(np.abs(on_onnx - on_torch).max())
    delta_half = float(np.abs(on_half - on_torch).max())
    print(
        f"cosine onnx vs torch: min {cosine.min():.6f}; onnx vs sentence-transformers: min "
        f"{cosine_st.min():.6f}; empathy head scores max |Δ| (1–3 scale): onnx {delta:.5f}, "
        f"torch-bf16 {delta_half:.5f}"
    )
    out = RESULTS.with_name("scorer_backends.json")
    out.write_text(
        json.dumps(
            {
                "texts": len(texts),
                "rounds": rounds,
                "rows": rows,
                "min_cosine_onnx_torch": float(cosine.min()),
                "min_cosine_onnx_sentence_transformers": float(cosine_st.min()),
                "max_abs_score_delta": delta,
                "max_abs_score_delta_torch_bf16": delta_half,
                "load_average_1m": round(os.getloadavg()[0], 2),
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
