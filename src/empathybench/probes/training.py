"""Train a probe per layer on the training scenarios, and save or load it as a directory.

A probe directory holds ``probe.json`` (a ``ProbeFile``), ``probe.safetensors`` (one unit
direction per probed layer) and ``activations.safetensors`` (the pooled activations of every
pair, original and keyword-ablated, so ``probe eval`` needs no second pass through the model).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from empathybench.errors import UserError
from empathybench.jsonl import atomic_write_text, read_json_record
from empathybench.probes.activations import (
    Pooling,
    PromptFormat,
    encode_examples,
    read_examples,
    resolve_format,
)
from empathybench.probes.layers import decoder_layers
from empathybench.probes.loading import LoadedModel
from empathybench.probes.pairs import PairSet, Split, ablate_keywords, split_by_scenario
from empathybench.probes.probe import fit_mean_difference, rank_layers_by_scenario_cv
from empathybench.probes.results import LayerTraining, ProbeFile
from empathybench.version import __version__

Array = np.ndarray[Any, np.dtype[Any]]
PROBE_FILE, DIRECTIONS_FILE, ACTIVATIONS_FILE = (
    "probe.json",
    "probe.safetensors",
    "activations.safetensors",
)
ACTIVATION_KEYS = ("empathic", "non_empathic", "ablated_empathic", "ablated_non_empathic")
ACTIVATION_KEYS_ALL = (*ACTIVATION_KEYS, "empathic_tokens", "non_empathic_tokens")


@dataclass
class PairActivations:
    """(pairs, probed layers, hidden) float32 arrays, in the pair file's order."""

    empathic: Array
    non_empathic: Array
    ablated_empathic: Array
    ablated_non_empathic: Array
    empathic_tokens: Array
    non_empathic_tokens: Array


@dataclass
class TrainedProbe:
    record: ProbeFile
    directions: Array
    """(probed layers, hidden) unit vectors, in the order of ``record.layers``."""
    activations: PairActivations | None = None

    def index(self, layer: int) -> int:
        self.record.layer(layer)  # a clear error for a layer that was not probed
        return [row.layer for row in self.record.layers].index(layer)

    def direction(self, layer: int) -> Array:
        vector: Array = self.directions[self.index(layer)]
        return vector


def read_pair_activations(
    loaded: LoadedModel,
    pairs: PairSet,
    layers: Sequence[int],
    *,
    pooling: Pooling,
    prompt_format: PromptFormat,
    batch_size: int,
    layers_path: str | None,
) -> PairActivations:
    """Both completions of every pair, as written and keyword-ablated, in one reading."""
    sides = [
        [(p.prompt, p.empathic) for p in pairs.pairs],
        [(p.prompt, p.non_empathic) for p in pairs.pairs],
        [(p.prompt, ablate_keywords(p.empathic)) for p in pairs.pairs],
        [(p.prompt, ablate_keywords(p.non_empathic)) for p in pairs.pairs],
    ]
    examples = encode_examples(loaded.tokenizer, [x for side in sides for x in side], prompt_format)
    if any(not e.completion_ids for e in examples):
        raise UserError("a completion is empty (after keyword ablation?): nothing to pool over")
    readout = read_examples(
        loaded.model,
        examples,
        layers,
        pad_id=int(loaded.tokenizer.pad_token_id),
        pooling=pooling,
        batch_size=batch_size,
        layers_path=layers_path,
    )
    n = len(pairs.pairs)
    parts = [readout.activations[i * n : (i + 1) * n] for i in range(4)]
    tokens = np.array([len(e.completion_ids) for e in examples], dtype=np.int64)
    return PairActivations(
        empathic=parts[0],
        non_empathic=parts[1],
        ablated_empathic=parts[2],
        ablated_non_empathic=parts[3],
        empathic_tokens=tokens[:n],
        non_empathic_tokens=tokens[n : 2 * n],
    )


def split_rows(pairs: PairSet, split: Split) -> tuple[list[int], list[int]]:
    test = {p.id for p in split.test}
    train_rows = [i for i, p in enumerate(pairs.pairs) if p.id not in test]
    return train_rows, [i for i, p in enumerate(pairs.pairs) if p.id in test]


def train_probe(
    loaded: LoadedModel,
    pairs: PairSet,
    *,
    layers: Sequence[int] | None = None,
    pooling: Pooling = "mean",
    prompt_format: PromptFormat = "auto",
    test_scenarios: Sequence[str] | None = None,
    batch_size: int = 16,
    layers_path: str | None = None,
    dtype: str = "float32",
) -> TrainedProbe:
    """Fit a mean-difference probe at every layer on the training scenarios only."""
    started = time.perf_counter()
    count = len(decoder_layers(loaded.model, layers_path))
    probed = list(layers) if layers is not None else list(range(count))
    split = split_by_scenario(pairs, test_scenarios)
    activations = read_pair_activations(
        loaded,
        pairs,
        probed,
        pooling=pooling,
        prompt_format=prompt_format,
        batch_size=batch_size,
        layers_path=layers_path,
    )
    read_s = time.perf_counter() - started
    train_rows, _ = split_rows(pairs, split)
    train_scenarios = [pairs.pairs[i].scenario for i in train_rows]
    positive, negative = activations.empathic[train_rows], activations.non_empathic[train_rows]
    ranked = rank_layers_by_scenario_cv(positive, negative, train_scenarios)
    ranking = {row[0]: row for row in ranked}  # keyed by position in ``probed``
    rows, directions = [], []
    for slot, layer in enumerate(probed):
        fit = fit_mean_difference(positive[:, slot], negative[:, slot])
        directions.append(fit.direction.astype(np.float32))
        rows.append(
            LayerTraining(
                layer=layer,
                sigma=fit.sigma,
                threshold=fit.threshold,
                train_separation=fit.separation,
                cv_auroc=ranking[slot][1],
                cv_separation=ranking[slot][2],
            )
        )
    best_slot = ranked[0][0]
    record = ProbeFile(
        model=loaded.model_id,
        model_type=loaded.model_type,
        dtype=dtype,
        n_layers=count,
        hidden_size=int(loaded.model.config.hidden_size),
        layers_path=layers_path,
        pooling=pooling,
        prompt_format=resolve_format(loaded.tokenizer, prompt_format),
        pairs=pairs.name,
        pairs_sha256=pairs.sha256,
        n_pairs=len(pairs.pairs),
        train_scenarios=sorted(set(train_scenarios)),
        test_scenarios=list(split.test_scenarios),
        n_train_pairs=len(split.train),
        n_test_pairs=len(split.test),
        layers=rows,
        selected_layer=probed[best_slot],
        selection="highest mean held-out AUROC (3 decimals), then separation, in "
        "leave-one-scenario-out over the training scenarios only",
        package_version=__version__,
        seconds={"read": round(read_s, 2), "total": round(time.perf_counter() - started, 2)},
    )
    return TrainedProbe(record=record, directions=np.stack(directions), activations=activations)


def save_probe(directory: Path, trained: TrainedProbe) -> None:
    from safetensors.numpy import save_file

    directory.mkdir(parents=True, exist_ok=True)
    save_file({"directions": np.ascontiguousarray(trained.directions)}, directory / DIRECTIONS_FILE)
    if trained.activations is not None:
        arrays = {key: getattr(trained.activations, key) for key in ACTIVATION_KEYS_ALL}
        save_file(
            {k: np.ascontiguousarray(v) for k, v in arrays.items()}, directory / ACTIVATIONS_FILE
        )
    atomic_write_text(directory / PROBE_FILE, trained.record.model_dump_json(indent=2) + "\n")


def load_probe(directory: Path) -> TrainedProbe:
    from safetensors.numpy import load_file

    path = directory / PROBE_FILE
    if not path.is_file():
        raise UserError(f"{directory}: not a probe directory (no {PROBE_FILE}); run probe train")
    record = read_json_record(path, ProbeFile)
    try:
        directions = load_file(directory / DIRECTIONS_FILE)["directions"]
        activations = None
        if (directory / ACTIVATIONS_FILE).is_file():
            arrays = load_file(directory / ACTIVATIONS_FILE)
            activations = PairActivations(**{key: arrays[key] for key in ACTIVATION_KEYS_ALL})
    except Exception as error:  # a missing, truncated or foreign safetensors file
        raise UserError(f"{directory}: its arrays cannot be read ({error})") from None
    return TrainedProbe(record=record, directions=directions, activations=activations)
