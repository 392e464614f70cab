"""A design experiment for template v6: keys that follow from a match, not from a phrase.

Template v5 files each person's words in a note under a number; a reader that follows the
number to the note and memorises the note reads 0.98-0.99 of v5's emotion keys (the audit's
``linked-note`` baseline), because every note belongs to one emotion. This script tests a
design in which no text belongs to one key:

- each person's note says which of a family's three outcomes they *want*, which they *dread*
  (an everyday cost) and which they have *never tried*, and at which of two places they
  would need the helper's one practical help;
- an announcement (the board) then gives each number an outcome and a place;
- the key is ``delighted`` / ``frustrated`` / ``nervous`` as the outcome is the wanted, the
  dreaded or the untried one, and "needs help" exactly when the place is the one named.

Every draw is independent and uniform, so a note, a board entry and every phrase appear with
every key. The content is a prototype outside the package: ``benchmarks/prototypes/v6_stakes``
(per round: one family by the maintainer, eight by two writers who saw only that round's
writing guide; round 1 failed its reading, round 2 follows a revised guide; see
benchmarks/preregistrations/template-v6-prototype.md).
Only single-person items are drawn (no group, belief, crisis or role-play items yet).

It trains the audit's readers on ``--train-n`` items and reports their accuracy on fresh sets
beside chance, plus two readers that are handed the template's structure: ``linked
note+board`` (the asked person's note and their board entry, bag of words, linear) and
``note x board pairs`` (every note word or bigram paired with every board-entry word: a
quadratic reader that can learn which words match). ``--sheet`` writes a blind reading sheet
(``--sheet-per-family`` items per family, keys to a separate file); ``--reading`` scores a
reader's answers against those keys. Writes benchmarks/results/template_v6_prototype_ROUND.json.

    python benchmarks/template_v6_prototype.py [--round round1|round2|round3] [--train-n 3000]
        [--seeds 27 28 29]
        [--sheet DIR --sheet-seed 33] [--reading ANSWERS.jsonl KEYS.json]

The defaults are round 3's registered seeds; round 1 ran with ``--seeds 21 22 23`` and
``--sheet-seed 31``, round 2 with ``--seeds 24 25 26`` and ``--sheet-seed 32``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import subprocess
import time
from collections import Counter
from itertools import pairwise
from pathlib import Path
from typing import Any

import yaml

from empathybench.audit.limits import EMOTION_MAX_ACCURACY, HELP_MAX_MARGIN
from empathybench.audit.ngram import (
    NUMBER,
    NgramChoice,
    NgramLinkedNote,
    _linked_note_text,
)
from empathybench.audit.visible import SceneLine, VisibleItem, asked_person, names_pattern
from empathybench.prompts.scenario_prompt import PROMPT_VERSION_V2, render_prompt, render_turns
from empathybench.scenarios.episode_templates import load_episode_templates

ROOT = Path(__file__).resolve().parent
PROTOTYPES = ROOT / "prototypes" / "v6_stakes"
ROUNDS = ("round1", "round2", "round3")

ATTITUDES = ("want", "dread", "unknown")
EMOTION = {"want": "delighted", "dread": "frustrated", "unknown": "nervous"}
OPTIONS = ["delighted", "frustrated", "nervous"]
ARRIVALS = [
    "I'm {ref}.",
    "Mine's {ref}.",
    "That's me, number {ref}.",
    "{ref} is mine.",
    "I'm down as {ref}.",
]


def load_families(directory: Path) -> list[dict[str, Any]]:
    families: list[dict[str, Any]] = []
    for path in sorted(directory.glob("*.yaml"), key=lambda p: (not p.name.startswith("x_"), p)):
        families += yaml.safe_load(path.read_text(encoding="utf-8"))
    return families


def content_sha256(directory: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(directory.glob("*.yaml")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _capital(text: str) -> str:
    return text[0].upper() + text[1:]


DISTINCT_FROM = "round3"
"""From round 3 (amendment 2) the three people get three different values, and a phrasing is
not repeated within an item while unused ones remain; rounds 1 and 2 draw as they did."""


def _phrasing(
    family: dict[str, Any], value: int, attitude: str, rng: random.Random, used: set[str] | None
) -> str:
    """One sentence of a note: round 1 fills a family-wide phrasing with the value's name;
    later rounds draw from the value's own phrasings (reasons that fit that value), from
    round 3 preferring those not yet ``used`` in the item."""
    if attitude in family:
        return str(rng.choice(family[attitude])).replace("{v}", family["values"][value]["say"])
    pool = [str(text) for text in family["values"][value][attitude]]
    if used is not None:
        pool = [text for text in pool if text not in used] or pool
    chosen = rng.choice(pool)
    if used is not None:
        used.add(chosen)
    return chosen


def draw_item(
    family: dict[str, Any], rng: random.Random, people: list[Any], distinct: bool = False
) -> dict[str, Any]:
    """One single-person item: three people, their notes, the board, and the keys."""
    cast = rng.sample(people, 3)
    refs = rng.sample(range(100, 1000), 3)
    outcome_values = rng.sample(range(3), 3) if distinct else None
    used: set[str] | None = set() if distinct else None
    persons = []
    for index, (person, ref) in enumerate(zip(cast, refs, strict=True)):
        values = dict(zip(ATTITUDES, rng.sample(range(3), 3), strict=True))
        if outcome_values is None:
            outcome = rng.choice(ATTITUDES)
        else:
            outcome = next(a for a in ATTITUDES if values[a] == outcome_values[index])
        place, need_place = rng.randrange(2), rng.randrange(2)
        sentences = [
            _capital(_phrasing(family, values[attitude], attitude, rng, used))
            for attitude in rng.sample(ATTITUDES, 3)
        ]
        need = rng.choice(family["need"]).replace("{p}", family["places"][need_place]["say"])
        persons.append(
            {
                "name": person.name,
                "ref": ref,
                "values": values,
                "outcome": outcome,
                "place": place,
                "need_place": need_place,
                "note": " ".join(sentences) + " " + _capital(need),
            }
        )
    focus = rng.randrange(3)
    names = [p["name"] for p in persons]
    intro_names = [names[j] for j in rng.sample(range(3), 3)]
    listed = f"{intro_names[0]}, {intro_names[1]} and {intro_names[2]}"
    turns = [("narration", rng.choice(family["intros"]).replace("{names}", listed))]
    for j in rng.sample(range(3), 3):
        turns.append((names[j], rng.choice(ARRIVALS).replace("{ref}", str(persons[j]["ref"]))))
    turns.append(("narration", rng.choice(family["headers"])))
    by_number = sorted(range(3), key=lambda j: persons[j]["ref"])
    turns += [("narration", f'{persons[j]["ref"]}: "{persons[j]["note"]}"') for j in by_number]
    entries = "; ".join(
        family["entry"]
        .replace("{ref}", str(persons[j]["ref"]))
        .replace("{v}", family["values"][persons[j]["values"][persons[j]["outcome"]]]["board"])
        .replace("{p}", family["places"][persons[j]["place"]]["board"])
        for j in by_number
    )
    turns.append(("narration", rng.choice(family["boards"]).replace("{entries}", entries)))
    options = OPTIONS[:]
    rng.shuffle(options)
    asked = persons[focus]
    _, user = render_prompt(
        "emotion_support",
        family["scene"],
        family["helper_role"],
        turns,
        names[focus],
        options,
        PROMPT_VERSION_V2,
    )
    return {
        "family": family["id"],
        "turns": turns,
        "names": names,
        "focus": names[focus],
        "options": options,
        "emotion": EMOTION[asked["outcome"]],
        "help": "yes" if asked["place"] == asked["need_place"] else "no",
        "user": user,
        "persons": persons,
    }


def draw_set(
    families: list[dict[str, Any]], n: int, seed: int, distinct: bool = False
) -> list[dict[str, Any]]:
    """``n`` items, the families in turn."""
    rng = random.Random(seed)
    people = load_episode_templates("v4").people
    return [draw_item(families[i % len(families)], rng, people, distinct) for i in range(n)]


def visible(item: dict[str, Any], question: str) -> VisibleItem:
    """What a reader sees of an item, as the audit builds it from a record."""
    names = tuple(item["names"])
    pattern = names_pattern(names)
    assert pattern is not None
    lines = []
    for speaker, text in item["turns"]:
        rendered = render_turns([(speaker, text)])
        named = {m.group(0) for m in pattern.finditer(rendered)}
        who = speaker if speaker in names else None
        if who:
            named.add(who)
        lines.append(SceneLine(who, rendered, tuple(n for n in names if n in named)))
    return VisibleItem(
        prompt=item["user"],
        scene="\n".join(render_turns([turn]) for turn in item["turns"]),
        lines=tuple(lines),
        options=tuple(item["options"]),
        names=names,
        candidates=tuple(item["options"]) if question == "emotion" else ("yes", "no"),
        asked=asked_person(item["user"], names),
    )


# The prototype's own linking readers, kept as they ran so its recorded rounds reproduce; the
# package's audit has its own (``NgramLinkedBoard``, ``NgramLinkedNoteBoard``) for v6 items.
def board_entry(view: VisibleItem, person: str) -> str:
    """The board's entry for the number ``person`` says, without the number."""
    said = {n for line in view.lines if line.speaker == person for n in NUMBER.findall(line.text)}
    entries = []
    for segment in re.split(r";\s*", view.lines[-1].text):
        match = re.search(r"(\d{3}):\s*(.*)", segment)
        if match and match.group(1) in said:
            entries.append(match.group(2).rstrip("."))
    return " ".join(entries)


class LinkedBoard(NgramChoice):
    name = "linked-board entry"
    description = "bag of words of the board entry under the asked person's number"

    def _text(self, item: VisibleItem) -> str:
        return board_entry(item, item.asked) if item.asked else ""


class LinkedNoteBoard(NgramChoice):
    name = "linked note+board"
    description = "bag of words of the asked person's note and board entry (linear)"

    def _text(self, item: VisibleItem) -> str:
        if not item.asked:
            return ""
        entry = re.findall(r"\w+", board_entry(item, item.asked).lower())
        return _linked_note_text(item, item.asked) + "\n" + " ".join(f"board_{w}" for w in entry)


class NoteBoardPairs(NgramChoice):
    name = "note x board pairs"
    description = "every note word or bigram paired with every board-entry word (quadratic)"

    def _text(self, item: VisibleItem) -> str:
        if not item.asked:
            return ""
        note = re.findall(r"[a-z]+", _linked_note_text(item, item.asked).lower())
        grams = set(note) | {f"{a}_{b}" for a, b in pairwise(note)}
        entry = set(re.findall(r"[a-z]+", board_entry(item, item.asked).lower()))
        return " ".join(f"{g}__{e}" for g in sorted(grams) for e in sorted(entry))


READERS = (NgramChoice, NgramLinkedNote, LinkedBoard, LinkedNoteBoard, NoteBoardPairs)
GATED = ("ngram", "linked-note", "linked-board entry", "linked note+board")


def audit(train: list[dict[str, Any]], fresh: dict[int, list[dict[str, Any]]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for question in ("emotion", "help"):
        views = [visible(item, question) for item in train]
        keys = [item[question] for item in train]
        rows = []
        for reader_class in READERS:
            reader = reader_class()
            reader.fit(views, keys)
            per_seed = {}
            for seed, items in fresh.items():
                predictions = reader.predict_many([visible(item, question) for item in items])
                hits = sum(p == item[question] for p, item in zip(predictions, items, strict=True))
                per_seed[seed] = round(hits / len(items), 4)
            rows.append(
                {"reader": reader.name, "gated": reader.name in GATED, "accuracy": per_seed}
            )
        chance = {
            seed: round(
                max(Counter(i["help"] for i in items).values()) / len(items)
                if question == "help"
                else 1 / 3,
                4,
            )
            for seed, items in fresh.items()
        }
        limit = {
            seed: round(EMOTION_MAX_ACCURACY if question == "emotion" else c + HELP_MAX_MARGIN, 4)
            for seed, c in chance.items()
        }
        passed = all(
            row["accuracy"][seed] <= limit[seed] + 1e-12
            for row in rows
            if row["gated"]
            for seed in fresh
        )
        out[question] = {"chance": chance, "limit": limit, "readers": rows, "gated_pass": passed}
    return out


def write_sheet(
    families: list[dict[str, Any]], directory: Path, seed: int, per_family: int, distinct: bool
) -> None:
    """A blind reading sheet (the prompts without the answer format) and, apart, its keys."""
    rng = random.Random(seed)
    people = load_episode_templates("v4").people
    items = [
        draw_item(family, rng, people, distinct) for family in families for _ in range(per_family)
    ]
    rng.shuffle(items)
    directory.mkdir(parents=True, exist_ok=True)
    sheet = [f"# Reading sheet: {len(items)} items\n\n"]
    keys = []
    for number, item in enumerate(items, 1):
        question = item["user"].split("\n\nAnswer in exactly")[0]
        sheet.append(f"## Item {number}\n\n{question}\n\n")
        keys.append(
            {
                "item": number,
                "family": item["family"],
                "emotion": item["emotion"],
                "help": item["help"],
            }
        )
    (directory / "sheet.md").write_text("".join(sheet), encoding="utf-8")
    (directory / "keys.json").write_text(json.dumps(keys, indent=1), encoding="utf-8")


def score_reading(answers_path: Path, keys_path: Path) -> dict[str, Any]:
    keys = {k["item"]: k for k in json.loads(keys_path.read_text(encoding="utf-8"))}
    answers = [
        json.loads(line)
        for line in answers_path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    rows = []
    for answer in answers:
        key = keys[answer["item"]]
        rows.append(
            {
                "item": answer["item"],
                "family": key["family"],
                "emotion_agrees": answer["emotion"].strip().lower() == key["emotion"],
                "help_agrees": answer["help"].strip().lower() == key["help"],
                "valid": bool(answer["valid"]),
                "problems": answer.get("problems", ""),
            }
        )
    return {
        "items": len(rows),
        "valid": sum(r["valid"] for r in rows),
        "emotion_agrees": sum(r["emotion_agrees"] for r in rows),
        "help_agrees": sum(r["help_agrees"] for r in rows),
        "per_family": {
            family: {
                "items": sum(r["family"] == family for r in rows),
                "valid": sum(r["valid"] for r in rows if r["family"] == family),
                "emotion_agrees": sum(r["emotion_agrees"] for r in rows if r["family"] == family),
                "help_agrees": sum(r["help_agrees"] for r in rows if r["family"] == family),
            }
            for family in sorted({r["family"] for r in rows})
        },
        "rows": rows,
    }


def _commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()

    return git("rev-parse", "--short", "HEAD") + ("+dirty" if git("status", "--porcelain") else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--round", choices=ROUNDS, default=ROUNDS[-1], help="which content")
    parser.add_argument("--train-n", type=int, default=3000)
    parser.add_argument("--train-seed", type=int, default=424242)
    parser.add_argument("--fresh-n", type=int, default=1000)
    parser.add_argument("--seeds", type=int, nargs="*", default=[27, 28, 29])
    parser.add_argument("--sheet", type=Path, help="write a blind reading sheet here")
    parser.add_argument("--sheet-seed", type=int, default=33)
    parser.add_argument("--sheet-per-family", type=int, default=5)
    parser.add_argument("--reading", type=Path, nargs=2, metavar=("ANSWERS", "KEYS"))
    parser.add_argument("--reading-note", default="")
    parser.add_argument("--out", type=Path, help="default: results/template_v6_prototype_ROUND")
    args = parser.parse_args()
    content = PROTOTYPES / args.round
    args.out = args.out or ROOT / "results" / f"template_v6_prototype_{args.round}.json"
    families = load_families(content)
    distinct = ROUNDS.index(args.round) >= ROUNDS.index(DISTINCT_FROM)
    if args.sheet:
        write_sheet(families, args.sheet, args.sheet_seed, args.sheet_per_family, distinct)
        print(f"wrote {args.sheet / 'sheet.md'} and its keys")
        return
    result: dict[str, Any] = json.loads(args.out.read_text()) if args.out.exists() else {}
    if args.reading:
        result["reading"] = {"note": args.reading_note, **score_reading(*args.reading)}
        summary = {k: v for k, v in result["reading"].items() if k not in ("rows", "per_family")}
        print(json.dumps(summary, indent=1))
    else:
        started = time.perf_counter()
        train = draw_set(families, args.train_n, args.train_seed, distinct)
        fresh = {seed: draw_set(families, args.fresh_n, seed, distinct) for seed in args.seeds}
        result["audit"] = audit(train, fresh)
        result["setup"] = {
            "families": [f["id"] for f in families],
            "content": str(content.relative_to(ROOT.parent)),
            "content_sha256": content_sha256(content),
            "train": {"n": args.train_n, "seed": args.train_seed},
            "fresh": {"n": args.fresh_n, "seeds": args.seeds},
            "commit": _commit(),
            "seconds": round(time.perf_counter() - started, 1),
        }
        for question, block in result["audit"].items():
            print(f"{question}: chance {block['chance']}, limit {block['limit']}")
            for row in block["readers"]:
                accuracies = " ".join(f"{a:.3f}" for a in row["accuracy"].values())
                print(
                    f"  {row['reader']:24s} {'gated' if row['gated'] else 'info ':5s} {accuracies}"
                )
            print(f"  gated readers within the limit on every set: {block['gated_pass']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
