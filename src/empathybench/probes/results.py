"""Records the probe commands write: ``probe.json``, ``eval.json`` and ``steer.json``.

Layer numbers follow ``probes.layers``: layer ``i`` is the output of decoder block ``i``
(``hidden_states[i + 1]``). Directions and cached activations live beside ``probe.json`` in
safetensors files; everything else is JSON.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from empathybench.probes.correlation import Correlation
from empathybench.records import SCHEMA_VERSION, Record

LAYER_NUMBERING = "layer i = output of decoder block i = hidden_states[i + 1]"


class LayerTraining(Record):
    layer: int
    sigma: float
    """Standard deviation of all training projections on the direction (steering unit)."""
    threshold: float
    """Midpoint of the two training class means on the direction."""
    train_separation: float
    cv_auroc: float
    """Mean held-out AUROC of leave-one-scenario-out inside the training split."""
    cv_separation: float


class ProbeFile(Record):
    schema_version: int = SCHEMA_VERSION
    model: str
    model_type: str
    dtype: str
    n_layers: int
    hidden_size: int
    layer_numbering: str = LAYER_NUMBERING
    layers_path: str | None
    pooling: Literal["mean", "last"]
    prompt_format: Literal["chat", "plain"]
    pairs: str
    pairs_sha256: str
    n_pairs: int
    train_scenarios: list[str]
    test_scenarios: list[str]
    n_train_pairs: int
    n_test_pairs: int
    layers: list[LayerTraining]
    selected_layer: int
    selection: str
    package_version: str
    seconds: dict[str, float] = Field(default_factory=dict)

    def layer(self, index: int) -> LayerTraining:
        for row in self.layers:
            if row.layer == index:
                return row
        probed = ", ".join(str(r.layer) for r in self.layers)
        from empathybench.errors import UserError

        raise UserError(f"layer {index} was not probed (probed: {probed})")


class RandomBaseline(Record):
    count: int
    mean: float
    p95: float
    max: float


class LayerEvaluation(Record):
    layer: int
    auroc: float
    accuracy: float
    paired_accuracy: float
    random: RandomBaseline
    permutation_p: float
    ablated_auroc: float
    """Training direction applied to keyword-ablated test texts."""
    ablated_retrained_auroc: float
    """Direction refitted on keyword-ablated training texts, tested on ablated test texts."""
    loso_auroc: float
    """Mean held-out AUROC over the leave-one-scenario-out folds of all pairs."""


class LosoFold(Record):
    scenario: str
    n_pairs: int
    selected_layer: int
    """Chosen by scenario cross-validation inside the fold's training scenarios."""
    auroc: float
    accuracy: float
    paired_accuracy: float


class Agreement(Record):
    models: tuple[str, str]
    layers: tuple[int, int]
    all_texts: Correlation
    within_class: Correlation


class ProbeEvaluation(Record):
    schema_version: int = SCHEMA_VERSION
    model: str
    pairs: str
    pairs_sha256: str
    test_scenarios: list[str]
    n_test_pairs: int
    selected_layer: int
    """Chosen on training data only (see probe.json)."""
    best_test_layer: int
    """Highest test AUROC (reported for reference, never used to choose)."""
    layers: list[LayerEvaluation]
    length_baseline_auroc: float
    """AUROC of completion length in tokens alone on the test pairs."""
    loso: list[LosoFold]
    loso_mean_auroc: float
    loso_mean_accuracy: float
    correlation_source: str | None
    correlation: Correlation | None = None
    """Projection at the selected layer against scores, over all test completions."""
    correlation_within_class: Correlation | None = None
    """The same after removing each class's mean (does the probe rank texts within a class?)."""
    cross_model: list[Agreement] = Field(default_factory=list)
    settings: dict[str, int | float | str]
    seconds: dict[str, float] = Field(default_factory=dict)


class SteeringSample(Record):
    id: str
    layer: int
    alpha: float
    prompt_id: str
    seed: int
    text: str
    n_tokens: int
    empty: bool
    distinct_1: float | None
    distinct_2: float | None
    repetition: float
    perplexity: float | None
    """Under the unsteered model, per completion token."""
    projection: float | None
    """Unsteered re-read at the layer: (projection - threshold) / sigma."""
    coherent: bool
    score: float | None = None


class AlphaSummary(Record):
    layer: int
    alpha: float
    n: int
    scored: int
    mean_score: float | None
    score_ci: tuple[float, float] | None
    success_rate: float | None
    """Share of (prompt, seed) whose score moved from alpha = 0 in the sign of alpha."""
    success_n: int
    mean_projection: float | None
    empty_rate: float
    coherent_rate: float
    median_perplexity: float | None
    mean_distinct_2: float | None
    mean_repetition: float


class LayerSteering(Record):
    layer: int
    sigma: float
    perplexity_limit: float | None
    success_rate: float | None
    """Mean success over every alpha != 0."""
    success_rate_positive: float | None
    success_rate_negative: float | None
    alpha_score_spearman: Correlation | None


class SteeringResult(Record):
    schema_version: int = SCHEMA_VERSION
    model: str
    probe: str
    prompt_format: Literal["chat", "plain"]
    prompts: dict[str, str]
    settings: dict[str, int | float | str]
    scorer: str | None
    scorer_note: str | None = None
    layers: list[LayerSteering]
    summary: list[AlphaSummary]
    samples: list[SteeringSample]
    seconds: dict[str, float] = Field(default_factory=dict)
