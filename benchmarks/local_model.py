"""Load time and batched throughput of the bundled local model (local/smollm2).

Load is timed in fresh child processes (imports included): cold = GGUF conversion plus
writing the dequantised weights cache into an empty cache dir, warm = loading that cache.
Throughput runs benchmark prompts (``generate(n, seed=0)``) concurrently through one
``LocalModel`` per batch size, greedy, with at most ``--max-tokens`` new tokens each: once with
rows stopping at EOS as in real runs, once with EOS ignored so every row writes all its tokens
(comparable with fixed-length tokens/s figures). ``--full`` times the main job's shape: 100
items, 150 new tokens, both ways.
CPU seconds and the load average are recorded because other processes on a small machine
change wall times a lot. Prints a table and writes benchmarks/results/local_model.json.

    python benchmarks/local_model.py [--batch-sizes 1 8 16 32 100] [--full] [--llama-cpp]

``--main-job REF`` times the main job instead: ``empathybench run`` (local/smollm2, guided
answers, offline judge; ``--suite``, ``--limit``) in child processes, alternating the source
tree of git REF (baseline, e.g. ``main``) and this tree for ``--rounds`` rounds, and checks that
both wrote the same responses and the same summary scores. Writes
benchmarks/results/local_model_main_job.json.

    python benchmarks/local_model.py --main-job main [--suite standard-v1] [--limit 100]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results" / "local_model.json"
MAIN_JOB_RESULTS = RESULTS.with_name("local_model_main_job.json")
ROOT = Path(__file__).resolve().parent.parent
LOAD_CHILD = """
import time
t0 = time.perf_counter()
from empathybench.models.local import load_model, resolve_source
load_model(*resolve_source("smollm2"))
print(time.perf_counter() - t0)
"""


def time_load(cache_dir: str) -> float:
    env = {**os.environ, "EMPATHYBENCH_MODEL_CACHE": cache_dir}
    out = subprocess.run(
        [sys.executable, "-c", LOAD_CHILD], env=env, check=True, capture_output=True, text=True
    ).stdout
    return float(out.strip().splitlines()[-1])


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def run_batch(
    model_id: str,
    options: dict[str, Any],
    prompts: list[Any],
    max_tokens: int,
    fixed_length: bool = False,
) -> dict[str, Any]:
    """Time ``prompts`` sent concurrently; ``fixed_length`` ignores EOS (every row writes
    ``max_tokens``, comparable with fixed-length throughput figures)."""
    from empathybench.models.base import GenerationParams, ModelRequest
    from empathybench.models.registry import create_model, parse_model_id

    model = create_model(parse_model_id(model_id, options=options))
    params = GenerationParams(temperature=0.0, max_tokens=max_tokens)
    await model.generate(
        ModelRequest(messages=prompts[0], params=params.model_copy(update={"max_tokens": 1}))
    )  # load outside the timing
    engine: Any = model.engine  # type: ignore[attr-defined]
    batches_before, seconds_before = engine.batches, dict(engine.seconds)
    load_before, cpu_before = os.getloadavg()[0], cpu_seconds()
    eos = getattr(engine, "eos", None)
    if fixed_length:
        engine.eos = set()  # benchmark-only: no row stops before max_tokens
    started = time.perf_counter()
    try:
        outputs = await asyncio.gather(
            *(model.generate(ModelRequest(messages=p, params=params)) for p in prompts)
        )
    finally:
        if fixed_length:
            engine.eos = eos
    wall = time.perf_counter() - started
    new_tokens = sum(o.output_tokens or 0 for o in outputs)
    return {
        "items": len(prompts),
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu_seconds() - cpu_before, 1),
        "prompt_tokens": sum(o.input_tokens or 0 for o in outputs),
        "new_tokens": new_tokens,
        "new_tokens_per_s": round(new_tokens / wall, 1),
        "items_hit_max": sum(o.stop_reason == "length" for o in outputs),
        "batches": engine.batches - batches_before,
        "prefill_s": round(engine.seconds["prefill"] - seconds_before["prefill"], 1),
        "decode_s": round(engine.seconds["decode"] - seconds_before["decode"], 1),
        "load_avg_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }


def run_main_job(src: Path, run_dir: Path, suite: str, limit: int | None) -> dict[str, Any]:
    """One ``empathybench run`` with the package at ``src``: wall and CPU seconds, outputs."""
    command = [sys.executable, "-m", "empathybench", "run", "--suite", suite, "--no-cache"]
    command += ["--run-dir", str(run_dir), "--force", "--no-progress"]
    command += ["--limit", str(limit)] if limit else []
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load, started = os.getloadavg()[0], time.perf_counter()
    subprocess.run(
        command, env={**os.environ, "PYTHONPATH": str(src)}, check=True, capture_output=True
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    responses = [json.loads(line) for line in (run_dir / "responses.jsonl").open()]
    summary = json.loads((run_dir / "summary.json").read_text())
    return {
        "wall_s": round(wall, 1),
        "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 1),
        "load_avg_1m": [round(load, 2), round(os.getloadavg()[0], 2)],
        "texts": {r["scenario_id"]: r["text"] for r in responses},
        "scores": {
            d["dimension"]: d["estimate"]
            and [round(d["estimate"][k], 6) for k in ("mean", "low", "high")]
            for d in summary["dimensions"]
        },
    }


def main_job(ref: str, suite: str, limit: int | None, rounds: int, out: Path) -> None:
    """Baseline (git ``ref``) and this tree, alternating; same outputs checked every round."""
    report: dict[str, Any] = {"ref": ref, "suite": suite, "limit": limit, "rounds": []}
    with tempfile.TemporaryDirectory() as temp:
        base = Path(temp) / "base"
        base.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", ref, "src"], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
        trees = {"before": base / "src", "after": ROOT / "src"}
        print(f"{'round':>5} {'tree':>6} {'wall s':>7} {'cpu s':>6}  load avg", flush=True)
        for number in range(rounds):
            row: dict[str, Any] = {}
            for name, src in trees.items():
                row[name] = run_main_job(src, Path(temp) / f"{name}-{number}", suite, limit)
                print(
                    f"{number:>5} {name:>6} {row[name]['wall_s']:>7} {row[name]['cpu_s']:>6}"
                    f"  {row[name]['load_avg_1m']}",
                    flush=True,
                )
            row["same_responses"] = row["before"]["texts"] == row["after"]["texts"]
            row["same_scores"] = row["before"]["scores"] == row["after"]["scores"]
            row["ratio"] = round(row["before"]["wall_s"] / row["after"]["wall_s"], 2)
            print(
                f"      before/after {row['ratio']}x, same responses {row['same_responses']},"
                f" same scores {row['same_scores']}",
                flush=True,
            )
            report["rounds"].append(row)
    for row in report["rounds"]:
        for name in trees:
            row[name].pop("texts")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--main-job", metavar="REF", help="time empathybench run: REF vs here")
    parser.add_argument("--suite", default="standard-v1")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--batch-sizes", type=int, nargs="*", default=[1, 8, 16, 32, 100])
    parser.add_argument("--max-tokens", type=int, default=120)
    parser.add_argument("--full", action="store_true", help="also time 100 items x 150 tokens")
    parser.add_argument("--llama-cpp", action="store_true", help="also time backend=llama_cpp")
    parser.add_argument("--skip-load", action="store_true")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    if args.main_job:
        out = args.out if args.out != RESULTS else MAIN_JOB_RESULTS
        main_job(args.main_job, args.suite, args.limit, args.rounds, out)
        return

    import torch
    import transformers

    from empathybench.scenarios.generator import generate

    prompts = [s.messages for s in generate(100, seed=0, template_version="v1")]
    report: dict[str, Any] = {
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "processor": platform.processor() or platform.machine(),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
        },
        "max_tokens": args.max_tokens,
        "load": {},
        "throughput": [],
        "full": None,
        "throughput_fixed_length": [],
        "full_fixed_length": None,
        "llama_cpp": None,
    }
    with tempfile.TemporaryDirectory() as cache_dir:
        if not args.skip_load:
            report["load"] = {
                "cold_s": round(time_load(cache_dir), 1),
                "warm_s": round(time_load(cache_dir), 1),
            }
            print(
                f"load: cold {report['load']['cold_s']} s, warm {report['load']['warm_s']} s "
                "(fresh process, imports included)",
                flush=True,
            )
        os.environ.setdefault("EMPATHYBENCH_MODEL_CACHE", cache_dir)
        for fixed in (False, True):
            print(
                "\nevery row writes max tokens (EOS ignored)"
                if fixed
                else "rows stop at EOS, as in real runs",
                flush=True,
            )
            print(
                f"{'batch':>5} {'items':>5} {'wall s':>7} {'cpu s':>6} {'new tok':>7} "
                f"{'tok/s':>6} {'at max':>6} {'batches':>7} {'prefill':>7} {'decode':>6}"
                "  load avg",
                flush=True,
            )
            for size in args.batch_sizes:
                items = prompts[: max(size, 4) if size == 1 else size]
                row = asyncio.run(
                    run_batch("local/smollm2", {"batch_size": size}, items, args.max_tokens, fixed)
                )
                row["batch_size"] = size
                report["throughput_fixed_length" if fixed else "throughput"].append(row)
                print(
                    f"{size:>5} {row['items']:>5} {row['wall_s']:>7} {row['cpu_s']:>6} "
                    f"{row['new_tokens']:>7} {row['new_tokens_per_s']:>6} "
                    f"{row['items_hit_max']:>6} {row['batches']:>7} {row['prefill_s']:>7} "
                    f"{row['decode_s']:>6}  {row['load_avg_1m']}",
                    flush=True,
                )
            if args.full:
                row = asyncio.run(run_batch("local/smollm2", {}, prompts, 150, fixed))
                report["full_fixed_length" if fixed else "full"] = row
                print(
                    f"full: 100 items x {'exactly' if fixed else 'max'} 150 tokens, default "
                    f"batch size: {row['wall_s']} s wall ({row['prefill_s']} prefill, "
                    f"{row['decode_s']} decode), {row['new_tokens']} new tokens, "
                    f"{row['batches']} batches, load avg {row['load_avg_1m']}",
                    flush=True,
                )
        if args.llama_cpp:
            row = asyncio.run(
                run_batch("local/smollm2", {"backend": "llama_cpp"}, prompts[:32], args.max_tokens)
            )
            report["llama_cpp"] = row
            print(
                f"llama_cpp (sequential): 32 items {row['wall_s']} s, "
                f"{row['new_tokens_per_s']} tok/s",
                flush=True,
            )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
