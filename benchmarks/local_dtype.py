"""float32 vs bfloat16 forwards of the bundled local model on the main job's real prompts.

Times one prefill of ``--prompts`` prompts of the default suite (left-padded in rows of 4, as
the engine prefills) and ``--steps`` decoding steps at batch ``--batch``, in CPU seconds and
wall seconds, alternating the dtypes for ``--rounds`` rounds with a freshly loaded model each
time (casting in place would round the float32 weights). Also reports how often the bf16
next-token argmax at the end of each prompt equals the float32 one, and the largest
difference of the chosen token's log-probability. Answer quality needs the full runs
(``benchmarks/guided_answers.py``); this only says whether bf16 is worth that.
Prints a table and writes benchmarks/results/local_dtype.json.

    python benchmarks/local_dtype.py [--prompts 16] [--steps 10] [--batch 32] [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results" / "local_dtype.json"


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(dtype_name: str, prompts: list[list[int]], steps: int, batch: int) -> dict[str, Any]:
    import torch
    from transformers import DynamicCache

    from empathybench.models.local_weights import load_model, resolve_source

    model, tokenizer = load_model(*resolve_source("smollm2"))
    model = model.to(getattr(torch, dtype_name))
    pad = tokenizer.pad_token_id or tokenizer.eos_token_id
    last: list[Any] = []
    with torch.inference_mode():
        model(input_ids=torch.tensor([prompts[0][:16]]))  # warm-up
        cpu, wall = cpu_seconds(), time.perf_counter()
        for start in range(0, len(prompts), 4):
            chunk = prompts[start : start + 4]
            width = max(len(p) for p in chunk)
            ids = torch.full((len(chunk), width), pad, dtype=torch.long)
            mask = torch.zeros((len(chunk), width), dtype=torch.long)
            for row, prompt in enumerate(chunk):
                ids[row, width - len(prompt) :] = torch.tensor(prompt)
                mask[row, width - len(prompt) :] = 1
            out = model(
                input_ids=ids,
                attention_mask=mask,
                position_ids=(mask.cumsum(-1) - 1).clamp(min=0),
                logits_to_keep=1,
            )
            last.append(torch.log_softmax(out.logits[:, -1].float(), dim=-1))
        prefill = (cpu_seconds() - cpu, time.perf_counter() - wall)
        cache = DynamicCache()
        rows = [prompts[i % len(prompts)][:300] for i in range(batch)]
        width = max(len(r) for r in rows)
        ids = torch.tensor([[pad] * (width - len(r)) + r for r in rows])
        model(input_ids=ids, past_key_values=cache, use_cache=True, logits_to_keep=1)
        token = ids[:, -1:]
        cpu, wall = cpu_seconds(), time.perf_counter()
        for _ in range(steps):
            logits = model(input_ids=token, past_key_values=cache, use_cache=True).logits
            token = logits[:, -1].argmax(-1, keepdim=True)
        decode = (cpu_seconds() - cpu, time.perf_counter() - wall)
    return {"prefill": prefill, "decode": decode, "log_probs": torch.cat(last)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prompts", type=int, default=16)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    import torch

    from empathybench.models.local_weights import load_model, resolve_source
    from empathybench.scenarios.suites import DEFAULT_SUITE, load_suite

    torch.set_num_threads(os.cpu_count() or 1)
    _, tokenizer = load_model(*resolve_source("smollm2"))
    scenarios = load_suite(DEFAULT_SUITE).scenarios[: args.prompts]
    prompts = [
        list(
            tokenizer.apply_chat_template(
                [m.model_dump() for m in s.messages],
                add_generation_prompt=True,
                tokenize=True,
                return_dict=False,
            )
        )
        for s in scenarios
    ]
    prompts.sort(key=len)
    rows: list[dict[str, Any]] = []
    print(f"{'round':>5} {'dtype':>9} {'prefill cpu/wall s':>19} {'decode cpu/wall s':>18}")
    reference: Any = None
    for number in range(args.rounds):
        for dtype in ("float32", "bfloat16"):
            result = measure(dtype, prompts, args.steps, args.batch)
            log_probs = result.pop("log_probs")
            if dtype == "float32":
                reference = log_probs
            chosen = reference.argmax(-1)
            result["argmax_agree"] = float((log_probs.argmax(-1) == chosen).float().mean())
            result["max_logprob_diff"] = float(
                (log_probs.gather(-1, chosen[:, None]) - reference.gather(-1, chosen[:, None]))
                .abs()
                .max()
            )
            result.update(round=number, dtype=dtype, load_avg_1m=round(os.getloadavg()[0], 2))
            rows.append(result)
            p, d = result["prefill"], result["decode"]
            print(
                f"{number:>5} {dtype:>9} {p[0]:>9.2f}/{p[1]:<9.2f} {d[0]:>8.2f}/{d[1]:<9.2f}"
                f" agree {result['argmax_agree']:.3f} max dlogp {result['max_logprob_diff']:.3f}",
                flush=True,
            )
    report = {"prompts": len(prompts), "tokens": sum(map(len, prompts)), "rows": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
