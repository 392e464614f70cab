"""Guided answers on the in-process local model: fields by option likelihood, then a reply.

For a batch of guided jobs the engine prefills the prompts once (shared prefix computed once,
KV cache kept), then for each field in the guide's order:

1. feeds the field's label (``EMOTION:``) and whatever all its values share;
2. scores every value by its tokens' log-probabilities after that text, as lm-eval-harness
   scores multiple choice: averaged per token by default (``choice_score=mean``; ``sum`` is
   the unnormalised total). A lettered option is scored as its option line (``B) sad``, see
   ``prompts.answer_guide``), yes/no and names as themselves. The first token of every value
   is read from the logits already there; values with more tokens need one forward per
   alternative, rolled back afterwards. When one value's tokens begin another's ("Ann",
   "Anna") the newline after the value is scored too;
3. keeps the best value (at temperature > 0 samples from the softmax of the scores), then
   writes ``" value\n"`` (the letter, not the scored text) into the cache.

Then it feeds the reply label, an opening quote and the name of the person the reply is for
(``REPLY: "Budi,``: the prompt asks for the actual words said to them; a group item's person
is the one the answer chose, and with nobody chosen only the quote is fed). The answer text
keeps the quote but not the name: the name is the engine's, and the offline judge reads a
reply that names its person as better (naming the right person is one of its signals; on
standard-v5 the forced name alone raised Cheering Up from 0.35 to 0.54), so judges and the
no-reply rule read only what the model wrote. Opened with a
bare quote, SmolLM2 played a person of the scene in about one reply in five ("I'm 703."); on
two fresh v5 draws the name opening left 18 of 200 non-replies in a blind reading against 43
(``benchmarks/preregistrations/guided-reply-name.md``). It then generates the reply freely,
with repetition control
(``repetition_penalty``, CTRL-style, over the reply's own tokens, and ``no_repeat_ngram``: a
token that would repeat an n-gram of the reply is banned). It stops at the end of the turn
(EOS), at ``max_tokens`` reply tokens, or before a line that opens a new field or another
speaker's turn, or a blank line followed by an option list (``guided.reply_stop``).
``no_copy_ngram`` (off by default) also bans a token that would complete a run of that many
tokens of the prompt, counting the forced opening, as ``encoder_no_repeat_ngram_size`` does for
encoder-decoder models: the reply cannot copy a scene line back. Rows
leave the batch as they finish, as in free decoding. A guide without fields (the therapy
prompt) goes straight to the free answer, with the same stopping and repetition control.
Defaults were chosen by measurement (``benchmarks/guided_answers.py``; see the README).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from empathybench.errors import UserError
from empathybench.models.base import GenerationParams, ModelOutput
from empathybench.models.guided import (
    PERSON_LABEL,
    AnswerGuide,
    cut_reply,
    render_answer,
    reply_stop,
)
from empathybench.models.kv_decode import KVBatch
from empathybench.models.local_weights import import_optional

NAME = "{name}"
"""In ``reply_opening``: the name of the person the reply is for."""
TAIL_TOKENS = 16  # the stop rules look at this many of a reply's last tokens each step


@dataclass(frozen=True)
class GuidedDecoding:
    """How guided answers are decoded (each one a local ``--option``).

    ``repetition_penalty`` and ``no_repeat_ngram`` hold back loops in the reply;
    ``no_copy_ngram`` bans runs of that many prompt tokens in it (0: off); ``choice_score``
    combines a value's token log-probabilities (``mean`` per token, or ``sum``);
    ``reply_opening`` is forced after the reply label (an opening quote and the name, as
    the prompt asks for the words said to the person); its ``{name}`` stands for the person
    the reply is for (``AnswerGuide.addressed_to``), and with no such person the opening
    is cut before it (``' "'``, the default before guided-v2).
    """

    repetition_penalty: float = 1.3
    no_repeat_ngram: int = 3
    choice_score: str = "mean"
    reply_opening: str = ' "{name},'
    no_copy_ngram: int = 0

    @classmethod
    def from_options(cls, options: dict[str, str | int | float | bool]) -> GuidedDecoding:
        penalty = float(options.get("repetition_penalty", cls.repetition_penalty))
        ngram = int(options.get("no_repeat_ngram", cls.no_repeat_ngram))
        copy = int(options.get("no_copy_ngram", cls.no_copy_ngram))
        if penalty < 1.0 or ngram < 0 or copy < 0 or copy == 1:
            raise UserError(
                "local options: repetition_penalty must be at least 1.0, no_repeat_ngram at "
                "least 0 and no_copy_ngram 0 or at least 2 (0 turns them off)"
            )
        score = str(options.get("choice_score", cls.choice_score))
        if score not in ("sum", "mean"):
            raise UserError("local option choice_score must be sum or mean")
        opening = str(options.get("reply_opening", cls.reply_opening))
        if opening.count(NAME) > 1 or "{" in opening.replace(NAME, ""):
            raise UserError(
                f"local option reply_opening: {NAME} may appear once, and no other {{…}}"
            )
        return cls(penalty, ngram, score, opening, copy)

    @property
    def shown_opening(self) -> str:
        """The part of the opening the answer text keeps: up to ``{name}`` (the quote). The
        name and what follows it are fed to the model but not recorded, so every judge, and
        the no-reply rule, read only what the model wrote after them."""
        return self.reply_opening.split(NAME)[0].lstrip()

    def opening_for(self, name: str | None) -> str:
        """The forced opening for a reply to ``name`` (None: nobody is named)."""
        if NAME not in self.reply_opening:
            return self.reply_opening
        if name is None:
            return self.reply_opening.split(NAME)[0]
        return self.reply_opening.replace(NAME, name)

    def shown_reply(self, guide: AnswerGuide, chosen: list[str], said: str) -> str:
        """The reply as the answer text records it: the shown opening, then what the model
        said (after a fed name, without the space that followed it)."""
        if guide.reply_label is None:
            return said
        named = NAME in self.reply_opening and guide.addressed_to(chosen) is not None
        return self.shown_opening + (said.lstrip() if named else said)

    def reply_prefix(self, guide: AnswerGuide, chosen: list[str]) -> str:
        """What is fed after the fields: the reply label and the opening ("" for a guide
        with no reply label)."""
        if guide.reply_label is None:
            return ""
        return f"{guide.reply_label}:{self.opening_for(guide.addressed_to(chosen))}"


def field_costs(guide: AnswerGuide, decoding: GuidedDecoding, encode: Any) -> list[int]:
    """Most tokens each field (label, value, newline) and then the reply label can take."""
    costs = []
    for field in guide.fields:
        longest = max(len(encode(f" {text}")) for text in field.choices + field.scored_texts)
        costs.append(len(encode(f"{field.label}:")) + longest + len(encode("\n")))
    if guide.reply_label is None:
        return [*costs, 0]
    names = [guide.addressee] if guide.addressee else _person_choices(guide)
    openings = {decoding.opening_for(name) for name in [None, *names]}
    return [*costs, max(len(encode(f"{guide.reply_label}:{o}")) for o in openings)]


def _person_choices(guide: AnswerGuide) -> list[str]:
    return [c for f in guide.fields if f.label == PERSON_LABEL for c in f.choices]


def batch_room(costs: list[list[int]]) -> int:
    """Cache room the fields of a batch may use: rows share positions, so every feed advances
    the cache by its longest row. A feed holds one row's previous value and its next label, so
    each step's room is bounded by that step's and the previous step's longest costs."""
    steps = max(len(row) for row in costs)
    longest = [
        max((row[step] for row in costs if step < len(row)), default=0) for step in range(steps)
    ]
    return 2 * sum(longest)


def _fill_fields(
    batch: KVBatch,
    guides: list[AnswerGuide],
    params: GenerationParams,
    decoding: GuidedDecoding,
    generators: list[Any],
    encode: Any,
) -> tuple[list[list[str]], list[int], list[list[list[float]]]]:
    """Choose every field of every row; returns the values, the tokens fed per row and each
    row's option scores per field (summed log-probabilities, before ``choice_score``)."""
    torch = import_optional("torch")
    rows = len(guides)
    chosen: list[list[str]] = [[] for _ in guides]
    scored: list[list[list[float]]] = [[] for _ in guides]
    fed = [0] * rows
    pending: list[list[int]] = [[] for _ in guides]
    newline = encode("\n")
    for step in range(max((len(g.fields) for g in guides), default=0)):
        candidates: list[list[list[int]]] = [[] for _ in guides]
        terminated = [False] * rows
        for row, guide in enumerate(guides):
            if step < len(guide.fields):
                field = guide.fields[step]
                options = [encode(f" {text}") for text in field.scored_texts]
                terminated[row] = _prefix_clash(options)
                if terminated[row]:  # "Ann" vs "Anna": score the end of the line too
                    options = [option + newline for option in options]
                shared = _shared_prefix(options)
                pending[row] += encode(f"{field.label}:") + options[0][:shared]
                candidates[row] = [option[shared:] for option in options]
        _feed(batch, pending, fed)
        log_probs = torch.log_softmax(batch.logits, dim=-1)
        scores = [
            [float(log_probs[row, option[0]]) if option else 0.0 for option in options]
            for row, options in enumerate(candidates)
        ]
        longest = max((len(c) for options in candidates for c in options), default=0)
        if longest > 1:  # multi-token values: one rolled-back forward per alternative
            for index in range(max(len(options) for options in candidates)):
                tails = [
                    options[index][:-1] if index < len(options) else [] for options in candidates
                ]
                logits = batch.extend(tails, keep=False)
                if logits is None:
                    continue
                width = logits.shape[1]
                for row, tail in enumerate(tails):
                    if not tail:
                        continue
                    option = candidates[row][index]
                    steps = torch.log_softmax(logits[row, width - len(tail) :], dim=-1)
                    scores[row][index] += float(
                        steps.gather(-1, torch.tensor(option[1:])[:, None]).sum()
                    )
        for row, guide in enumerate(guides):
            if not candidates[row]:
                continue
            scored[row].append(list(scores[row]))
            if decoding.choice_score == "mean":
                scores[row] = [
                    s / max(len(o), 1) for s, o in zip(scores[row], candidates[row], strict=True)
                ]
            best = _pick(scores[row], params.temperature, generators[row])
            field = guide.fields[step]
            chosen[row].append(field.choices[best])
            if field.scored is None:
                pending[row] = candidates[row][best] + ([] if terminated[row] else newline)
            else:  # the written value differs from the scored text
                pending[row] = encode(f" {field.choices[best]}") + newline
    for row, guide in enumerate(guides):
        pending[row] += encode(decoding.reply_prefix(guide, chosen[row]))
    _feed(batch, pending, fed)
    return chosen, fed, scored


def _feed(batch: KVBatch, pending: list[list[int]], fed: list[int]) -> None:
    batch.extend(pending)
    for row, tokens in enumerate(pending):
        fed[row] += len(tokens)
        tokens.clear()


def _prefix_clash(options: list[list[int]]) -> bool:
    """Whether one option's tokens begin another's (its sum would be unfairly high)."""
    return any(
        a is not b and len(a) < len(b) and b[: len(a)] == a for a in options for b in options
    )


def _shared_prefix(options: list[list[int]]) -> int:
    """Leading tokens all options share, leaving each at least one of its own when possible."""
    shortest = min(len(option) for option in options)
    if len(options) == 1:
        return max(shortest - 1, 0)
    for position in range(shortest - 1):
        if any(option[position] != options[0][position] for option in options):
            return position
    return max(shortest - 1, 0)


def _pick(scores: list[float], temperature: float, generator: Any) -> int:
    torch = import_optional("torch")
    if temperature == 0 or len(scores) == 1:
        return max(range(len(scores)), key=lambda index: scores[index])
    probs = torch.softmax(torch.tensor(scores) / temperature, dim=-1)
    return int(torch.multinomial(probs, 1, generator=generator))


def _control(
    logits: Any,
    rows: list[int],
    replies: list[list[int]],
    decoding: GuidedDecoding,
    copies: list[CopyBan] | None = None,
) -> Any:
    """Apply the repetition penalty and the n-gram bans to the next-token logits, in place.

    Only the reply's own tokens are touched (a few per row), so no vocabulary-wide tensor is
    allocated per step.
    """
    torch = import_optional("torch")
    if decoding.repetition_penalty != 1.0:
        pairs = [(row, token) for row, job in enumerate(rows) for token in set(replies[job])]
        if pairs:
            index = torch.tensor(pairs).T
            values = logits[index[0], index[1]]
            penalty = decoding.repetition_penalty
            logits[index[0], index[1]] = torch.where(values > 0, values / penalty, values * penalty)
    size = decoding.no_repeat_ngram
    if size:
        for row, job_row in enumerate(rows):
            banned = _banned(replies[job_row], size)
            if banned:
                logits[row, list(banned)] = float("-inf")
    if copies is not None:
        for row, job_row in enumerate(rows):
            copied = copies[job_row].banned(replies[job_row])
            if copied:
                logits[row, list(copied)] = float("-inf")
    return logits


@dataclass(frozen=True)
class CopyBan:
    """The prompt's token runs of ``size``, indexed by their first ``size - 1`` tokens; the
    reply is read after its forced ``opening`` tokens."""

    follows: dict[tuple[int, ...], frozenset[int]]
    opening: tuple[int, ...]
    size: int

    @classmethod
    def of(cls, prompt: list[int], opening: list[int], size: int) -> CopyBan:
        follows: dict[tuple[int, ...], set[int]] = {}
        for start in range(len(prompt) - size + 1):
            head = tuple(prompt[start : start + size - 1])
            follows.setdefault(head, set()).add(prompt[start + size - 1])
        frozen = {head: frozenset(tokens) for head, tokens in follows.items()}
        return cls(frozen, tuple(opening), size)

    def banned(self, reply: list[int]) -> frozenset[int]:
        """Tokens that would complete a run of the prompt after the opening and ``reply``."""
        need = self.size - 1
        head = tuple(reply[-need:])
        if len(head) < need:
            head = (self.opening + head)[-need:]
        return self.follows.get(head, frozenset())


def _banned(tokens: list[int], size: int) -> set[int]:
    """Tokens that would complete an n-gram (``size`` long) already in ``tokens``."""
    if len(tokens) < size:
        return set()
    head = tokens[len(tokens) - size + 1 :] if size > 1 else []
    return {
        tokens[start + size - 1]
        for start in range(len(tokens) - size + 1)
        if tokens[start : start + size - 1] == head
    }


def guided_decode(
    engine: Any,
    params: GenerationParams,
    decoding: GuidedDecoding,
    jobs: list[Any],
    costs: list[list[int]],
) -> None:
    """Answer every guided job of one batch (each job is resolved as its row finishes)."""
    torch = import_optional("torch")

    tokenizer = engine.tokenizer

    def encode(text: str) -> list[int]:
        return list(tokenizer(text, add_special_tokens=False).input_ids)

    guides: list[AnswerGuide] = [job.guide for job in jobs]
    with torch.inference_mode():
        spare = params.max_tokens + batch_room(costs) + 1
        batch, generators = engine.start_batch(params, jobs, spare)
        mark = time.perf_counter()
        chosen, fed, _ = _fill_fields(batch, guides, params, decoding, generators, encode)
        prefixes = [decoding.reply_prefix(g, c) for g, c in zip(guides, chosen, strict=True)]
        engine.seconds["fields"] = engine.seconds.get("fields", 0.0) + time.perf_counter() - mark
        replies: list[list[int]] = [[] for _ in jobs]

        def accept(row: int, token: int) -> bool:
            reply, stops = replies[row], guides[row].stop_labels
            ended = token in engine.eos
            if not ended:
                reply.append(token)
                tail = tokenizer.decode(reply[-TAIL_TOKENS:], skip_special_tokens=True)
                ended = reply_stop(tail, stops) is not None or len(reply) >= params.max_tokens
            if not ended:
                return True
            text = tokenizer.decode(reply, skip_special_tokens=True)
            stopped = token in engine.eos or reply_stop(text, stops) is not None
            said = decoding.shown_reply(guides[row], chosen[row], cut_reply(text, stops))
            jobs[row].resolve(
                ModelOutput(
                    text=render_answer(guides[row], chosen[row], said),
                    stop_reason="stop" if stopped else "length",
                    input_tokens=len(jobs[row].ids),
                    output_tokens=fed[row] + len(reply) + (token in engine.eos),
                    provider_model=engine.provider_model,
                )
            )
            return False

        copies = None
        if decoding.no_copy_ngram:
            copies = [
                CopyBan.of(job.ids, encode(prefix), decoding.no_copy_ngram)
                for job, prefix in zip(jobs, prefixes, strict=True)
            ]

        def control(logits: Any, rows: list[int]) -> Any:
            return _control(logits, rows, replies, decoding, copies)

        engine.decode_rows(batch, params, generators, accept, control=control)
