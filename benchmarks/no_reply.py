"""The no-reply rule and the degenerate-loop flag, measured (``judging.no_reply``).

1. Constructed non-replies (``tests/fakes/non_replies.py``: a few patterns × the options of one
   standard-v1 item per kind): how many the rule catches, and the offline judge's mean per
   text dimension on them without the rule (the head on its features, as before the rule)
   and with it.
2. Every bundled labelled benchmark output: how many the rule catches, and false positives
   (caught outputs their labellers gave any credit).
3. ``--run DIR`` (e.g. ``empathybench run --run-dir DIR`` on local/smollm2): the rule's count
   by kind, and the offline judge's means on the caught outputs without / with the rule.
4. Blind-read outputs (``benchmarks/labelled/blind_read_replies.jsonl.gz``: SmolLM2's outputs
   on five v5 and v6 suites or draws, each judged reply / not a reply by a reader who wrote
   none of the project): per set, the reader's non-replies the rule catches, split into those
   it caught before the ``as_participant`` check and those only that check catches, and
   false positives (outputs the reader called replies). The first set is the one the check
   was designed on; the others are held out.
5. Loops: distinct-2 (texts of 40+ words) and the most repeated sentence, on the bundled
   therapy references, labelled benchmark replies and empathy-scorer replies (real text), and
   on ``--study DIR`` answers (e.g. ``empathybench therapy run --model local/smollm2``).

Prints tables and writes benchmarks/results/no_reply.json.

    python benchmarks/no_reply.py [--run RUN_DIR] [--study STUDY_DIR] [--no-offline]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "no_reply.json"


def offline_means(items: Sequence[tuple[Any, str]]) -> dict[str, dict[str, float | None]]:
    """The offline judge's mean per text dimension without the rule and with it."""
    from empathybench.judging.judge_prompt import judged_dimensions
    from empathybench.judging.offline_judge import JUDGE_TARGETS, load_offline_judge
    from empathybench.judging.rubric import TEXT_DIMENSIONS

    judge = load_offline_judge()
    raw = judge.scores(list(items))  # the head (calibrated) on every output, rule or not
    verdicts = judge.judge(list(items), run_id="benchmark")
    result: dict[str, dict[str, float | None]] = {"without_rule": {}, "with_rule": {}}
    for dimension in TEXT_DIMENSIONS:
        column = JUDGE_TARGETS.index(dimension)
        rows = [i for i, (s, _) in enumerate(items) if dimension in judged_dimensions(s)]
        before = [float(raw[i][column]) for i in rows]
        after = [verdicts[i].scores[dimension].value or 0.0 for i in rows]
        result["without_rule"][dimension] = sum(before) / len(before) if before else None
        result["with_rule"][dimension] = sum(after) / len(after) if after else None
    text_columns = [JUDGE_TARGETS.index(d) for d in TEXT_DIMENSIONS]
    highest = [
        float(raw[i][c])
        for i, (s, _) in enumerate(items)
        for c, d in zip(text_columns, TEXT_DIMENSIONS, strict=True)
        if d in judged_dimensions(s)
    ]
    result["without_rule"]["highest"] = max(highest, default=None)
    return result


def loop_stats(texts: Sequence[str]) -> dict[str, Any]:
    from empathybench.analysis.text_metrics import distinct_n, words
    from empathybench.judging.no_reply import (
        DEGENERATE_MIN_WORDS,
        REPEATED_SENTENCE_MIN_WORDS,
        degenerate_reason,
        sentences,
    )

    long = [words(t) for t in texts if len(words(t)) >= DEGENERATE_MIN_WORDS]
    distinct = sorted(d for t in long if (d := distinct_n([t], 2)) is not None)
    repeats = [
        max(
            Counter(s for s in sentences(t) if len(s) >= REPEATED_SENTENCE_MIN_WORDS).values(),
            default=0,
        )
        for t in texts
    ]
    return {
        "texts": len(texts),
        "long_texts": len(long),
        "distinct_2_min": distinct[0] if distinct else None,
        "distinct_2_max": distinct[-1] if distinct else None,
        "max_repeated_sentence": max(repeats, default=0),
        "flagged": sum(1 for t in texts if degenerate_reason(t)),
    }


BLIND_READ = ROOT / "benchmarks" / "labelled" / "blind_read_replies.jsonl.gz"


def blind_read_table(classify_reply: Any) -> list[dict[str, Any]]:
    """Per blind-read set: outputs, reader non-replies, rule catches (before the participant
    check / by it alone), misses and false positives; printed as a table."""
    import gzip

    from empathybench.records import Scenario

    rows: dict[str, Counter[str]] = {}
    with gzip.open(BLIND_READ, "rt", encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            verdict = classify_reply(record["output"], Scenario.model_validate(record["scenario"]))
            kind = "none" if verdict is None else verdict.kind
            counts = rows.setdefault(record["set"], Counter())
            counts["outputs"] += 1
            if record["reader_reply"]:
                counts["false_positives"] += kind != "none"
            else:
                counts["reader_not"] += 1
                counts["caught_before"] += kind not in ("none", "as_participant")
                counts["caught_as_participant"] += kind == "as_participant"
                counts["missed"] += kind == "none"
    table = [{"set": name, **counts} for name, counts in rows.items()]
    print("blind-read outputs: reader's non-replies caught by the rule (before / participant)")
    print(
        f"  {'set':46} {'outputs':>7} {'not':>4} {'before':>6} {'partic.':>7} "
        f"{'missed':>6} {'FP':>3}"
    )
    for row in table:
        print(
            f"  {row['set']:46} {row['outputs']:>7} {row['reader_not']:>4} "
            f"{row['caught_before']:>6} {row['caught_as_participant']:>7} {row['missed']:>6} "
            f"{row['false_positives']:>3}"
        )
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, help="A run directory to measure the rule on.")
    parser.add_argument("--study", type=Path, help="A therapy study to measure loops on.")
    parser.add_argument("--no-offline", action="store_true", help="Skip the offline judge.")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from empathybench.judging.calibration import BUNDLED_LABEL_FILES, load_labels
    from empathybench.judging.no_reply import classify_reply, reply_part
    from empathybench.scenarios.suites import load_suite
    from empathybench.scorer.empathy_data import load_empathy_labels
    from empathybench.therapy.questions import load_questions
    from tests.fakes.non_replies import non_replies

    report: dict[str, Any] = {}
    chosen: dict[str, Any] = {}
    for scenario in load_suite("standard-v1").scenarios:
        chosen.setdefault(scenario.kind, scenario)
    constructed = [(s, text) for s in chosen.values() for text in non_replies(s)]
    kinds = Counter(
        (c.kind if (c := classify_reply(text, s)) else "missed") for s, text in constructed
    )
    report["constructed"] = {"outputs": len(constructed), "by_kind": dict(kinds)}
    real = [r for name in BUNDLED_LABEL_FILES for r in load_labels(name)]
    caught = [r for r in real if classify_reply(r.response, r.scenario)]
    # Some labelled outputs are non-replies on purpose (judge-labels-v2 writes them so the
    # offline judge learns them) or by their writer's choice; their labellers scored them 0.
    # A catch is a false positive when its labellers gave it any credit.
    credited = [r.id for r in caught if any(v > 0 for v in r.labels.values())]
    report["real_replies"] = {
        "labelled_outputs": len(real),
        "caught": len(caught),
        "caught_labelled_0_everywhere": len(caught) - len(credited),
        "false_positives": credited,
    }
    print(f"constructed non-replies: {len(constructed)}, caught by kind: {dict(kinds)}")
    print(
        f"labelled outputs: {len(real)}, caught: {len(caught)}, of which labelled 0 on every "
        f"dimension: {len(caught) - len(credited)}, false positives (given credit): "
        f"{len(credited)}"
    )
    if not args.no_offline:
        means = offline_means(constructed)
        report["constructed"]["offline_judge"] = means
        print("offline judge on constructed non-replies (mean per dimension):")
        for which, row in means.items():
            print(
                f"  {which:13}", {k: round(v, 3) if v is not None else None for k, v in row.items()}
            )
    if args.run:
        from empathybench.runner import load_run_suite
        from empathybench.runtime.run_store import RunStore

        store = RunStore(args.run)
        scenarios = {s.id: s for s in load_run_suite(store.read_manifest()).scenarios}
        outputs = [
            (scenarios[k[0]], r.text or "")
            for k, r in sorted(store.latest_responses().items())
            if r.ok and k[0] in scenarios
        ]
        run_kinds = Counter(
            (c.kind if (c := classify_reply(t, s)) else "reply") for s, t in outputs
        )
        silent = [(s, t) for s, t in outputs if classify_reply(t, s)]
        report["run"] = {"directory": str(args.run), "outputs": len(outputs)}
        report["run"]["by_kind"] = dict(run_kinds)
        report["run"]["loops_in_replies"] = loop_stats(
            [reply_part(t, s) for s, t in outputs if not classify_reply(t, s)]
        )
        print(f"run {args.run}: {len(outputs)} outputs, {dict(run_kinds)}")
        if silent and not args.no_offline:
            report["run"]["offline_judge_on_no_reply"] = offline_means(silent)
            for which, row in report["run"]["offline_judge_on_no_reply"].items():
                rounded = {k: None if v is None else round(v, 3) for k, v in row.items()}
                print(f"  offline judge on its no-reply outputs, {which}:", rounded)
    report["blind_read"] = blind_read_table(classify_reply)
    real_text = {
        "therapy references": [q.reference or "" for q in load_questions("sample-v1").questions],
        "labelled benchmark replies": [reply_part(r.response, r.scenario) for r in real],
        "empathy-scorer replies": [r.response for r in load_empathy_labels().records],
    }
    if args.study:
        from empathybench.therapy.study import Study

        answers = Study(args.study).answers()
        for source, by_key in answers.items():
            real_text[f"study source {source}"] = [a.text for a in by_key.values()]
    report["loops"] = {name: loop_stats(texts) for name, texts in real_text.items()}
    print("loops: distinct-2 over 40+ word texts, most repeated sentence, flagged")
    for name, stats in report["loops"].items():
        print(f"  {name:34} {stats}")
    RESULTS.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
