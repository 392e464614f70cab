from pathlib import Path

import pytest

from empathybench.therapy.study import Study
from tests.fakes.therapy_study import make_study


@pytest.fixture
def study(tmp_path: Path) -> Study:
    return make_study(tmp_path / "study")
