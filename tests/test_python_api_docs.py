"""Every Python example in docs/python-api.md runs as written (those that load the bundled
encoder or model are slow and need torch)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parent.parent / "docs" / "python-api.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


HEAVY = ('"offline"', "eb.score_text(", '"local/smollm2"')
"""What marks an example that loads torch models (the offline judge or scorer, the bundled
model)."""


def _param(index: int, code: str) -> object:
    heavy = any(marker in code for marker in HEAVY)
    marks = [pytest.mark.slow, pytest.mark.torch] if heavy else []
    return pytest.param(code, id=f"example-{index}", marks=marks)


def test_the_page_has_examples() -> None:
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("code", [_param(i, code) for i, code in enumerate(BLOCKS)])
def test_example_runs(code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    exec(compile(code, str(DOC), "exec"), {"__name__": "__doc_example__"})
