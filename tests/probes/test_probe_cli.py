"""``empathybench probe train | eval | steer`` in-process on a tiny saved model (hf:PATH)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from empathybench.cli import main
from empathybench.probes.pairs import load_pairs

pytestmark = pytest.mark.torch


def run(*args: str) -> int:
    try:
        main(list(args))
    except SystemExit as stop:
        return int(stop.code or 0)
    return 0


@pytest.fixture(scope="module")
def pairs_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    seen: dict[str, int] = {}
    lines = []
    for pair in load_pairs().pairs:
        seen[pair.scenario] = seen.get(pair.scenario, 0) + 1
        if seen[pair.scenario] <= 2:
            lines.append(pair.model_dump_json())
    path = tmp_path_factory.mktemp("cli-pairs") / "pairs.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_train_eval_steer_and_rescore(
    tiny_llama_dir: Path, pairs_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    probe = tmp_path / "probe"
    model = f"hf:{tiny_llama_dir}"
    assert (
        run("probe", "train", "--model", model, "--pairs", str(pairs_file), "-o", str(probe)) == 0
    )
    assert {"probe.json", "probe.safetensors", "activations.safetensors"} <= {
        p.name for p in probe.iterdir()
    }
    scores = tmp_path / "scores.jsonl"
    pair_ids = [json.loads(line)["id"] for line in pairs_file.read_text().splitlines()]
    scores.write_text(
        "".join(
            json.dumps({"id": f"{pid}:{side}", "score": 3.0 if side == "empathic" else 1.0}) + "\n"
            for pid in pair_ids
            for side in ("empathic", "non_empathic")
        )
    )
    code = run(
        "probe", "eval", "--probe", str(probe), "--scores", str(scores),
        "--random-directions", "10", "--permutations", "20",
    )  # fmt: skip
    assert code == 0
    evaluation = json.loads((probe / "eval.json").read_text())
    assert len(evaluation["layers"]) == 4 and evaluation["correlation"]["n"] == 12
    assert (probe / "layer_sweep.png").stat().st_size > 0
    code = run(
        "probe", "steer", "--probe", str(probe), "--alphas", "-2,0,2", "--seeds", "1",
        "--prompts", "2", "--max-new-tokens", "4", "--scorer", "none", "--layer", "1",
    )  # fmt: skip
    assert code == 0
    steer = json.loads((probe / "steer.json").read_text())
    assert len(steer["samples"]) == 6 and steer["scorer"] is None
    assert (probe / "dose_response.png").stat().st_size > 0
    verdicts = tmp_path / "verdicts.jsonl"
    verdicts.write_text(
        "".join(
            json.dumps({"id": s["id"], "score": 2.0 + s["alpha"] / 10}) + "\n"
            for s in steer["samples"]
        )
    )
    code = run(
        "probe", "steer", "--from-samples", str(probe / "steer.json"), "--scores", str(verdicts),
        "-o", str(tmp_path / "rescored"),
    )  # fmt: skip
    assert code == 0
    rescored = json.loads((tmp_path / "rescored" / "steer.json").read_text())
    assert rescored["layers"][0]["success_rate"] == 1.0
    assert "steering dose-response" in capsys.readouterr().out


def test_bad_input_is_one_error_line(
    tiny_llama_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = [
        (["probe", "train", "--model", "openai/gpt-4o"], "unknown probe model"),
        (["probe", "train", "--model", f"hf:{tmp_path}/nothing"], "cannot load"),
        (["probe", "eval", "--probe", str(tmp_path)], "not a probe directory"),
        (["probe", "eval"], "give --probe DIR"),
        (["probe", "steer", "--model", f"hf:{tiny_llama_dir}", "--alphas", "a,b"], "bad --alphas"),
        (["probe", "train", "--model", f"hf:{tiny_llama_dir}", "--layers", "9"], "out of range"),
    ]
    for args, message in cases:
        capsys.readouterr()
        assert run(*args) == 2, args
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1 or err.count("error:") == 1
