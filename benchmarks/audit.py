"""Shortcut audit of the bundled standard suites, a fresh set of v1 items and of v2 items.

Each audit trains the surface baselines on ``--train-n`` items generated with the audit's
default training seed, then reports the best baseline per question beside chance. Prints a
table and writes benchmarks/results/audit.json (summary rows plus the full reports).

    python benchmarks/audit.py [--train-n 3000] [--fresh-n 1000] [--fresh-seed 2025 ...]
                               [--versions v1 v2 v3]
                               [--standard standard-v1 ... standard-v5]
                               [--no-standard] [--train-seed N] [--out FILE]

``--versions`` with no value audits no fresh set (only the bundled suites).

Several ``--fresh-seed`` values audit one fresh set per seed and version (a template version
should pass on seeds it was not tuned on, not only on one).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import time
from pathlib import Path

from empathybench.audit import AuditReport, audit_suite
from empathybench.audit.limits import DEFAULT_TRAIN_N, DEFAULT_TRAIN_SEED
from empathybench.records import Suite
from empathybench.scenarios.generator import any_templates_sha256, generate
from empathybench.scenarios.suites import load_suite


def _commit() -> str:
    """The checkout's commit, with ``+dirty`` when files differ from it (so a result names
    the code that made it)."""
    root = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{commit}+dirty" if dirty else commit


def template_hash(version: str) -> str:
    return any_templates_sha256(version)


def timed_audit(suite: Suite, train_n: int, train_seed: int) -> tuple[AuditReport, float]:
    start = time.perf_counter()
    report = audit_suite(suite, train_n=train_n, train_seed=train_seed)
    return report, time.perf_counter() - start


def rows(label: str, report: AuditReport, wall_s: float) -> list[dict[str, object]]:
    found = []
    for q in report.questions:
        best = next(b for b in q.baselines if b.name == q.best).overall
        found.append(
            {
                "suite": label,
                "question": q.question,
                "items": q.n,
                "chance": round(q.chance, 3),
                "best_baseline": q.best,
                "accuracy": round(best.accuracy or 0.0, 3),
                "ci_low": round(best.low or 0.0, 3),
                "ci_high": round(best.high or 0.0, 3),
                "limit": round(q.limit, 3),
                "min_items": q.min_items,
                "status": q.status,
                "passed": q.passed,
                "all_baselines": {b.name: round(b.overall.accuracy or 0.0, 3) for b in q.baselines},
                "wall_s": round(wall_s, 2),
            }
        )
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--train-n", type=int, default=DEFAULT_TRAIN_N)
    parser.add_argument("--train-seed", type=int, default=DEFAULT_TRAIN_SEED)
    parser.add_argument("--fresh-n", type=int, default=1000)
    parser.add_argument("--fresh-seed", type=int, nargs="+", default=[2025])
    parser.add_argument("--versions", nargs="*", default=["v1", "v2", "v3"])
    parser.add_argument(
        "--standard",
        nargs="+",
        default=["standard-v1", "standard-v2", "standard-v3", "standard-v4", "standard-v5"],
        help="bundled suites to audit",
    )
    parser.add_argument("--no-standard", action="store_true", help="skip the bundled suites")
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).parent / "results" / "audit.json"
    )
    args = parser.parse_args()
    suites = [] if args.no_standard else [(name, load_suite(name)) for name in args.standard]
    suites += [
        (
            f"fresh {version} ({args.fresh_n}, seed {seed})",
            Suite(
                name=f"fresh-{version}-seed{seed}",
                sha256="-",
                scenarios=tuple(generate(args.fresh_n, seed, template_version=version)),
            ),
        )
        for version in args.versions
        for seed in args.fresh_seed
    ]
    results, reports = [], []
    for label, suite in suites:
        report, wall_s = timed_audit(suite, args.train_n, args.train_seed)
        results += rows(label, report, wall_s)
        reports.append(report.model_dump(mode="json"))
    header = (
        f"{'suite':<30} {'question':<8} {'items':>5} {'chance':>6} {'best':<14} "
        f"{'acc [95% CI]':<22} {'limit':>6} {'result':<6} {'wall s':>7}"
    )
    print(f"train-n {args.train_n}, train seed {args.train_seed}")
    print(header)
    for row in results:
        interval = f"{row['accuracy']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}]"
        print(
            f"{row['suite']:<30} {row['question']:<8} {row['items']:>5} {row['chance']:>6.3f} "
            f"{row['best_baseline']:<14} {interval:<22} {row['limit']:>6.3f} "
            f"{row['status']:<7} {row['wall_s']:>7}"
        )
    for row in results:
        print(f"{row['suite']} / {row['question']}: {row['all_baselines']}")
    out = args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "machine": platform.platform(),
                "python": platform.python_version(),
                "train_n": args.train_n,
                "train_seed": args.train_seed,
                "git_commit": _commit(),
                "template_sha256": {
                    report["template_version"]: template_hash(report["template_version"])
                    for report in reports
                },
                "results": results,
                "reports": reports,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
