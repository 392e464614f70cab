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

``--runs`` answers the main job instead (``empathybench run --no-judge --no-cache`` on the
default suite, ``--items`` items, in child processes) once per dtype, and again with only the
first ``--subset`` items: wall and CPU seconds, how many answers (whole text, emotion letter,
help answer) bfloat16 shares with float32, and, per dtype, how many of the subset's answers
equal the same items' answers in the full run (a batch-invariant engine answers all of them
the same). Writes benchmarks/results/local_dtype_runs.json.

    python benchmarks/local_dtype.py --runs [--items 100] [--subset 20]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results" / "local_dtype.json"
RUNS_RESULTS = RESULTS.with_name("local_dtype_runs.json")


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


def answer_run(dtype: str, items: int, directory: Path) -> dict[str, Any]:
    """One ``empathybench run`` in a child process; its answers by item id, wall and CPU s."""
    command = [sys.executable, "-m", "empathybench", "run", "--no-cache", "--no-judge"]
    command += ["--no-progress", "--limit", str(items), "--run-dir", str(directory)]
    command += ["--option", f"dtype={dtype}"]
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
    lines = (directory / "responses.jsonl").read_text().splitlines()
    answers = {row["scenario_id"]: row["text"] for row in map(json.loads, lines)}
    return {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "answers": answers}


def agreement(a: dict[str, str], b: dict[str, str]) -> dict[str, int]:
    """Items of ``b`` whose whole text, emotion letter and help answer equal ``a``'s."""
    from empathybench.judging.answer_parser import parse_answer
    from empathybench.scenarios.suites import DEFAULT_SUITE, load_suite

    options = {s.id: s.options for s in load_suite(DEFAULT_SUITE).scenarios}
    counts = {"items": 0, "text": 0, "emotion": 0, "needs_help": 0}
    for item, text in b.items():
        first, second = parse_answer(a[item], options[item]), parse_answer(text, options[item])
        counts["items"] += 1
        counts["text"] += a[item] == text
        counts["emotion"] += first.letter == second.letter
        counts["needs_help"] += first.needs_help == second.needs_help
    return counts


def compare_runs(items: int, subset: int, out: Path) -> None:
    runs: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as temporary:
        for dtype in ("float32", "bfloat16"):
            for count in (items, subset):
                runs[f"{dtype}/{count}"] = answer_run(
                    dtype, count, Path(temporary) / f"{dtype}-{count}"
                )
                print(
                    f"{dtype:>9} {count:>4} items: {runs[f'{dtype}/{count}']['wall_s']} s wall, "
                    f"{runs[f'{dtype}/{count}']['cpu_s']} s CPU",
                    flush=True,
                )
    full32, full16 = runs[f"float32/{items}"]["answers"], runs[f"bfloat16/{items}"]["answers"]
    report = {
        "items": items,
        "subset": subset,
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "times": {
            name: {k: v for k, v in run.items() if k != "answers"} for name, run in runs.items()
        },
        "bfloat16_vs_float32": agreement(full32, full16),
        "subset_vs_full": {
            dtype: agreement(
                runs[f"{dtype}/{items}"]["answers"], runs[f"{dtype}/{subset}"]["answers"]
            )
            for dtype in ("float32", "bfloat16")
        },
    }
    print("bfloat16 vs float32 (full runs):", report["bfloat16_vs_float32"])
    for dtype, counts in report["subset_vs_full"].items():
        print(f"{dtype}: first {subset} items alone vs in the full run:", counts)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prompts", type=int, default=16)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--runs", action="store_true", help="answer the main job per dtype")
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--subset", type=int, default=20)
    args = parser.parse_args()
    if args.runs:
        compare_runs(args.items, args.subset, args.out or RUNS_RESULTS)
        return
    args.out = args.out or RESULTS
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
