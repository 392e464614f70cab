"""Guided answers on the local engine, with a tiny random Llama (no downloads, seconds)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("torch", reason="needs the local extra: pip install 'empathybench[local]'")
pytest.importorskip("transformers", reason="needs the local extra")

import torch
import transformers

from empathybench.errors import UserError
from empathybench.judging.answer_parser import parse_answer
from empathybench.models import local
from empathybench.models.base import GenerationParams, ModelOutput, ModelRequest
from empathybench.models.guided import AnswerGuide, GuidedField
from empathybench.models.kv_decode import KVBatch
from empathybench.models.local_guided import (
    CopyBan,
    GuidedDecoding,
    _banned,
    _control,
    _fill_fields,
    batch_room,
    field_costs,
)
from empathybench.models.registry import parse_model_id
from empathybench.prompts.answer_guide import answer_guide
from empathybench.records import LETTERS, ChatMessage, Scenario, Suite
from empathybench.runner import RunOptions, execute_run
from empathybench.runtime.run_store import RunStore
from tests.fakes.tiny_lm import save_tiny_llama

pytestmark = pytest.mark.torch


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    local.unload_all()
    yield save_tiny_llama(tmp_path_factory.mktemp("tiny-llama"))
    local.unload_all()


def tiny_model(directory: Path, **options: str | int | float | bool) -> local.LocalModel:
    return local.LocalModel(parse_model_id(f"local/{directory}", options=options))


def guided_request(scenario: Scenario, max_tokens: int = 12) -> ModelRequest:
    return ModelRequest(
        messages=scenario.messages,
        params=GenerationParams(max_tokens=max_tokens),
        guide=answer_guide(scenario.messages, [p.name for p in scenario.participants]),
    )


def ask(model: local.LocalModel, *requests: ModelRequest) -> list[ModelOutput]:
    async def run() -> list[ModelOutput]:
        return list(await asyncio.gather(*(model.generate(r) for r in requests)))

    return asyncio.run(run())


def test_every_guided_answer_parses(tiny_dir: Path, small_suite: Suite) -> None:
    scenarios = list(small_suite.scenarios)
    outputs = ask(tiny_model(tiny_dir), *(guided_request(s) for s in scenarios))
    assert any(s.kind == "group" for s in scenarios)
    for scenario, output in zip(scenarios, outputs, strict=True):
        parsed = parse_answer(output.text, scenario.options)
        assert parsed.problems == [], output.text
        assert parsed.letter in LETTERS[: len(scenario.options)]
        assert parsed.needs_help is not None
        labels = [line.split(":")[0] for line in output.text.splitlines()[:4]]
        if scenario.kind == "group":
            assert parsed.person in [p.name for p in scenario.participants]
            assert labels == ["PERSON", "EMOTION", "NEEDS_HELP", "REPLY"]
        else:
            assert labels[:3] == ["EMOTION", "NEEDS_HELP", "REPLY"]
        assert output.text.count("REPLY:") == 1
        assert output.output_tokens is not None and output.output_tokens > 0


def test_guided_answers_do_not_depend_on_the_batch(tiny_dir: Path, small_suite: Suite) -> None:
    scenarios = list(small_suite.scenarios)[8:16]  # group and single-person items, mixed
    model = tiny_model(tiny_dir)
    alone = [ask(model, guided_request(s))[0] for s in scenarios]
    together = ask(model, *(guided_request(s) for s in scenarios))
    assert [o.text for o in together] == [o.text for o in alone]


def _log_likelihood(model: Any, ids: list[int], continuation: list[int]) -> float:
    with torch.inference_mode():
        logits = model(input_ids=torch.tensor([ids + continuation])).logits[0].float()
    log_probs = logits.log_softmax(-1)
    return sum(
        float(log_probs[len(ids) + index - 1, token]) for index, token in enumerate(continuation)
    )


def test_option_scores_equal_full_sequence_log_likelihoods(
    tiny_dir: Path, small_suite: Suite
) -> None:
    """Each option's score from the shared KV cache (one prefill, look-aheads rolled back)
    equals its log-likelihood from a plain forward over the whole sequence, within 1e-4."""
    scenarios = [s for s in small_suite.scenarios if s.kind != "group"][:5]
    model = tiny_model(tiny_dir, choice_score="sum")
    ask(model, guided_request(scenarios[0]))  # loads the engine
    engine: Any = model.engine
    jobs = sorted(
        (
            SimpleNamespace(
                ids=engine._encode([m.model_dump() for m in s.messages]),
                guide=answer_guide(s.messages, [p.name for p in s.participants]),
            )
            for s in scenarios
        ),
        key=lambda job: len(job.ids),
    )
    decoding = GuidedDecoding(choice_score="sum")
    room = batch_room([field_costs(job.guide, decoding, engine._tokens) for job in jobs]) + 1
    with torch.inference_mode():
        cache, mask, logits = engine._prefill(jobs, room)
        positions = torch.tensor([len(job.ids) - 1 for job in jobs])
        batch = KVBatch(engine.model, engine.pad, cache, mask, logits, positions)
        chosen, _, scores = _fill_fields(
            batch,
            [job.guide for job in jobs],
            GenerationParams(),
            decoding,
            [None] * len(jobs),
            engine._tokens,
        )
    auto: Any = transformers.AutoModelForCausalLM
    reference = auto.from_pretrained(tiny_dir).eval()
    checked = 0
    for job, values, row_scores in zip(jobs, chosen, scores, strict=True):
        context = list(job.ids)
        for field, value, field_scores in zip(job.guide.fields, values, row_scores, strict=True):
            context += engine._tokens(f"{field.label}:")
            expected = [
                _log_likelihood(reference, context, engine._tokens(f" {text}"))
                for text in field.scored_texts
            ]
            assert field_scores == pytest.approx(expected, abs=1e-4)
            assert value == field.choices[expected.index(max(expected))]
            context += engine._tokens(f" {value}\n")
            checked += len(expected)
    assert checked >= 5 * 5  # three emotions and yes/no per item


def test_fields_are_the_most_likely_options(tiny_dir: Path, small_suite: Suite) -> None:
    """The KV-cache scoring with look-ahead rollback agrees with plain full forwards."""
    scenarios = [s for s in small_suite.scenarios if s.kind != "group"][:6]
    outputs = ask(tiny_model(tiny_dir, choice_score="sum"), *(guided_request(s) for s in scenarios))
    auto: Any = transformers.AutoModelForCausalLM
    reference = auto.from_pretrained(tiny_dir).eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(tiny_dir)

    def encode(text: str) -> list[int]:
        return list(tokenizer(text, add_special_tokens=False).input_ids)

    for scenario, output in zip(scenarios, outputs, strict=True):
        prompt = list(
            tokenizer.apply_chat_template(
                [m.model_dump() for m in scenario.messages],
                add_generation_prompt=True,
                tokenize=True,
                return_dict=False,
            )
        )
        chosen = parse_answer(output.text, scenario.options)
        context = prompt + encode("EMOTION:")
        scores = [
            _log_likelihood(reference, context, encode(f" {letter}) {option}"))
            for letter, option in zip(LETTERS, scenario.options, strict=True)
        ]
        assert chosen.letter == LETTERS[scores.index(max(scores))]
        context = prompt + encode("EMOTION:") + encode(f" {chosen.letter}\n")
        context += encode("NEEDS_HELP:")
        yes, no = (_log_likelihood(reference, context, encode(f" {v}")) for v in ("yes", "no"))
        assert chosen.needs_help == (yes > no)


def test_therapy_prompt_gets_a_free_answer_without_fields(tiny_dir: Path) -> None:
    messages = [
        ChatMessage(
            role="user",
            content="You are an empathetic therapist.\nPatient: I feel alone.\nTherapist:",
        )
    ]
    guide = answer_guide(messages)
    assert guide.fields == [] and guide.reply_label is None
    [output] = ask(
        tiny_model(tiny_dir),
        ModelRequest(messages=messages, params=GenerationParams(max_tokens=20), guide=guide),
    )
    assert "REPLY" not in output.text and not output.text.startswith('"')
    assert output.output_tokens is not None and output.output_tokens <= 20


def reply_tokens(model: local.LocalModel, request: ModelRequest) -> list[int]:
    """The reply's token ids, as fed back one at a time during decoding (one row)."""
    ask(model, request)  # loads the weights
    fed: list[int] = []

    def record(_module: Any, _args: Any, kwargs: dict[str, Any]) -> None:
        ids = kwargs.get("input_ids")
        if ids is not None and tuple(ids.shape) == (1, 1):
            fed.append(int(ids[0, 0]))

    handle = model.engine.model.register_forward_pre_hook(record, with_kwargs=True)
    try:
        ask(model, request)
    finally:
        handle.remove()
    return fed


def repeated_ngrams(tokens: list[int], size: int) -> int:
    grams = [tuple(tokens[i : i + size]) for i in range(len(tokens) - size + 1)]
    return len(grams) - len(set(grams))


def test_no_repeat_ngram_holds_in_the_reply(tiny_dir: Path, small_suite: Suite) -> None:
    request = guided_request(small_suite.scenarios[0], max_tokens=60)
    free = reply_tokens(tiny_model(tiny_dir, no_repeat_ngram=0, repetition_penalty=1.0), request)
    held = reply_tokens(tiny_model(tiny_dir, no_repeat_ngram=2, repetition_penalty=1.0), request)
    assert len(held) > 20
    assert repeated_ngrams(free, 2) > 0  # greedy decoding of the random model loops
    assert repeated_ngrams(held, 2) == 0


def test_copy_ban_indexes_the_prompt_and_reads_through_the_opening() -> None:
    ban = CopyBan.of([5, 6, 7, 8, 6, 7, 9], opening=[1, 5], size=3)
    assert ban.banned([6, 7]) == {8, 9}  # both runs after "6 7"
    assert ban.banned([]) == set()  # "1 5" is not in the prompt
    assert ban.banned([6]) == {7}  # "5 6" reads the opening's last token
    assert ban.banned([9, 9]) == set()
    assert CopyBan.of([5, 6], opening=[], size=3).banned([5, 6]) == set()


def prompt_runs(reply: list[int], prompt: list[int], size: int) -> int:
    grams = {tuple(prompt[i : i + size]) for i in range(len(prompt) - size + 1)}
    return sum(tuple(reply[i : i + size]) in grams for i in range(len(reply) - size + 1))


def reply_after_opening(model: local.LocalModel, request: ModelRequest) -> list[int]:
    """The reply's token ids: what is fed one at a time after the feed that ends with the
    forced opening (field values fed one at a time before it are left out)."""
    ask(model, request)  # loads the weights
    feeds: list[list[int]] = []

    def record(_module: Any, _args: Any, kwargs: dict[str, Any]) -> None:
        ids = kwargs.get("input_ids")
        if ids is not None and ids.shape[0] == 1:
            feeds.append([int(token) for token in ids[0]])

    handle = model.engine.model.register_forward_pre_hook(record, with_kwargs=True)
    try:
        ask(model, request)
    finally:
        handle.remove()
    opening = model.engine.tokenizer('REPLY: "', add_special_tokens=False).input_ids
    starts = [i for i, feed in enumerate(feeds) if feed[-len(opening) :] == opening]
    return [feed[0] for feed in feeds[starts[-1] + 1 :]]


def test_no_copy_ngram_keeps_prompt_runs_out_of_the_reply(
    tiny_dir: Path, small_suite: Suite
) -> None:
    """With its own free reply pasted into the prompt, the random model copies runs of it
    back; banned, the reply (read after the opening quote) holds no prompt bigram."""
    scenario = small_suite.scenarios[0]
    plain = tiny_model(tiny_dir, no_repeat_ngram=0, repetition_penalty=1.0, reply_opening=' "')
    banned = tiny_model(
        tiny_dir, no_repeat_ngram=0, repetition_penalty=1.0, no_copy_ngram=2, reply_opening=' "'
    )
    first = reply_after_opening(plain, guided_request(scenario, max_tokens=60))
    pasted = plain.engine.tokenizer.decode(first)
    messages = [
        m.model_copy(update={"content": f"{m.content}\n{pasted}"}) if m.role == "user" else m
        for m in scenario.messages
    ]
    request = guided_request(scenario.model_copy(update={"messages": messages}), max_tokens=60)
    free, held = reply_after_opening(plain, request), reply_after_opening(banned, request)
    prompt = plain.engine._encode([m.model_dump() for m in messages])
    quote = plain.engine.tokenizer('REPLY: "', add_special_tokens=False).input_ids[-1:]
    assert len(held) > 20
    assert prompt_runs(quote + free, prompt, 2) > 0
    assert prompt_runs(quote + held, prompt, 2) == 0


def test_control_bans_the_token_that_completes_a_prompt_run() -> None:
    """Batch rows map to job rows (``rows``): each row is read against its own prompt."""
    logits = torch.zeros(2, 12)
    logits[:, 8] = 5.0
    plain = GuidedDecoding(repetition_penalty=1.0, no_repeat_ngram=0)
    bans = [CopyBan.of([5, 6, 7, 8], opening=[], size=3), CopyBan.of([1, 2], opening=[], size=3)]
    # batch row 0 is job 1 (no run to complete), batch row 1 is job 0 ("6 7" → 8)
    _control(logits, [1, 0], [[6, 7], [6, 7]], plain, bans)
    assert logits[1, 8] == float("-inf") and int(logits[1].argmax()) != 8
    assert logits[0, 8] == 5.0


def test_repetition_penalty_reduces_repeats(tiny_dir: Path, small_suite: Suite) -> None:
    request = guided_request(small_suite.scenarios[0], max_tokens=60)
    free = reply_tokens(tiny_model(tiny_dir, no_repeat_ngram=0, repetition_penalty=1.0), request)
    held = reply_tokens(tiny_model(tiny_dir, no_repeat_ngram=0, repetition_penalty=2.0), request)
    assert len(set(held)) > len(set(free))


def test_rows_that_run_to_max_tokens_fit_in_a_mixed_batch(
    tiny_dir: Path, small_suite: Suite
) -> None:
    """Group, single-person and therapy rows together, none ending at EOS: every row gets
    its fields and the full reply within the cache room reserved for the batch."""
    model = tiny_model(tiny_dir)
    therapy = [ChatMessage(role="user", content="Patient: I feel alone.\nTherapist:")]
    requests = [guided_request(s, max_tokens=24) for s in small_suite.scenarios[:16]]
    requests.append(
        ModelRequest(
            messages=therapy, params=GenerationParams(max_tokens=24), guide=answer_guide(therapy)
        )
    )
    ask(model, requests[0])  # loads the weights
    eos = model.engine.eos
    model.engine.eos = set()  # no row ends before max_tokens
    try:
        outputs = ask(model, *requests)
    finally:
        model.engine.eos = eos
    assert all(o.stop_reason in ("length", "stop") for o in outputs)
    assert sum(o.stop_reason == "length" for o in outputs) > len(outputs) // 2


def test_batch_room_covers_the_longest_row_of_every_step() -> None:
    assert batch_room([[5, 9, 4], [8, 3], [2]]) == 2 * (8 + 9 + 4)
    assert batch_room([[3]]) == 6


def test_banned_tokens_complete_a_seen_ngram() -> None:
    assert _banned([1, 2, 3, 1, 2], 3) == {3}
    assert _banned([1, 2, 3, 1, 2], 2) == {3}
    assert _banned([5, 5], 2) == {5}
    assert _banned([1, 2], 3) == set()
    assert _banned([1, 2, 1], 1) == {1, 2}


def test_repetition_penalty_lowers_seen_tokens_only() -> None:
    logits = torch.tensor([[2.0, -1.0, 3.0], [2.0, -1.0, 3.0]])
    controlled = _control(logits, [1, 0], [[2], [0, 1, 0]], GuidedDecoding(2.0, 0))
    assert controlled.tolist() == [[1.0, -2.0, 3.0], [2.0, -1.0, 1.5]]
    banned = _control(torch.zeros((1, 4)), [0], [[1, 2, 1]], GuidedDecoding(1.0, 2))
    assert banned.tolist() == [[0.0, 0.0, float("-inf"), 0.0]]


def fed_texts(model: local.LocalModel, request: ModelRequest) -> str:
    """Everything fed to the model for one request answered alone, decoded."""
    ask(model, request)  # loads the weights
    feeds: list[int] = []

    def record(_module: Any, _args: Any, kwargs: dict[str, Any]) -> None:
        ids = kwargs.get("input_ids")
        if ids is not None and ids.shape[0] == 1:
            feeds.extend(int(token) for token in ids[0])

    handle = model.engine.model.register_forward_pre_hook(record, with_kwargs=True)
    try:
        ask(model, request)
    finally:
        handle.remove()
    return str(model.engine.tokenizer.decode(feeds))


def test_the_opening_names_the_person_the_reply_is_for(tiny_dir: Path, small_suite: Suite) -> None:
    """The default opening feeds the prompt's named person, or the PERSON the answer chose
    on a group item, after the quote; the answer text keeps the quote but not the name, so
    judges read only what the model wrote."""
    model = tiny_model(tiny_dir)
    for kind in ("emotion_support", "group"):
        scenario = next(s for s in small_suite.scenarios if s.kind == kind)
        request = guided_request(scenario, max_tokens=8)
        output = ask(model, request)[0]
        parsed = parse_answer(output.text, scenario.options)
        person = parsed.person if kind == "group" else scenario.focus_person
        assert person is not None
        assert f'REPLY: "{person},' in fed_texts(model, request)
        reply = output.text.split("REPLY: ", 1)[1]
        assert reply.startswith('"') and not reply.startswith(f'"{person},'), output.text
        assert not reply.startswith('" '), output.text
    plain = fed_texts(tiny_model(tiny_dir, reply_opening=' "'), guided_request(scenario, 8))
    assert 'REPLY: "' in plain and f'REPLY: "{person},' not in plain
    named = GuidedDecoding()  # the default since guided-v2
    assert named.opening_for(None) == ' "' and named.shown_opening == '"'
    assert named.opening_for("Budi") == ' "Budi,'
    assert GuidedDecoding(reply_opening=' "').opening_for("Budi") == ' "'
    assert GuidedDecoding(reply_opening=' "Dear {name},').shown_opening == '"Dear '


def test_the_cache_room_covers_the_longest_name() -> None:
    guide = AnswerGuide(
        fields=[GuidedField(label="PERSON", choices=["Al", "Bartholomew-Jones"])],
        reply_label="REPLY",
    )
    named = GuidedDecoding.from_options({"reply_opening": ' "{name},'})

    def encode(text: str) -> list[int]:
        return list(text)  # one token per character

    assert field_costs(guide, named, encode)[-1] == len('REPLY: "Bartholomew-Jones,')
    assert field_costs(guide, GuidedDecoding(reply_opening=' "'), encode)[-1] == len('REPLY: "')


def test_decoding_options_are_checked(tiny_dir: Path) -> None:
    with pytest.raises(UserError, match="repetition_penalty"):
        tiny_model(tiny_dir, repetition_penalty=0.5)
    with pytest.raises(UserError, match="choice_score"):
        tiny_model(tiny_dir, choice_score="max")
    with pytest.raises(UserError, match="no_copy_ngram"):
        tiny_model(tiny_dir, no_copy_ngram=1)  # a one-token run would ban every prompt token
    with pytest.raises(UserError, match="reply_opening"):
        tiny_model(tiny_dir, reply_opening=' "{name} {name},')
    with pytest.raises(UserError, match="reply_opening"):
        tiny_model(tiny_dir, reply_opening=' "{person},')


def test_runner_records_guided_mode_for_local_models(
    tiny_dir: Path, small_suite: Suite, small_suite_path: Path, tmp_path: Path
) -> None:
    spec = parse_model_id(f"local/{tiny_dir}", params=GenerationParams(max_tokens=8))
    result = asyncio.run(
        execute_run(
            RunOptions(
                suite=small_suite,
                suite_source=str(small_suite_path),
                spec=spec,
                run_dir=tmp_path / "run",
                limit=5,
                cache_path=tmp_path / "cache.sqlite",
            )
        )
    )
    assert result.manifest.answer_mode == "guided"
    assert RunStore(tmp_path / "run").read_manifest().answer_mode == "guided"
    for response in result.responses.values():
        assert response.text is not None and "NEEDS_HELP: " in response.text
    with pytest.raises(UserError, match="answer mode"):  # same directory, other mode
        asyncio.run(
            execute_run(
                RunOptions(
                    suite=small_suite,
                    suite_source=str(small_suite_path),
                    spec=spec,
                    run_dir=tmp_path / "run",
                    limit=5,
                    answer_mode="free",
                )
            )
        )
