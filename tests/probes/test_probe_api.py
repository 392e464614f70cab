"""``eb.train_probe``, ``eb.evaluate_probes``, ``eb.steer`` and ``eb.rescore_steering``: typed
results, files written, and bad parameters named as parameters (the CLI shows them as flags)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

import empathybench as eb
from empathybench.cli import main
from empathybench.probes.pairs import load_pairs


@pytest.mark.parametrize(
    ("call", "parameters"),
    [
        (lambda: eb.train_probe("local/smollm2", pooling="max"), ("pooling",)),  # type: ignore[arg-type]
        (lambda: eb.train_probe("local/smollm2", prompt_format="x"), ("prompt_format",)),  # type: ignore[arg-type]
        (lambda: eb.evaluate_probes(), ("probes", "models")),
        (lambda: eb.evaluate_probes([Path("p")], permutations=0), ("permutations",)),
        (lambda: eb.evaluate_probes([Path("p")], seed=-1), ("seed",)),
        (lambda: eb.steer(), ("probe", "model")),
        (lambda: eb.steer(Path("p"), alphas=[]), ("alphas",)),
        (lambda: eb.steer(Path("p"), seeds=0), ("seeds",)),
        (lambda: eb.steer(Path("p"), alphas=[float("nan")]), ("alphas",)),
        (lambda: eb.steer(Path("p"), top_p=2.0), ("top_p",)),
    ],
)
def test_bad_parameters_are_refused_before_any_model_loads(
    call: Callable[[], object], parameters: tuple[str, ...]
) -> None:
    with pytest.raises(eb.ParameterError) as caught:
        call()
    assert caught.value.parameters == parameters
    assert "--" not in str(caught.value)


def test_a_bad_dtype_names_the_parameter_in_python_and_the_flag_on_the_command_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(eb.ParameterError) as caught:
        eb.train_probe("local/smollm2", dtype="int8")  # type: ignore[arg-type]
    assert caught.value.parameter == "dtype" and "unknown dtype 'int8'" in str(caught.value)
    with pytest.raises(SystemExit) as stop:
        main(["probe", "train", "--model", "local/smollm2", "--dtype", "int8"])
    assert stop.value.code == 2
    assert capsys.readouterr().err.startswith("error: unknown --dtype 'int8'")


@pytest.mark.torch
def test_train_evaluate_steer_and_rescore_from_python(tiny_llama_dir: Path, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    seen: dict[str, int] = {}
    lines = []
    for pair in load_pairs().pairs:
        seen[pair.scenario] = seen.get(pair.scenario, 0) + 1
        if seen[pair.scenario] <= 2:
            lines.append(pair.model_dump_json())
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("\n".join(lines) + "\n")
    updates: list[eb.ProgressUpdate] = []
    training = eb.train_probe(
        f"hf:{tiny_llama_dir}", tmp_path / "probe", pairs=str(pairs), progress=updates.append
    )
    assert isinstance(training, eb.ProbeTraining) and training.directory == tmp_path / "probe"
    assert (training.directory / "probe.json").is_file()
    assert [u.task.split()[0] for u in updates if u.completed == u.total] == ["loading", "reading"]
    scores = tmp_path / "scores.jsonl"
    scores.write_text(
        "".join(
            json.dumps({"id": f"{p.id}:{side}", "score": 3.0 if side == "empathic" else 1.0}) + "\n"
            for p in load_pairs(str(pairs)).pairs
            for side in ("empathic", "non_empathic")
        )
    )
    done = eb.evaluate_probes(
        [training.directory], scores=scores, random_directions=5, permutations=10
    )
    [evaluated] = done.evaluations
    assert evaluated.evaluation_file == training.directory / "eval.json"
    assert evaluated.plot_file.stat().st_size > 0 and done.trained == []
    assert evaluated.evaluation.correlation is not None
    steering = eb.steer(
        training.directory, layers=[1], alphas=[2, -2, 0, 2], seeds=1, prompts=2,
        max_new_tokens=3, scorer="none",
    )  # fmt: skip
    assert isinstance(steering, eb.Steering) and steering.trained is None
    assert sorted({s.alpha for s in steering.result.samples}) == [-2.0, 0.0, 2.0]
    assert steering.result.scorer is None and steering.steering_file.is_file()
    by_id = tmp_path / "by_id.jsonl"
    by_id.write_text(
        "".join(
            json.dumps({"id": s.id, "score": 2.0 + s.alpha}) + "\n" for s in steering.result.samples
        )
    )
    rescored = eb.rescore_steering(steering.steering_file, tmp_path / "again", scores=by_id)
    assert rescored.directory == tmp_path / "again" and rescored.result.scorer == str(by_id)
    assert rescored.result.layers[0].success_rate == 1.0
