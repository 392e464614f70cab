"""Every Python example in docs/python-api.md runs as written (the offline-judge one is slow:
it loads the bundled encoder)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parent.parent / "docs" / "python-api.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def _param(index: int, code: str) -> object:
    marks = [pytest.mark.slow] if '"offline"' in code else []
    return pytest.param(code, id=f"example-{index}", marks=marks)


def test_the_page_has_examples() -> None:
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("code", [_param(i, code) for i, code in enumerate(BLOCKS)])
def test_example_runs(code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    exec(compile(code, str(DOC), "exec"), {"__name__": "__doc_example__"})
