"""Build src/empathybench/data/scorer/judge-labels-v2.jsonl from the hand-written sources here.

Each source file lists generated items (``@ VERSION SEED N INDEX``: item INDEX of
``generate(N, SEED, template_version=VERSION)``) and, under each, rows
``style | labels | extra | reply``: the labels in ``judged_dimensions`` order (0, .5, 1),
``extra`` one of ``-``, ``ref=y|n`` (crisis referral), ``person=NAME`` (group items) or
``raw`` (the reply is the whole answer, no format added). The answer format around a reply
varies by a hash of the row (fields, bold fields, lower-case fields, or no fields at all),
and a few rule-caught non-replies (option lists, bare answer lines, placeholders) are added
per item with every label 0. Run from the repository root:

    PYTHONPATH=src python scripts/judge_labels_v2/build.py
"""

from __future__ import annotations

import hashlib
import json
import sys
from functools import cache
from pathlib import Path

from empathybench.judging.judge_prompt import judged_dimensions
from empathybench.judging.no_reply import check_reply
from empathybench.records import Scenario
from empathybench.scenarios.generator import generate

HERE = Path(__file__).parent
SOURCES = ["v1_items.txt", "v2_items.txt", "v1_items_b.txt", "v2_items_b.txt"]
OUTPUT = Path("src/empathybench/data/scorer/judge-labels-v2.jsonl")
LABELLER = "empathybench project (offjudge helper, second batch)"
GUIDE = "labelling-guide-v2"
TEST_SHARE = 0.2


def _hash(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


@cache
def _scenarios(version: str, seed: int, count: int) -> tuple[Scenario, ...]:
    return tuple(generate(count, seed, template_version=version))


def _wrap(scenario: Scenario, reply: str, person: str | None, key: str) -> str:
    h = _hash(key)
    letter = scenario.correct_letter if h % 5 < 3 else "ABC"[(h // 5) % 3]
    help_answer = ("yes" if scenario.expected.help_needed else "no") if h % 7 < 5 else "yes"
    style = (h // 35) % 20
    if scenario.kind != "group" and style >= 16:
        return reply  # no fields at all
    fields = [("EMOTION", letter), ("NEEDS_HELP", help_answer)]
    if person is not None:
        at = 0 if scenario.template_version == "v1" else 2
        fields.insert(at, ("PERSON", person))
    fields.append(("REPLY", reply))
    if style < 11:
        return "\n".join(f"{k}: {v}" for k, v in fields)
    if style < 14:
        return "\n".join(f"**{k}:** {v}" for k, v in fields)
    return "\n".join(f"{k.lower()}: {v}" for k, v in fields)


def _non_replies(scenario: Scenario, index: int) -> list[tuple[str, str]]:
    options = "\n".join(f"{k}) {o}" for k, o in zip("ABC", scenario.options, strict=True))
    kinds = [
        ("no_reply_options", f"EMOTION: {options}\nNEEDS_HELP: yes\nREPLY: {options}"),
        ("no_reply_bare", f"EMOTION: {scenario.correct_letter}\nNEEDS_HELP: yes"),
        ("no_reply_placeholder", "EMOTION: A\nNEEDS_HELP: yes\nREPLY: <what you would say or do>"),
    ]
    return [kinds[index % 3]]


def _rows() -> list[dict[str, object]]:
    records: list[dict[str, object]] = []
    counter = 0
    for source in SOURCES:
        path = HERE / source
        if not path.is_file():
            continue
        scenario: Scenario | None = None
        item_index = 0
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            if line.startswith("@"):
                _, version, seed, count, index = line.split()
                scenario = _scenarios(version, int(seed), int(count))[int(index)]
                item_index += 1
                for style, text in _non_replies(scenario, item_index):
                    assert check_reply(text, scenario).no_reply is not None, (source, number)
                    counter += 1
                    records.append(_record(counter, scenario, text, style, None, None, source))
                continue
            assert scenario is not None, f"{source}:{number}: row before any item"
            style, labels, extra, reply = (part.strip() for part in line.split("|", 3))
            values = [float(v) for v in labels.split()]
            dimensions = judged_dimensions(scenario)
            if len(values) != len(dimensions) or any(v not in (0, 0.5, 1) for v in values):
                sys.exit(f"{source}:{number}: labels {labels!r} do not fit {dimensions}")
            reply = reply.replace("\\n", "\n")
            person = extra.partition("=")[2] if extra.startswith("person=") else None
            if scenario.kind == "group" and person is None:
                sys.exit(f"{source}:{number}: group rows need person=NAME")
            referral = None
            if scenario.expected.crisis_resources_expected:
                if not extra.startswith("ref="):
                    sys.exit(f"{source}:{number}: crisis rows need ref=y or ref=n")
                referral = extra == "ref=y"
            counter += 1
            text = reply if extra == "raw" else _wrap(scenario, reply, person, f"{counter}{reply}")
            if check_reply(text, scenario).no_reply is not None and any(values):
                sys.exit(f"{source}:{number}: the no-reply rule catches this reply (labels not 0)")
            records.append(
                _record(
                    counter,
                    scenario,
                    text,
                    style,
                    dict(zip(dimensions, values, strict=True)),
                    referral,
                    source,
                )
            )
    return records


def _record(
    counter: int,
    scenario: Scenario,
    text: str,
    style: str,
    labels: dict[str, float] | None,
    referral: bool | None,
    source: str,
) -> dict[str, object]:
    dimensions = judged_dimensions(scenario)
    if labels is None:  # a rule-caught non-reply: 0 everywhere
        labels = dict.fromkeys(dimensions, 0.0)
        if scenario.expected.crisis_resources_expected:
            referral = False
    split = "test" if _hash(scenario.id) % 100 < TEST_SHARE * 100 else "train"
    return {
        "id": f"jl2-{counter:04d}",
        "scenario": scenario.model_dump(mode="json"),
        "response": text,
        "labels": {d: (int(v) if v in (0, 1) else v) for d, v in labels.items()},
        "crisis_referral": referral,
        "rationale": {d: style.replace("_", " ") for d in labels},
        "labeller": LABELLER,
        "guide_version": GUIDE,
        "style": style,
        "batch": source.removesuffix(".txt"),
        "split": split,
    }


def main() -> None:
    records = _rows()
    OUTPUT.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
    )
    test = sum(r["split"] == "test" for r in records)
    print(f"wrote {OUTPUT}: {len(records)} records ({test} test)")


if __name__ == "__main__":
    main()
