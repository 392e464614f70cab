"""Guided answers of the bundled local model: decoding defaults, therapy length, run quality.

Three measurements (each prints a table and merges its section into
benchmarks/results/guided_answers.json):

- ``grid``: the first ``--items`` standard-v1 items answered guided under each
  (repetition_penalty, no_repeat_ngram) pair: reply words, share of replies with at least
  5 words, distinct-2 over the pooled replies, repeated trigrams within a reply, replies cut
  at max_tokens, wall time.
- ``therapy``: the first ``--items`` bundled therapy questions (therapist prompt, max 640
  tokens) answered free (the old behaviour) and guided under a few (repetition_penalty,
  no_repeat_ngram) pairs: answer tokens and words, distinct-2, repeated trigrams, answers
  that ran to the limit, wall time.
- ``scoring``: emotion accuracy on the first ``--items`` standard-v1 items when options are
  scored as the letter (``B``), letter and text (``B) sad``) or text (``sad``), each summed
  or averaged per token (the person of a group item is given as the key's, so only the
  emotion choice varies; one prefill per item, the nine continuations scored together).
- ``runs DIR…``: finished run directories (any suite): share of EMOTION and NEEDS_HELP
  answers parsed, share of outputs with a real reply of at least 5 words (the parsed REPLY,
  else what is left after field and option lines), emotion and help accuracy, wall time;
  outputs the no-reply rule catches, and **near copies**: replies the rule passes whose first
  sentence shares at least half of its word bigrams with one quoted line of the scene (a ban
  on copying could turn a copy into a near copy the rule misses), with their ids.

CPU seconds and the load average are recorded: other processes on a small machine change
wall times a lot.

    python benchmarks/guided_answers.py grid [--items 20]
    python benchmarks/guided_answers.py therapy [--items 5]
    python benchmarks/guided_answers.py scoring [--items 100]
    python benchmarks/guided_answers.py runs runs/before runs/after
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results" / "guided_answers.json"
GRID = [(1.0, 0), (1.0, 3), (1.2, 0), (1.2, 3), (1.3, 3), (1.5, 3)]
THERAPY_GRID = [(1.0, 3), (1.2, 0), (1.2, 3), (1.3, 3)]
_FIELD_LINE = re.compile(
    r"^\s*[*_#]*\s*(?:\d+[.)]\s*)?(person|emotion|needs?[ _-]?help|reply)\s*[*_]*\s*[:\-=]",
    re.IGNORECASE,
)
_OPTION_LINE = re.compile(r"^\s*[\(\[]?[A-Ea-e][\)\].:](\s|$)")


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def text_measures(texts: list[str]) -> dict[str, Any]:
    from empathybench.analysis.text_metrics import distinct_n, repeated_ngram_share, words

    tokens = [words(text) for text in texts]
    n = max(len(texts), 1)
    return {
        "words_mean": round(sum(len(t) for t in tokens) / n, 1),
        "at_least_5_words": round(sum(len(t) >= 5 for t in tokens) / n, 3),
        "distinct_2": round(distinct_n(tokens, 2) or 0.0, 3),
        "repeated_trigrams": round(sum(repeated_ngram_share(t, 3) for t in tokens) / n, 3),
    }


async def answer(model_id: str, options: dict[str, Any], requests: list[Any]) -> dict[str, Any]:
    """Send ``requests`` concurrently (one batch) after loading the model; time them."""
    from empathybench.models.base import ModelRequest
    from empathybench.models.registry import create_model, parse_model_id

    model = create_model(parse_model_id(model_id, options={"batch_size": 100, **options}))
    first: ModelRequest = requests[0]
    await model.generate(
        first.model_copy(
            update={"guide": None, "params": first.params.model_copy(update={"max_tokens": 1})}
        )
    )
    load, cpu, started = os.getloadavg()[0], cpu_seconds(), time.perf_counter()
    outputs = await asyncio.gather(*(model.generate(request) for request in requests))
    return {
        "outputs": outputs,
        "wall_s": round(time.perf_counter() - started, 1),
        "cpu_s": round(cpu_seconds() - cpu, 1),
        "load_avg_1m": [round(load, 2), round(os.getloadavg()[0], 2)],
    }


def grid(items: int) -> dict[str, Any]:
    from empathybench.judging.answer_parser import parse_answer
    from empathybench.models.base import GenerationParams, ModelRequest
    from empathybench.runner import item_guide
    from empathybench.scenarios.suites import load_suite

    scenarios = list(load_suite("standard-v1").scenarios)[:items]
    requests = [
        ModelRequest(
            messages=s.messages,
            params=GenerationParams(max_tokens=160),
            guide=item_guide(s, s.messages),
        )
        for s in scenarios
    ]
    rows = []
    for penalty, ngram in GRID:
        options = {"repetition_penalty": penalty, "no_repeat_ngram": ngram}
        result = asyncio.run(answer("local/smollm2", options, requests))
        replies = [
            (parse_answer(o.text, s.options).reply or "").strip('"')
            for o, s in zip(result.pop("outputs"), scenarios, strict=True)
        ]
        rows.append({**options, **text_measures(replies), **result})
        print(json.dumps(rows[-1]), flush=True)
    return {"items": items, "suite": "standard-v1", "max_tokens": 160, "rows": rows}


def therapy(items: int) -> dict[str, Any]:
    from empathybench.models.base import GenerationParams, ModelRequest
    from empathybench.prompts.answer_guide import answer_guide
    from empathybench.therapy.prompt import THERAPIST_MAX_TOKENS
    from empathybench.therapy.questions import BUNDLED_SAMPLE, load_questions

    questions = load_questions(BUNDLED_SAMPLE, limit=items).items
    params = GenerationParams(max_tokens=THERAPIST_MAX_TOKENS)
    rows = []
    runs: list[tuple[str, dict[str, Any]]] = [("free", {})]
    runs += [("guided", {"repetition_penalty": p, "no_repeat_ngram": n}) for p, n in THERAPY_GRID]
    for mode, options in runs:
        requests = [
            ModelRequest(
                messages=q.messages,
                params=params,
                guide=answer_guide(q.messages) if mode == "guided" else None,
            )
            for q in questions
        ]
        result = asyncio.run(answer("local/smollm2", options, requests))
        outputs = result.pop("outputs")
        rows.append(
            {
                "mode": mode,
                **options,
                "tokens_mean": round(sum(o.output_tokens or 0 for o in outputs) / len(outputs), 1),
                "hit_limit": sum(o.stop_reason == "length" for o in outputs),
                **text_measures([o.text for o in outputs]),
                **result,
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    return {"items": items, "max_tokens": THERAPIST_MAX_TOKENS, "rows": rows}


def scoring(items: int) -> dict[str, Any]:
    import torch

    from empathybench.models.local_weights import load_model, resolve_source
    from empathybench.scenarios.suites import load_suite

    model, tokenizer = load_model(*resolve_source("smollm2"))

    def encode(text: str) -> list[int]:
        return list(tokenizer(text, add_special_tokens=False).input_ids)

    variants = {
        "letter": "{letter}",
        "letter+text": "{letter}) {option}",
        "text": "{option}",
    }
    scenarios = list(load_suite("standard-v1").scenarios)[:items]
    hits = {f"{v}/{c}": 0 for v in variants for c in ("sum", "mean")}
    picks: dict[str, dict[str, int]] = {k: {"A": 0, "B": 0, "C": 0} for k in hits}
    cpu, started = cpu_seconds(), time.perf_counter()
    with torch.inference_mode():
        for scenario in scenarios:
            messages = [m.model_dump() for m in scenario.messages]
            ids = list(
                tokenizer.apply_chat_template(
                    messages, add_generation_prompt=True, tokenize=True, return_dict=False
                )
            )
            person = f"PERSON: {scenario.focus_person}\n" if scenario.kind == "group" else ""
            ids += encode(f"{person}EMOTION:")
            out = model(input_ids=torch.tensor([ids]), use_cache=True)
            cache, first = out.past_key_values, out.logits[0, -1].float().log_softmax(-1)
            continuations = [
                (name, letter, encode(" " + form.format(letter=letter, option=option)))
                for name, form in variants.items()
                for letter, option in zip("ABC", scenario.options, strict=True)
            ]
            width = max(len(c) for *_, c in continuations)
            cache.batch_repeat_interleave(len(continuations))
            batch = torch.zeros((len(continuations), width), dtype=torch.long)
            for row, (*_, tokens) in enumerate(continuations):
                batch[row, : len(tokens)] = torch.tensor(tokens)
            log_probs = (
                model(
                    input_ids=batch,
                    attention_mask=torch.ones((len(continuations), len(ids) + width)),
                    past_key_values=cache,
                    position_ids=torch.arange(len(ids), len(ids) + width)[None].expand(
                        len(continuations), -1
                    ),
                    use_cache=True,
                )
                .logits.float()
                .log_softmax(-1)
            )
            scores: dict[str, dict[str, tuple[float, float]]] = {}
            for row, (name, letter, tokens) in enumerate(continuations):
                total = float(first[tokens[0]]) + sum(
                    float(log_probs[row, i - 1, tokens[i]]) for i in range(1, len(tokens))
                )
                scores.setdefault(name, {})[letter] = (total, total / len(tokens))
            for name, by_letter in scores.items():
                for index, combine in enumerate(("sum", "mean")):
                    best = max(by_letter, key=lambda letter: by_letter[letter][index])
                    hits[f"{name}/{combine}"] += best == scenario.correct_letter
                    picks[f"{name}/{combine}"][best] += 1
    n = len(scenarios)
    section = {
        "items": n,
        "accuracy": {key: round(value / n, 3) for key, value in hits.items()},
        "picks": picks,
        "key_letters": {x: sum(s.correct_letter == x for s in scenarios) for x in "ABC"},
        "wall_s": round(time.perf_counter() - started, 1),
        "cpu_s": round(cpu_seconds() - cpu, 1),
    }
    print(json.dumps(section), flush=True)
    return section


def reply_of(text: str, parsed_reply: str | None) -> str:
    """The parsed REPLY; without one, what is left after field and option lines."""
    if parsed_reply:
        return parsed_reply
    lines = text.splitlines()
    return " ".join(x for x in lines if not _FIELD_LINE.match(x) and not _OPTION_LINE.match(x))


def near_copy(reply: str, prompt: str) -> bool:
    """The reply's first sentence shares at least half its word bigrams with one quoted line
    of the prompt (a scene line or a note)."""
    from empathybench.analysis.text_metrics import words
    from empathybench.judging.no_reply import quoted_lines, sentences

    first = next(iter(sentences(reply)), ())
    grams = {first[i : i + 2] for i in range(len(first) - 1)}
    if not grams:
        return False
    for quoted in quoted_lines(prompt):
        line = words(quoted)
        if len(grams & {tuple(line[i : i + 2]) for i in range(len(line) - 1)}) * 2 >= len(grams):
            return True
    return False


def runs(directories: list[Path]) -> dict[str, Any]:
    from empathybench.judging.answer_parser import parse_answer
    from empathybench.judging.no_reply import check_reply
    from empathybench.runtime.run_store import RunStore
    from empathybench.scenarios.suites import load_suite

    rows = []
    for directory in directories:
        store = RunStore(directory)
        manifest = store.read_manifest()
        suite = {s.id: s for s in load_suite(manifest.suite.source).scenarios}
        responses = list(store.latest_responses().values())
        n = len(responses)
        parsed = [
            (suite[r.scenario_id], parse_answer(r.text or "", suite[r.scenario_id].options), r)
            for r in responses
        ]
        replies = [reply_of(r.text or "", p.reply).strip('"') for _, p, r in parsed]
        caught = [s.id for s, _, r in parsed if check_reply(r.text, s).no_reply is not None]
        near = [
            s.id
            for (s, _, r), reply in zip(parsed, replies, strict=True)
            if s.id not in caught and near_copy(reply, s.messages[-1].content)
        ]
        rows.append(
            {
                "run": str(directory),
                "suite": manifest.suite.name,
                "options": manifest.model.options,
                "answer_mode": manifest.answer_mode,
                "no_reply": len(caught),
                "near_copies": len(near),
                "no_reply_or_near_copy_ids": caught + near,
                "items": n,
                "emotion_parsed": round(sum(p.letter is not None for _, p, _ in parsed) / n, 3),
                "help_parsed": round(sum(p.needs_help is not None for _, p, _ in parsed) / n, 3),
                "reply_at_least_5_words": text_measures(replies)["at_least_5_words"],
                "emotion_accuracy": round(
                    sum(p.letter == s.correct_letter for s, p, _ in parsed) / n, 3
                ),
                "help_accuracy": round(
                    sum(p.needs_help == s.expected.help_needed for s, p, _ in parsed) / n, 3
                ),
                "output_tokens_mean": round(sum(r.usage.output_tokens for *_, r in parsed) / n, 1),
                **{k: v for k, v in text_measures(replies).items() if k != "at_least_5_words"},
                "run_wall_s": manifest.totals.wall_s,
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    return {"rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=["grid", "therapy", "scoring", "runs"])
    parser.add_argument("directories", nargs="*", type=Path)
    parser.add_argument("--items", type=int, default=None)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    if args.what == "grid":
        section = grid(args.items or 20)
    elif args.what == "therapy":
        section = therapy(args.items or 5)
    elif args.what == "scoring":
        section = scoring(args.items or 100)
    else:
        section = runs(args.directories)
    section["cpus"] = os.cpu_count()
    results = json.loads(args.out.read_text()) if args.out.is_file() else {}
    results[args.what] = section
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
