"""Tiny random causal LMs of every supported family, and an offline byte-level tokenizer.

Nothing is downloaded: configs are built in code (hidden size 32, 3 layers) and the tokenizer
is trained here on the bundled pair texts with the ``tokenizers`` library.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch", reason="needs the local extra: pip install 'empathybench[local]'")
pytest.importorskip("transformers", reason="needs the local extra")

import torch
import transformers

from empathybench.probes.loading import LoadedModel
from empathybench.probes.pairs import load_pairs

FAMILIES = ("llama", "qwen2", "mistral", "gemma", "phi3", "gpt2", "gpt_neox")
CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


@pytest.fixture(scope="session")
def tiny_tokenizer() -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    pairs = load_pairs().pairs
    corpus = [text for p in pairs for text in (p.prompt, p.empathic, p.non_empathic)]
    tokenizer = Tokenizer(models.BPE(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    special = ["<pad>", "<s>", "</s>", "<unk>"]
    trainer = trainers.BpeTrainer(
        vocab_size=1000,
        special_tokens=special,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tokenizer.train_from_iterator(corpus, trainer)
    wrapped = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        pad_token="<pad>",
        bos_token="<s>",
        eos_token="</s>",
        unk_token="<unk>",
    )
    return wrapped


def make_config(family: str, vocab_size: int, layers: int = 3) -> Any:
    common: dict[str, Any] = {
        "vocab_size": vocab_size,
        "pad_token_id": 0,
        "bos_token_id": 1,
        "eos_token_id": 2,
        "tie_word_embeddings": False,
    }
    if family == "gpt2":
        return transformers.GPT2Config(
            n_embd=32, n_layer=layers, n_head=4, n_positions=512, **common
        )
    decoder = {
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": layers,
        "num_attention_heads": 4,
        "max_position_embeddings": 512,
        **common,
    }
    if family == "gpt_neox":
        return transformers.GPTNeoXConfig(**decoder)
    decoder["num_key_value_heads"] = 2
    classes = {
        "llama": transformers.LlamaConfig,
        "qwen2": transformers.Qwen2Config,
        "mistral": transformers.MistralConfig,
        "gemma": transformers.GemmaConfig,
        "phi3": transformers.Phi3Config,
    }
    if family == "gemma":
        decoder["head_dim"] = 8
    return classes[family](**decoder)


def make_model(family: str, vocab_size: int, *, layers: int = 3, seed: int = 0) -> Any:
    torch.manual_seed(seed)
    config = make_config(family, vocab_size, layers)
    config._attn_implementation = "eager"
    model = transformers.AutoModelForCausalLM.from_config(config)
    with torch.no_grad():  # larger weights than the 0.02 default, so layers differ visibly
        for parameter in model.parameters():
            if parameter.dim() > 1:
                parameter.normal_(0.0, 0.2)
    return model.eval()


@pytest.fixture(scope="session")
def model_factory(tiny_tokenizer: Any) -> Callable[..., LoadedModel]:
    def build(family: str = "llama", **kwargs: Any) -> LoadedModel:
        model = make_model(family, len(tiny_tokenizer), **kwargs)
        return LoadedModel(model_id=f"tiny/{family}", model=model, tokenizer=tiny_tokenizer)

    return build


@pytest.fixture(scope="session")
def tiny_llama_dir(tmp_path_factory: pytest.TempPathFactory, tiny_tokenizer: Any) -> Path:
    """A tiny Llama saved like a Hugging Face model directory (for hf:PATH)."""
    directory = tmp_path_factory.mktemp("tiny-llama")
    make_model("llama", len(tiny_tokenizer), layers=4).save_pretrained(directory)
    tiny_tokenizer.save_pretrained(directory)
    return directory
