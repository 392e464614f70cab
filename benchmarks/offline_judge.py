"""The offline judge compared with its earlier heads and a reply-length baseline, without
fooling ourselves: cross-validation grouped by scenario, a leave-one-batch-out transfer test,
an independent labeller's held-out half, and the never-trained-on calibration-v1 set.

Data: judge-labels-v1 (560 replies to 112 seed-5150 v1 items, the first labelling batch),
judge-labels-v2 (a second batch by another hand: v1 and v2 items, degenerate and mid-quality
replies, varied registers) and the train half of judge-labels-w1 (an independent labeller,
focused on appropriateness; split by scenario with a salted hash before any judge was measured
on it). The w1 test half is never trained on or used for a choice. Every model gets the
no-reply rule first (rule-caught outputs score 0, as in the judge) and is trained only on what
the rule lets through.

Models, each per dimension (moral, willingness, cheering, appropriateness):

- ``length``: a least-squares line of the label on log(1 + words of the reply), per fold;
- ``judge-v1 shipped``: the bundled judge-v1 head as it is (trained on judge-labels-v1's train
  split, so only its figures on judge-labels-v2 and calibration-v1 are held out);
- ``v1 recipe``: the judge-v1 features and head settings, retrained per fold;
- ``v2 MLP raw``: the judge-v2 features (embeddings + signals) under judge-v1's head settings;
- ``v2 ridge raw``: the judge-v2 features, closed-form ridge (linear head, penalty 3000), as
  shipped in judge-v2;
- ``v2 ridge + isotonic`` / ``+ linear``: the same, calibrated on inner cross-fitted
  predictions of the outer training folds only (nested), as ``scorer train`` does;
- ``v3 ridge raw`` / ``v3 ridge + linear``: the judge-v3 features (judge-v2's plus what the
  reply does × what the item expects, ``judging.response_fit``), ridge (penalty
  ``--ridge-penalty-v3``, 1500), linear calibration nested as above — as shipped in judge-v3;
- ``judge-v2 shipped``: the bundled judge-v2 head as it is (only its w1 and calibration-v1
  figures are held out).

Tables: (1) 5-fold CV grouped by scenario over the training pool (v1, v2, w1 train half);
(2) the same predictions on the judge-labels-v2 rows only; (3) train on batch v1 only, test on
batch v2; (4) trained on the pool, tested on the w1 test half (an independent labeller, never
trained on); (5) trained on the pool, tested on calibration-v1 (72 replies labelled earlier,
never used for training or choices). Spearman with the labels and bias = mean prediction − mean
label, each with a 95% bootstrap CI over scenarios. Writes benchmarks/results/offline_judge.json.

    python benchmarks/offline_judge.py [--folds 5] [--epochs 50]
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "offline_judge.json"
DIMENSIONS = (
    "moral_behavior",
    "willingness_to_help",
    "cheering_up",
    "assistance_appropriateness",
)
SHORT = {
    "moral_behavior": "moral",
    "willingness_to_help": "willing",
    "cheering_up": "cheer",
    "assistance_appropriateness": "approp",
}

Predictor = Callable[[list[int], list[int]], np.ndarray]
"""(train row indices, test row indices) → predictions for the test rows (all targets)."""


def _cached_features(
    cache: Path | None,
    records: Sequence[Any],
    compute: Callable[[str], np.ndarray],
    feature_sets: Sequence[str],
) -> dict[str, np.ndarray]:
    import hashlib

    from empathybench.judging.offline_features import SIGNAL_NAMES

    digest = hashlib.sha256(
        "\n".join(
            [*feature_sets, *SIGNAL_NAMES, *(r.id + r.scenario.id + r.response for r in records)]
        ).encode()
    ).hexdigest()
    if cache is not None and cache.is_file():
        stored = np.load(cache)
        if str(stored["digest"]) == digest and all(fs in stored for fs in feature_sets):
            return {fs: stored[fs] for fs in feature_sets}
    features = {fs: compute(fs) for fs in feature_sets}
    if cache is not None:
        np.savez(cache, digest=np.array(digest), **features)  # type: ignore[arg-type]
    return features


def spearman_interval(
    labels: Sequence[float],
    predicted: Sequence[float],
    clusters: Sequence[str],
    resamples: int = 1000,
    seed: int = 0,
) -> tuple[float | None, float | None]:
    """95% bootstrap interval of Spearman's rho, resampling scenarios (their replies together)."""
    from scipy.stats import spearmanr

    by_cluster: dict[str, list[int]] = {}
    for index, cluster in enumerate(clusters):
        by_cluster.setdefault(cluster, []).append(index)
    groups = list(by_cluster.values())
    if len(groups) < 3:
        return None, None
    x, y = np.asarray(labels), np.asarray(predicted)
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(resamples):
        rows = np.concatenate([groups[g] for g in rng.integers(0, len(groups), len(groups))])
        if np.ptp(x[rows]) > 0 and np.ptp(y[rows]) > 0:
            draws.append(float(spearmanr(x[rows], y[rows]).statistic))
    if not draws:
        return None, None
    low, high = np.percentile(draws, [2.5, 97.5])
    return float(low), float(high)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--ridge-penalty", type=float, default=3000.0)
    parser.add_argument("--ridge-penalty-v3", type=float, default=1500.0)
    parser.add_argument(
        "--models", default="", help="Comma-separated model families to run (default: all)."
    )
    parser.add_argument(
        "--cache", type=Path, help="Keep the features in this .npz (reused while the data match)."
    )
    args = parser.parse_args()

    from empathybench.analysis.statistics import bootstrap_mean, spearman
    from empathybench.judging.calibration import load_labels
    from empathybench.judging.judge_calibration import fit_calibration
    from empathybench.judging.no_reply import check_reply
    from empathybench.judging.offline_features import (
        FEATURES_V1,
        FEATURES_V2,
        FEATURES_V3,
        judge_features,
        reply_view,
    )
    from empathybench.judging.offline_judge import (
        JUDGE_TARGETS,
        cross_fitted_scores,
        judge_targets,
        load_offline_judge,
        scenario_folds,
    )
    from empathybench.judging.response_fit import fit_rows
    from empathybench.scorer.encoder import load_encoder
    from empathybench.scorer.heads import HeadConfig, TrainingSettings

    started = time.perf_counter()
    w1 = load_labels("judge-labels-w1")
    batches = {
        "v1": load_labels("judge-labels-v1"),
        "v2": load_labels("judge-labels-v2"),
        "w1": [r for r in w1 if r.split == "train"],
    }
    records = [r for batch in batches.values() for r in batch]
    batch_of = [name for name, batch in batches.items() for _ in batch]
    w1_test = [r for r in w1 if r.split == "test"]
    held_out = load_labels("calibration-v1")
    everything = records + w1_test + held_out
    head_rows = np.array([check_reply(r.response, r.scenario).no_reply is None for r in everything])
    encoder = load_encoder()
    scenarios = [r.scenario for r in everything]
    responses = [r.response for r in everything]
    features = _cached_features(
        args.cache,
        everything,
        lambda fs: judge_features(encoder, scenarios, responses, fs),
        (FEATURES_V1, FEATURES_V2),
    )
    features[FEATURES_V3] = np.concatenate(
        [
            features[FEATURES_V2],
            fit_rows(
                scenarios,
                [reply_view(s, r).reply for s, r in zip(scenarios, responses, strict=True)],
            ),
        ],
        axis=1,
    )
    targets, mask = judge_targets(everything)
    words = np.array([math.log1p(len(r.response.split())) for r in everything])
    print(
        f"features for {len(everything)} replies in {time.perf_counter() - started:.0f}s",
        flush=True,
    )

    def config(feature_set: str, ridge: bool = False) -> HeadConfig:
        penalty = args.ridge_penalty_v3 if feature_set == FEATURES_V3 else args.ridge_penalty
        return HeadConfig(
            task="judge",
            encoder="minilm",
            encoder_dimension=encoder.dimension,
            features=feature_set,
            targets=JUDGE_TARGETS,
            target_low=0.0,
            target_high=1.0,  # type: ignore[arg-type]
            input_dimension=features[feature_set].shape[1],
            hidden_size=0 if ridge else 256,
            training=(
                TrainingSettings(solver="ridge", ridge_penalty=penalty)
                if ridge
                else TrainingSettings(epochs=args.epochs)
            ),
        )

    def head_variants(
        feature_set: str, calibrations: Sequence[str], ridge: bool = False
    ) -> Callable[..., dict[str, np.ndarray]]:
        """Raw head predictions plus each calibration, sharing one nested cross-fit."""
        from empathybench.scorer.heads import train_head

        x = features[feature_set]

        def predict(train: list[int], test: list[int]) -> dict[str, np.ndarray]:
            train = [i for i in train if head_rows[i]]
            cfg = config(feature_set, ridge)
            head = train_head(cfg, x[train], targets[train], mask[train])
            raw = head.predict(x[test])
            out = {"raw": raw}
            if not calibrations:
                return out
            inner = scenario_folds([everything[i] for i in train], args.folds)
            oof = cross_fitted_scores(cfg, x[train], targets[train], mask[train], inner)
            n = len(DIMENSIONS)
            for method in calibrations:
                calibration = fit_calibration(
                    list(DIMENSIONS),
                    oof[:, :n],
                    targets[train][:, :n],
                    mask[train][:, :n],
                    version="cv",
                    method=method,  # type: ignore[arg-type]
                )
                out[method] = calibration.apply(JUDGE_TARGETS, raw)
            return out

        return predict

    def length_model(train: list[int], test: list[int]) -> np.ndarray:
        train = [i for i in train if head_rows[i]]
        out = np.zeros((len(test), len(JUDGE_TARGETS)), dtype=np.float32)
        for column in range(len(JUDGE_TARGETS)):
            rows = [i for i in train if mask[i, column]]
            slope, intercept = np.polyfit(words[rows], targets[rows, column], 1)
            out[:, column] = np.clip(intercept + slope * words[test], 0, 1)
        return out

    shipped = load_offline_judge("offline:judge-v1")
    shipped_raw = shipped.head.predict(features[FEATURES_V1])
    shipped_v2 = load_offline_judge("offline:judge-v2")
    shipped_v2_scores = shipped_v2.calibration.apply(  # type: ignore[union-attr]
        JUDGE_TARGETS, shipped_v2.head.predict(features[FEATURES_V2])
    )

    def shipped_model(train: list[int], test: list[int]) -> np.ndarray:
        return shipped_raw[test]

    def shipped_v2_model(train: list[int], test: list[int]) -> np.ndarray:
        return shipped_v2_scores[test]

    def single(name: str, model: Predictor) -> Callable[..., dict[str, np.ndarray]]:
        return lambda train, test: {name: model(train, test)}

    v1_recipe = head_variants(FEATURES_V1, [])
    v2_heads = head_variants(FEATURES_V2, ["isotonic", "linear"], ridge=True)
    v3_heads = head_variants(FEATURES_V3, ["linear"], ridge=True)
    families: dict[str, tuple[Callable[..., dict[str, np.ndarray]], dict[str, str]]] = {
        "length": (single("length", length_model), {"length": "length"}),
        "judge-v1 shipped": (single("shipped", shipped_model), {"shipped": "judge-v1 shipped"}),
        "judge-v2 shipped": (
            single("shipped", shipped_v2_model),
            {"shipped": "judge-v2 shipped"},
        ),
        "v1 recipe": (v1_recipe, {"raw": "v1 recipe"}),
        "v2 mlp": (head_variants(FEATURES_V2, []), {"raw": "v2 MLP raw"}),
        "v2": (
            v2_heads,
            {
                "raw": "v2 ridge raw",
                "isotonic": "v2 ridge + isotonic",
                "linear": "v2 ridge + linear",
            },
        ),
        "v3": (v3_heads, {"raw": "v3 ridge raw", "linear": "v3 ridge + linear"}),
    }

    def with_rule(rows: Sequence[int], predictions: np.ndarray) -> np.ndarray:
        out = predictions.copy()
        out[~head_rows[list(rows)]] = 0.0
        return out

    def metrics(rows: Sequence[int], predictions: np.ndarray) -> dict[str, dict[str, Any]]:
        result = {}
        for dimension in DIMENSIONS:
            column = JUDGE_TARGETS.index(dimension)
            keep = [k for k, i in enumerate(rows) if mask[i, column]]
            label = [float(targets[rows[k], column]) for k in keep]
            predicted = [float(predictions[k, column]) for k in keep]
            rho, n = spearman(label, predicted)
            clusters = [everything[rows[k]].scenario.id for k in keep]
            rho_ci = spearman_interval(label, predicted, clusters)
            bias = bootstrap_mean(
                [p - h for p, h in zip(predicted, label, strict=True)],
                clusters=[everything[rows[k]].scenario.id for k in keep],
                seed=0,
            )
            result[dimension] = {
                "n": n,
                "spearman": rho,
                "spearman_ci": list(rho_ci),
                "bias": bias.mean,
                "bias_ci": [bias.low, bias.high],
                "label_mean": float(np.mean(label)),
                "predicted_mean": float(np.mean(predicted)),
            }
        return result

    pool = list(range(len(records)))
    fold_of = scenario_folds(records, args.folds)
    v2_rows = [i for i in pool if batch_of[i] == "v2"]
    v1_rows = [i for i in pool if batch_of[i] == "v1"]
    w1_rows = list(range(len(records), len(records) + len(w1_test)))
    cal_rows = list(range(len(records) + len(w1_test), len(everything)))
    results: dict[str, Any] = {
        "grouped_cv": {},
        "grouped_cv_v2_rows": {},
        "v1_to_v2": {},
        "w1_test": {},
        "calibration_v1": {},
    }
    chosen = {f.strip() for f in args.models.split(",") if f.strip()} or set(families)
    for family, (model, names) in families.items():
        if family not in chosen:
            continue
        t0 = time.perf_counter()
        oof = {
            name: np.zeros((len(pool), len(JUDGE_TARGETS)), dtype=np.float32)
            for name in names.values()
        }
        for fold in range(args.folds):
            test = [i for i in pool if fold_of[i] == fold]
            train = [i for i in pool if fold_of[i] != fold]
            for key, predicted in model(train, test).items():
                oof[names[key]][test] = with_rule(test, predicted)
        transfer = model(v1_rows, v2_rows)
        outside = model(pool, w1_rows + cal_rows)
        independent = {key: value[: len(w1_rows)] for key, value in outside.items()}
        outside = {key: value[len(w1_rows) :] for key, value in outside.items()}
        for key, name in names.items():
            results["w1_test"][name] = metrics(w1_rows, with_rule(w1_rows, independent[key]))
            if not family.endswith("shipped"):
                results["grouped_cv"][name] = metrics(pool, oof[name])
            if family != "judge-v2 shipped":  # judge-v2 was trained on the v2 rows
                results["grouped_cv_v2_rows"][name] = metrics(v2_rows, oof[name][v2_rows])
                results["v1_to_v2"][name] = metrics(v2_rows, with_rule(v2_rows, transfer[key]))
            results["calibration_v1"][name] = metrics(cal_rows, with_rule(cal_rows, outside[key]))
        print(f"{family}: {time.perf_counter() - t0:.0f}s", flush=True)

    titles = {
        "grouped_cv": f"{args.folds}-fold CV by scenario, v1 + v2 + w1 train ({len(pool)} replies)",
        "grouped_cv_v2_rows": "the same CV predictions, judge-labels-v2 rows only",
        "v1_to_v2": "trained on batch v1 only, tested on batch v2 (other author, other register)",
        "w1_test": f"trained on the pool, tested on the w1 test half ({len(w1_rows)} replies)",
        "calibration_v1": "trained on the pool, tested on calibration-v1 (never trained on)",
    }
    for key, title in titles.items():
        print(f"\n{title}\nSpearman [95% CI] / bias [95% CI]")
        print(f"{'model':<20}" + "".join(f"{SHORT[d]:>37}" for d in DIMENSIONS))
        for name, per in results[key].items():
            cells = []
            for d in DIMENSIONS:
                m = per[d]
                lo, hi = m["bias_ci"]
                ci = f"[{lo:+.2f},{hi:+.2f}]" if lo is not None else ""
                rho = "-" if m["spearman"] is None else f"{m['spearman']:.2f}"
                low, high = m["spearman_ci"]
                rho_ci = "" if low is None else f"[{low:.2f},{high:.2f}]"
                cells.append(f"{rho:>4} {rho_ci:<11} {m['bias']:+.3f} {ci:<15}")
            print(f"{name:<20}" + "".join(f"{c:>37}" for c in cells))
    results["settings"] = {
        "folds": args.folds,
        "epochs": args.epochs,
        "records": {k: len(v) for k, v in batches.items()},
        "w1_test": len(w1_test),
        "calibration_v1": len(held_out),
        "seconds": round(time.perf_counter() - started, 1),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"\nwrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
