"""Time ``empathybench report`` on a run of 1,000 mock responses judged by a two-judge panel.

Setup (not timed): a 1,000-item suite is generated, run through ``mock/bench`` and judged by
``mock/judge-a`` and ``mock/judge-b`` with the real runner and judge pipeline. Then each
phase of the report is timed on its own (median of the rounds), the whole ``write_report``
in-process, and the ``empathybench report`` command once in a child process (imports
included). Prints a table and writes benchmarks/results/report.json.

    python benchmarks/report.py [--items 1000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from empathybench.analysis.run_sets import load_runs, run_labels
from empathybench.analysis.secondary_metrics import secondary_metrics
from empathybench.analysis.summary import summarize_run_data
from empathybench.judging.run_judges import JudgeRunOptions, judge_run
from empathybench.models.registry import parse_model_id
from empathybench.report.figures import write_figures
from empathybench.report.html_report import render_report_html
from empathybench.report.run_report import write_report
from empathybench.report.tables import ReportRun, csv_headline, markdown_report_tables
from empathybench.runner import RunOptions, execute_run
from empathybench.scenarios.generator import generate
from empathybench.scenarios.suites import load_suite, write_scenarios


def make_run(directory: Path, items: int) -> Path:
    suite_path = directory / "suite.jsonl"
    write_scenarios(suite_path, generate(items, seed=11, template_version="v1"))
    suite = load_suite(str(suite_path))
    run_dir = directory / "run"
    asyncio.run(
        execute_run(
            RunOptions(
                suite=suite,
                suite_source=str(suite_path),
                spec=parse_model_id("mock/bench"),
                run_dir=run_dir,
                max_connections=64,
            )
        )
    )
    asyncio.run(
        judge_run(
            JudgeRunOptions(
                run_dir=run_dir,
                judges=[parse_model_id("mock/judge-a"), parse_model_id("mock/judge-b")],
                max_connections=64,
            )
        )
    )
    return run_dir


def timed(action: Callable[[], object], rounds: int) -> tuple[float, object]:
    seconds = []
    result: object = None
    for _ in range(rounds):
        started = time.perf_counter()
        result = action()
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds), result


def measure(run_dir: Path, output: Path, rounds: int) -> dict[str, float]:
    results: dict[str, float] = {}
    results["load run (manifest, suite, responses, verdicts)"], loaded = timed(
        lambda: load_runs([run_dir]), rounds
    )
    runs = loaded[0]  # type: ignore[index]
    run = runs[0]
    results["summary with bootstrap CIs (incl. per kind)"], summary = timed(
        lambda: summarize_run_data(run), rounds
    )
    results["secondary metrics (VADER, Empath, distinct-n)"], secondary = timed(
        lambda: secondary_metrics(run), rounds
    )
    report_runs = [ReportRun(run_labels(runs)[0], run, summary, secondary)]  # type: ignore[arg-type]
    results["tables (Markdown, CSV)"], _ = timed(
        lambda: (markdown_report_tables(report_runs), csv_headline(report_runs)), rounds
    )
    results["figures (3 charts x PNG+SVG)"], figures = timed(
        lambda: write_figures(report_runs, output / "figures"), rounds
    )
    results["report.html render"], html = timed(
        lambda: render_report_html(report_runs, figures, seed=0),  # type: ignore[arg-type]
        rounds,
    )
    results["write_report, end to end"], _ = timed(lambda: write_report([run_dir], output), rounds)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "empathybench", "report", str(run_dir), "-o", str(output)],
        check=True,
        capture_output=True,
    )
    results["empathybench report (CLI process)"] = time.perf_counter() - started
    results["report.html size MB"] = len(str(html).encode()) / 2**20
    return results


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        run_dir = make_run(Path(directory), args.items)
        results = measure(run_dir, Path(directory) / "report", args.rounds)
    peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"report on {args.items} mock responses, 2 judges (median of {args.rounds} rounds)")
    print(f"{'phase':<52} {'value':>8}")
    for name, value in results.items():
        unit = "" if name.endswith("MB") else " s"
        print(f"{name:<52} {value:>8.3f}{unit}")
    print(f"{'peak RSS of this process MB':<52} {peak_rss_mb:>8.1f}")
    out = Path(__file__).parent / "results" / "report.json"
    out.parent.mkdir(exist_ok=True)
    record = {
        "machine": platform.platform(),
        "python": platform.python_version(),
        "items": args.items,
        "judges": 2,
        "rounds": args.rounds,
        "seconds_and_sizes": {k: round(v, 4) for k, v in results.items()},
        "peak_rss_mb": round(peak_rss_mb, 1),
    }
    out.write_text(json.dumps(record, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
