"""The frozen encoder: the bundled MiniLM, any Hugging Face encoder directory, clear errors."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from empathybench.errors import UserError
from empathybench.scorer.encoder import TOKEN_BUDGET, TextEncoder, load_encoder, token_batches

pytestmark = pytest.mark.torch


def save_tiny_encoder(directory: Path, words: list[str], kind: str) -> Path:
    """A randomly initialised encoder of ``kind`` (bert or distilbert) with its own word-level
    vocabulary, saved like a hub model."""
    import torch
    import transformers

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]
    (directory / "vocab.txt").write_text("\n".join(vocab) + "\n")
    names = {"bert": "Bert", "distilbert": "DistilBert"}[kind]
    tokenizer = getattr(transformers, f"{names}TokenizerFast")
    tokenizer(vocab_file=str(directory / "vocab.txt")).save_pretrained(directory)
    sizes = (
        {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2}
        | {"intermediate_size": 64, "max_position_embeddings": 64}
        if kind == "bert"
        else {"dim": 16, "n_layers": 1, "n_heads": 2, "hidden_dim": 32}
        | {"max_position_embeddings": 32}
    )
    config = getattr(transformers, f"{names}Config")(vocab_size=len(vocab), **sizes)
    torch.manual_seed(0)
    getattr(transformers, f"{names}Model")(config).save_pretrained(directory)
    return directory


@pytest.fixture(scope="module")
def tiny_bert_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    words = ["i", "am", "so", "sorry", "that", "you", "feel", "sad", "today"]
    words += ["help", "me", "please", "the", "a", "dog", "lost"]
    return save_tiny_encoder(tmp_path_factory.mktemp("tiny-bert"), words, "bert")


def test_the_bundled_encoder_gives_unit_vectors_that_mean_something() -> None:
    encoder = load_encoder()
    assert encoder.settings.pooling == "mean" and encoder.settings.normalize
    vectors = encoder.encode(
        [
            "My dog died yesterday and I cannot stop crying.",
            "I lost my pet and I am heartbroken.",
            "The quarterly revenue report is due on Friday.",
        ]
    )
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    similarity = vectors @ vectors.T
    assert similarity[0, 1] > similarity[0, 2] + 0.3


def test_batching_and_padding_do_not_change_embeddings() -> None:
    encoder = load_encoder()
    texts = ["short", "a much longer sentence with many more words in it than the first one"]
    encoder.clear_cache()
    together = encoder.encode(texts, batch_size=2)
    encoder.clear_cache()
    alone = np.stack([encoder.encode([t], batch_size=1)[0] for t in texts])
    np.testing.assert_allclose(together, alone, atol=1e-5)


def test_token_batches_sort_by_length_and_keep_within_rows_and_budget() -> None:
    lengths = [40, 3, 300, 12, 12, 7, 256, 90, 5, 64] * 20
    batches = token_batches(lengths, 16)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    flat = [lengths[i] for batch in batches for i in batch]
    assert flat == sorted(lengths)
    for batch in batches:
        assert len(batch) <= 16
        assert len(batch) == 1 or len(batch) * max(lengths[i] for i in batch) <= TOKEN_BUDGET
    assert any(len(batch) == 16 for batch in batches), "short texts fill whole batches"
    assert [len(b) for b in token_batches([TOKEN_BUDGET + 5, TOKEN_BUDGET + 9], 64)] == [1, 1]
    assert token_batches([], 8) == []
    with pytest.raises(ValueError):
        token_batches([3], 0)


def test_batches_are_padded_as_the_tokenizer_pads_them() -> None:
    encoder = load_encoder()
    texts = ["ok", "That sounds exhausting, and you still turned up.", ""]
    ids = encoder._tokenizer(texts, truncation=True, max_length=256)["input_ids"]
    ours = encoder._padded(ids)
    theirs = encoder._tokenizer(texts, padding=True, truncation=True, return_tensors="np")
    for name in ("input_ids", "attention_mask", "token_type_ids"):
        np.testing.assert_array_equal(ours[name], theirs[name])


def test_an_encoder_without_token_type_ids_is_fed_only_its_own_inputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DistilBERT-style models take no token_type_ids; the torch path must not pass them."""
    save_tiny_encoder(tmp_path, ["help", "me", "please", "sad"], "distilbert")
    encoder = TextEncoder(str(tmp_path), backend="torch")
    assert encoder._torch_inputs == ("input_ids", "attention_mask")
    vectors = encoder.encode(["help me please", "sad"])
    assert vectors.shape == (2, 16) and np.isfinite(vectors).all()
    if importlib.util.find_spec("onnxruntime") is None:
        return
    # the default backend exports a graph without token_type_ids and must feed it only its
    # own inputs (it used to fail with "Invalid input name: token_type_ids")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    default = TextEncoder(str(tmp_path))
    assert default.backend == "onnx" and "token_type_ids" not in default._onnx_inputs
    np.testing.assert_allclose(default.encode(["help me please", "sad"]), vectors, atol=1e-5)


def test_any_hugging_face_encoder_directory_works(tiny_bert_dir: Path) -> None:
    encoder = TextEncoder(str(tiny_bert_dir))
    assert encoder.settings.dimension == 32 and not encoder.settings.normalize
    vectors = encoder.encode(["i am so sorry", "help me please the dog lost"])
    assert vectors.shape == (2, 32) and np.isfinite(vectors).all()


def test_bad_encoder_names_are_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(UserError, match=r"no config\.json"):
        TextEncoder(str(tmp_path))
    with pytest.raises(UserError, match="no such encoder directory"):
        TextEncoder(str(tmp_path / "missing"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(UserError, match="could not load encoder"):
        TextEncoder("no-such-org/no-such-encoder")


TEXTS = [
    "I'm so sorry you're going through this; losing a job after ten years is a real shock.",
    "ok",
    "",
    "That sounds exhausting. " * 80,  # past the 256-token limit: truncated by both backends
    "Félicitations ! 🎉 Tu l'as bien mérité.",
    "Have you tried turning it off and on again?",
]


def test_onnx_embeddings_match_torch(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    fast = TextEncoder(backend="onnx")
    reference = TextEncoder(backend="torch")
    assert (fast.backend, reference.backend) == ("onnx", "torch")
    assert list((tmp_path / "empathybench" / "encoders").glob("*.onnx")), "exported at first use"
    a, b = fast.encode(TEXTS, batch_size=4), reference.encode(TEXTS, batch_size=4)
    cosine = (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    assert cosine.min() >= 0.999, cosine
    np.testing.assert_allclose(a, b, atol=1e-4)


def test_bfloat16_backend_keeps_embeddings_and_scores_close_to_float32() -> None:
    """The opt-in torch-bf16 backend (autocast) against float32 torch on the same texts:
    embeddings nearly parallel and the default head's scores within 0.01 (1-3 scale)."""
    from empathybench.scorer.empathy_scorer import EmpathyScorer, load_empathy_scorer

    half, reference = TextEncoder(backend="torch-bf16"), TextEncoder(backend="torch")
    assert (half.backend, reference.backend) == ("torch-bf16", "torch")
    a, b = half.encode(TEXTS, batch_size=4), reference.encode(TEXTS, batch_size=4)
    assert a.dtype == np.float32
    cosine = (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    assert cosine.min() >= 0.995, cosine
    assert np.abs(a - b).max() > 1e-6, "bfloat16 did not run: the embeddings are float32's"
    head = load_empathy_scorer().head
    texts = [t for t in TEXTS if t]
    on_half = EmpathyScorer(encoder=half, head=head).predict(texts)
    on_float = EmpathyScorer(encoder=reference, head=head).predict(texts)
    assert np.abs(on_half - on_float).max() <= 0.01


def test_a_missing_onnxruntime_falls_back_to_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    import empathybench.scorer.encoder as encoder_module

    real = encoder_module.import_optional

    def without_onnxruntime(name: str) -> object:
        if name == "onnxruntime":
            raise ImportError("No module named 'onnxruntime'")
        return real(name)

    monkeypatch.setattr(encoder_module, "import_optional", without_onnxruntime)
    assert TextEncoder(backend="auto").backend == "torch"
    with pytest.raises(UserError, match="needs onnxruntime"):
        TextEncoder(backend="onnx")
    monkeypatch.setenv("EMPATHYBENCH_ENCODER_BACKEND", "gpu")
    with pytest.raises(UserError, match="auto, torch, onnx, torch-bf16"):
        TextEncoder()


def test_repeated_texts_are_embedded_once_and_served_from_the_cache(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    encoder = TextEncoder(backend="torch")
    embedded: list[str] = []
    real = encoder._embed

    def counting(batch: dict[str, np.ndarray]) -> np.ndarray:
        for ids, mask in zip(batch["input_ids"], batch["attention_mask"], strict=True):
            embedded.append(encoder._tokenizer.decode(ids[mask == 1], skip_special_tokens=True))
        return real(batch)

    monkeypatch.setattr(encoder, "_embed", counting)
    first = encoder.encode(["same reply", "other reply", "same reply"])
    assert sorted(embedded) == ["other reply", "same reply"]
    np.testing.assert_array_equal(first[0], first[2])
    again = encoder.encode(["other reply", "new reply", "same reply"])
    assert sorted(embedded) == ["new reply", "other reply", "same reply"]
    np.testing.assert_array_equal(again[0], first[1])
    np.testing.assert_array_equal(again[2], first[0])
    encoder.clear_cache()
    encoder.encode(["same reply"])
    assert embedded.count("same reply") == 2


def test_batches_in_flight_do_not_change_embeddings(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [f"{word} " * (3 + 7 * n) for n, word in enumerate(["sad", "ok", "tired"] * 12)]
    monkeypatch.setenv("EMPATHYBENCH_ENCODER_WORKERS", "1")
    alone = TextEncoder(backend="torch")
    monkeypatch.setenv("EMPATHYBENCH_ENCODER_WORKERS", "2")
    paired = TextEncoder(backend="torch")
    assert (alone.workers, paired.workers) == (1, 2)
    seen: set[str] = set()
    real = paired._embed

    def recording(batch: dict[str, np.ndarray]) -> np.ndarray:
        import threading

        seen.add(threading.current_thread().name)
        return real(batch)

    monkeypatch.setattr(paired, "_embed", recording)
    np.testing.assert_array_equal(
        alone.encode(texts, batch_size=4), paired.encode(texts, batch_size=4)
    )
    assert seen and all(name.startswith("encoder") for name in seen)


@pytest.mark.parametrize("value", ["0", "two", "-1", ""])
def test_a_bad_workers_setting_is_one_clear_error(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("EMPATHYBENCH_ENCODER_WORKERS", value)
    with pytest.raises(UserError, match="EMPATHYBENCH_ENCODER_WORKERS must be a whole number"):
        TextEncoder(backend="torch")


def test_long_texts_are_cut_to_the_encoders_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    encoder = TextEncoder(backend="torch")
    widths: list[int] = []
    real = encoder._embed

    def recording(batch: dict[str, np.ndarray]) -> np.ndarray:
        widths.append(batch["input_ids"].shape[1])
        return real(batch)

    monkeypatch.setattr(encoder, "_embed", recording)
    encoder.encode(["That sounds exhausting. " * 200, "ok"])
    assert encoder.settings.max_length == 256 and max(widths) == 256


def test_bfloat16_keeps_layer_norms_and_embeddings_in_float32() -> None:
    """Only the matrix products' weights are stored in bfloat16 (a whole-model cast moved
    scores by more than 0.01 and was rejected)."""
    import torch

    model = TextEncoder(backend="torch-bf16")._model
    linear = [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
    norms = [m for m in model.modules() if isinstance(m, torch.nn.LayerNorm)]
    embeddings = [m for m in model.modules() if isinstance(m, torch.nn.Embedding)]
    assert linear and norms and embeddings
    assert {m.weight.dtype for m in linear} == {torch.bfloat16}
    assert {m.weight.dtype for m in norms + embeddings} == {torch.float32}


def test_one_call_with_more_new_texts_than_the_cache_holds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from empathybench.scorer import encoder as encoder_module

    monkeypatch.setattr(encoder_module, "CACHE_ROWS", 3)
    encoder = TextEncoder(backend="torch")
    texts = [f"reply number {n}" for n in range(8)]
    together = encoder.encode(texts)
    encoder.clear_cache()
    alone = np.stack([encoder.encode([t])[0] for t in texts])
    np.testing.assert_allclose(together, alone, atol=1e-5)
    assert len(encoder._cache) == 3


def test_two_batches_in_flight_only_on_small_machines(monkeypatch: pytest.MonkeyPatch) -> None:
    from empathybench.scorer.encoder import _workers_setting

    monkeypatch.delenv("EMPATHYBENCH_ENCODER_WORKERS", raising=False)
    assert (_workers_setting(2), _workers_setting(4), _workers_setting(16)) == (2, 2, 1)
    monkeypatch.setenv("EMPATHYBENCH_ENCODER_WORKERS", "3")
    assert _workers_setting(16) == 3
