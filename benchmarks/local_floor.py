"""How fast the main job's answers can be on this machine: the matrix-product floor per dtype.

The main job as measured here (SmolLM2-135M on standard-v5, the default then, guided) runs its
prompts through the model as about 38,400 row-tokens of prefill after the shared system prefix
(padding included) and about 6,900 row-tokens of answer fields and reply (counted by timing
every forward of a ``--no-cache`` run); nearly all of its time is the model's matrix
products. This script times ``torch.nn.functional.linear`` at the model's own shapes (hidden
576, MLP 1536, key/value 192, vocabulary 49,152) in float32 and bfloat16, at the row counts the
engine uses (one prompt's rows in a prefill, a batch of rows in a decoding step), and prints
the seconds those products alone need for the main job's token counts (``--prompt-tokens``,
``--output-tokens``, ``--prefill-rows``, ``--decode-rows``): attention, loading and the
judge come on top.

It also checks, per dtype, whether a row's result depends on how many rows share the product
(``row_invariant``): a local engine whose answers must not depend on the batch can only use a
dtype whose products are row-invariant, and then only with attention computed per row.

    python benchmarks/local_floor.py [--threads 2] [--rounds 3]

Prints a table and writes benchmarks/results/local_floor.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results" / "local_floor.json"
HIDDEN, MLP, KV, VOCAB, LAYERS = 576, 1536, 192, 49152, 30
# (in, out) of every product a token goes through in one layer: q, k, v, o, gate, up, down.
LAYER_SHAPES = [
    (HIDDEN, HIDDEN),
    (HIDDEN, KV),
    (HIDDEN, KV),
    (HIDDEN, HIDDEN),
    (HIDDEN, MLP),
    (HIDDEN, MLP),
    (MLP, HIDDEN),
]


def seconds_per_row(
    torch: Any, dtype: Any, rows: int, shape: tuple[int, int], rounds: int
) -> float:
    """Best-of-rounds seconds per row of one ``linear`` at ``shape`` with ``rows`` rows."""
    inputs = torch.randn(rows, shape[0]).to(dtype)
    weight = (torch.randn(shape[1], shape[0]) / shape[0] ** 0.5).to(dtype)
    repeats = max(3, int(2e9 / (2 * rows * shape[0] * shape[1])))
    best = float("inf")
    for _ in range(rounds):
        torch.nn.functional.linear(inputs, weight)
        start = time.perf_counter()
        for _ in range(repeats):
            torch.nn.functional.linear(inputs, weight)
        best = min(best, (time.perf_counter() - start) / repeats / rows)
    return best


def row_invariant(torch: Any, dtype: Any) -> bool:
    """Whether every row of a product equals the same row computed with fewer rows."""
    torch.manual_seed(0)
    for fan_in, fan_out in [*LAYER_SHAPES[:1], (HIDDEN, MLP), (MLP, HIDDEN), (HIDDEN, VOCAB)]:
        inputs = torch.randn(512, fan_in).to(dtype)
        weight = (torch.randn(fan_out, fan_in) / fan_in**0.5).to(dtype)
        full = torch.nn.functional.linear(inputs, weight)
        for rows in (1, 2, 3, 4, 7, 16, 33, 100):
            for start in (0, 5, 250):
                part = torch.nn.functional.linear(inputs[start : start + rows], weight)
                if not torch.equal(part, full[start : start + rows]):
                    return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--prompt-tokens", type=int, default=38_400)
    parser.add_argument("--output-tokens", type=int, default=6_900)
    parser.add_argument("--prefill-rows", type=int, default=380)
    parser.add_argument("--decode-rows", type=int, default=60)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    flops_per_token = 2 * LAYERS * sum(a * b for a, b in LAYER_SHAPES)
    rows_out = []
    for name in ("float32", "bfloat16"):
        dtype = getattr(torch, name)
        prefill = LAYERS * sum(
            seconds_per_row(torch, dtype, args.prefill_rows, s, args.rounds) for s in LAYER_SHAPES
        )
        decode = LAYERS * sum(
            seconds_per_row(torch, dtype, args.decode_rows, s, args.rounds) for s in LAYER_SHAPES
        )
        head = seconds_per_row(torch, dtype, args.decode_rows, (HIDDEN, VOCAB), args.rounds)
        floor = args.prompt_tokens * prefill + args.output_tokens * (decode + head)
        rows_out.append(
            {
                "dtype": name,
                "prefill_gflops": round(flops_per_token / prefill / 1e9, 1),
                "decode_gflops": round(flops_per_token / decode / 1e9, 1),
                "products_floor_s": round(floor, 1),
                "row_invariant": row_invariant(torch, dtype),
            }
        )
    print(f"{'dtype':<10} {'prefill GFLOP/s':>16} {'decode GFLOP/s':>15} {'floor s':>8}  row-inv")
    for row in rows_out:
        print(
            f"{row['dtype']:<10} {row['prefill_gflops']:>16} {row['decode_gflops']:>15} "
            f"{row['products_floor_s']:>8}  {row['row_invariant']}"
        )
    report = {
        "machine": platform.processor() or platform.machine(),
        "threads": args.threads,
        "torch": torch.__version__,
        "tokens": {
            "prompt": args.prompt_tokens,
            "output_and_fields": args.output_tokens,
            "prefill_rows": args.prefill_rows,
            "decode_rows": args.decode_rows,
        },
        "flops_per_token": flops_per_token,
        "rows": rows_out,
    }
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
