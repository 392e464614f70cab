"""A tiny random Llama saved as a Hugging Face directory, for ``local/PATH`` without downloads.

Hidden size 32, 2 layers; the byte-level BPE tokenizer is trained here on the bundled
contrastive-pair texts (so any text encodes) and given a small chat template.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def tiny_tokenizer() -> Any:
    import transformers
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    from empathybench.probes.pairs import load_pairs

    corpus = [text for p in load_pairs().pairs for text in (p.prompt, p.empathic, p.non_empathic)]
    tokenizer = Tokenizer(models.BPE(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=800,
        special_tokens=["<pad>", "<s>", "</s>", "<unk>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tokenizer.train_from_iterator(corpus, trainer)
    fast: Any = transformers.PreTrainedTokenizerFast
    wrapped = fast(
        tokenizer_object=tokenizer,
        pad_token="<pad>",
        bos_token="<s>",
        eos_token="</s>",
        unk_token="<unk>",
    )
    wrapped.chat_template = CHAT_TEMPLATE
    return wrapped


def save_tiny_llama(directory: Path, *, seed: int = 0) -> Path:
    """Write a tiny random Llama and its tokenizer to ``directory``; returns it."""
    import torch
    import transformers

    tokenizer = tiny_tokenizer()
    torch.manual_seed(seed)
    config = transformers.LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
        tie_word_embeddings=False,
    )
    auto: Any = transformers.AutoModelForCausalLM
    model = auto.from_config(config)
    with torch.no_grad():  # larger weights than the default, so options score differently
        for parameter in model.parameters():
            if parameter.dim() > 1:
                parameter.normal_(0.0, 0.2)
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory
