"""How much a 100-item frozen suite's audit owes to the draw, and the group question at scale.

Audits suites drawn with a bundled recipe's settings but other seeds (the spread a frozen
suite's figures come from; none of these draws is used to choose anything), then fresh sets
of group items only, large enough that the "who" question's chance level is measured rather
than sampled from 120 items. Baselines are trained as ``benchmarks/audit.py`` trains them.
Prints a table and writes benchmarks/results/suite_draws_<recipe>.json.

    python benchmarks/suite_draws.py [--recipe standard-v5] [--seeds 101 ... 110]
                                     [--group-n 1000] [--group-seeds 7001 7002]
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from empathybench.audit import AuditReport, audit_suite
from empathybench.audit.limits import DEFAULT_TRAIN_N, DEFAULT_TRAIN_SEED
from empathybench.records import Scenario, Suite
from empathybench.scenarios.generator import generate_records
from empathybench.scenarios.standard import RECIPES


def summary(report: AuditReport) -> dict[str, dict[str, object]]:
    return {
        q.question: {
            "n": q.n,
            "chance": round(q.chance, 3),
            "best": q.best,
            "accuracy": round(q.best_accuracy, 3),
            "limit": round(q.limit, 3),
            "min_items": q.min_items,
            "status": q.status,
            "passed": q.passed,
            "baselines": {b.name: round(b.overall.accuracy or 0.0, 3) for b in q.baselines},
        }
        for q in report.questions
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--recipe", default="standard-v5")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(101, 111)))
    parser.add_argument("--group-n", type=int, default=1000)
    parser.add_argument("--group-seeds", type=int, nargs="*", default=[7001, 7002])
    args = parser.parse_args()
    recipe = next(r for r in RECIPES if r.name == args.recipe)

    def audited(name: str, records: list[Scenario]) -> dict[str, dict[str, object]]:
        suite = Suite(name=name, sha256="0" * 64, scenarios=tuple(records))
        return summary(audit_suite(suite, train_n=DEFAULT_TRAIN_N, train_seed=DEFAULT_TRAIN_SEED))

    draws = []
    for seed in args.seeds:
        records = [
            Scenario.model_validate(r)
            for r in generate_records(
                recipe.n, seed, recipe.mix, recipe.template_version, recipe.per_family
            )
        ]
        draws.append({"seed": seed, "questions": audited(f"draw-{seed}", records)})
        best = {q: v["accuracy"] for q, v in draws[-1]["questions"].items()}
        print(f"draw seed {seed}: {best}", flush=True)
    groups = []
    for seed in args.group_seeds:
        records = [
            Scenario.model_validate(r)
            for r in generate_records(args.group_n, seed, {"group": 1.0}, recipe.template_version)
        ]
        who = audited(f"groups-{seed}", records)["who"]
        groups.append({"seed": seed, "who": who})
        print(f"{args.group_n} group items, seed {seed}: {who['baselines']}", flush=True)
    spread = {
        question: {
            "min": min(d["questions"][question]["accuracy"] for d in draws),
            "median": statistics.median(d["questions"][question]["accuracy"] for d in draws),
            "max": max(d["questions"][question]["accuracy"] for d in draws),
            "failed": sum(d["questions"][question]["status"] == "fail" for d in draws),
            "too_few": sum(d["questions"][question]["status"] == "too few" for d in draws),
        }
        for question in ("emotion", "help", "who")
    }
    print(f"{'question':10} {'min':>6} {'median':>7} {'max':>6} {'failing':>8} {'too few':>8}")
    for question, row in spread.items():
        print(
            f"{question:10} {row['min']:>6.3f} {row['median']:>7.3f} {row['max']:>6.3f} "
            f"{row['failed']:>8} {row['too_few']:>8}  (of {len(draws)} draws)"
        )
    out = Path(__file__).parent / "results" / f"suite_draws_{args.recipe.replace('-', '_')}.json"
    out.write_text(
        json.dumps(
            {
                "recipe": args.recipe,
                "train_n": DEFAULT_TRAIN_N,
                "train_seed": DEFAULT_TRAIN_SEED,
                "spread": spread,
                "draws": draws,
                "group_only": groups,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
