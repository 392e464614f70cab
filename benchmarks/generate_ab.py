"""Generation speed of this checkout beside another revision, alternating in one session.

Absolute rates on a shared machine move between sessions, so a speed-up is measured against
a baseline revision checked out into a temporary worktree and run in turn with this one, in
fresh processes, ``--rounds`` times each (building only, then building and writing). Prints
the medians and their ratios and writes benchmarks/results/generate_ab.json.

    python benchmarks/generate_ab.py --base REV [--version v3] [--n 20000] [--rounds 4]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHILD = """
import sys, tempfile, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from empathybench.scenarios.generator import generate_records
from empathybench.scenarios.suites import write_scenarios
version, n = sys.argv[2], int(sys.argv[3])
list(generate_records(200, seed=3, template_version=version))
start = time.perf_counter()
built = sum(1 for _ in generate_records(n, seed=1, template_version=version))
build = built / (time.perf_counter() - start)
start = time.perf_counter()
write_scenarios(Path(tempfile.mkdtemp()) / "x.jsonl", generate_records(n, 1, None, version))
print(build, n / (time.perf_counter() - start))
"""


def measure(source: Path, version: str, n: int) -> tuple[float, float]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(source), version, str(n)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return float(out[0]), float(out[1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True, help="git revision to compare against")
    parser.add_argument("--version", default="v3")
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    with tempfile.TemporaryDirectory() as directory:
        base_tree = Path(directory) / "base"
        subprocess.run(
            [
                "git",
                "-C",
                str(ROOT),
                "worktree",
                "add",
                "-q",
                "--detach",
                str(base_tree),
                args.base,
            ],
            check=True,
        )
        try:
            runs: dict[str, list[tuple[float, float]]] = {"base": [], "head": []}
            for _ in range(args.rounds):
                runs["base"].append(measure(base_tree / "src", args.version, args.n))
                runs["head"].append(measure(ROOT / "src", args.version, args.n))
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base_tree)],
                check=True,
            )
    medians = {
        side: {
            "built_per_s": statistics.median(r[0] for r in rows),
            "written_per_s": statistics.median(r[1] for r in rows),
        }
        for side, rows in runs.items()
    }
    ratios = {
        key: medians["head"][key] / medians["base"][key] for key in ("built_per_s", "written_per_s")
    }
    print(f"template {args.version}, n={args.n}, {args.rounds} rounds alternating")
    print(f"{'':12} {'built/s':>10} {'written/s':>10}")
    for side, label in (("base", args.base), ("head", f"HEAD {head}")):
        built, written = medians[side]["built_per_s"], medians[side]["written_per_s"]
        print(f"{label:12} {built:>10.0f} {written:>10.0f}")
    print(f"{'ratio':12} {ratios['built_per_s']:>10.2f}x {ratios['written_per_s']:>9.2f}x")
    out = Path(__file__).parent / "results" / "generate_ab.json"
    out.write_text(
        json.dumps(
            {
                "base": args.base,
                "head": head,
                "version": args.version,
                "n": args.n,
                "rounds": runs,
                "medians": medians,
                "ratios": ratios,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
