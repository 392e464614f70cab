"""Figures: the layer sweep and the steering dose-response (matplotlib, no display needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from empathybench.probes.results import ProbeEvaluation, SteeringResult


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_layer_sweep(evaluation: ProbeEvaluation, path: Path) -> None:
    """Test AUROC per layer beside the random-direction band, ablation and LOSO."""
    plt = _pyplot()
    layers = [row.layer for row in evaluation.layers]
    figure, axis = plt.subplots(figsize=(8, 4.2))
    axis.fill_between(
        layers,
        [row.random.mean for row in evaluation.layers],
        [row.random.p95 for row in evaluation.layers],
        color="0.85",
        label="random directions (mean to 95th pct.)",
    )
    axis.plot(layers, [r.auroc for r in evaluation.layers], "o-", label="probe, held-out test")
    axis.plot(
        layers, [r.loso_auroc for r in evaluation.layers], "s--", label="leave-one-scenario-out"
    )
    axis.plot(
        layers,
        [r.ablated_retrained_auroc for r in evaluation.layers],
        "^:",
        label="keywords removed (refitted)",
    )
    axis.axvline(evaluation.selected_layer, color="0.4", lw=1, ls="--")
    axis.axhline(0.5, color="0.6", lw=0.8)
    axis.set_xlabel("layer (output of decoder block i)")
    axis.set_ylabel("AUROC")
    axis.set_ylim(0.3, 1.02)
    axis.set_title(
        f"{evaluation.model}: empathy probe per layer "
        f"({evaluation.n_test_pairs} held-out pairs; dashed: layer chosen on training data)",
        fontsize=9,
    )
    axis.legend(fontsize=8, loc="lower right")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)


def plot_dose_response(result: SteeringResult, path: Path) -> None:
    """Empathy score, probe projection and coherence against alpha, one line per layer."""
    plt = _pyplot()
    figure, axes = plt.subplots(1, 3, figsize=(12, 3.8))
    for layer in sorted({row.layer for row in result.summary}):
        rows = [row for row in result.summary if row.layer == layer]
        alphas = [row.alpha for row in rows]
        scored = [row for row in rows if row.mean_score is not None]
        if scored:
            means = [row.mean_score or 0.0 for row in scored]
            low = [
                m - (r.score_ci[0] if r.score_ci else m) for m, r in zip(means, scored, strict=True)
            ]
            high = [
                (r.score_ci[1] if r.score_ci else m) - m for m, r in zip(means, scored, strict=True)
            ]
            axes[0].errorbar(
                [r.alpha for r in scored],
                means,
                yerr=[low, high],
                marker="o",
                capsize=3,
                label=f"layer {layer}",
            )
        axes[1].plot(alphas, [row.mean_projection for row in rows], "o-", label=f"layer {layer}")
        axes[2].plot(alphas, [row.coherent_rate for row in rows], "o-", label=f"coherent, L{layer}")
        axes[2].plot(alphas, [row.empty_rate for row in rows], "x:", label=f"empty, L{layer}")
    axes[0].set_title("empathy score (1-3), 95% CI" if result.scorer else "no scorer available")
    axes[1].set_title("probe projection of the output (sigma units)")
    axes[2].set_title("coherence")
    for axis in axes:
        axis.set_xlabel("alpha (in units of sigma)")
        axis.axvline(0, color="0.7", lw=0.8)
        if axis.get_legend_handles_labels()[0]:
            axis.legend(fontsize=7)
    figure.suptitle(f"{result.model}: steering dose-response", fontsize=10)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)
