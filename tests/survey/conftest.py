"""Fixtures of the survey tests (the data itself is in survey_helpers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from empathybench.survey.build import write_survey
from empathybench.survey.records import SurveyForm, SurveyKey
from tests.survey.survey_helpers import make_survey


@pytest.fixture
def survey(tmp_path: Path) -> tuple[Path, SurveyForm, SurveyKey]:
    """A written survey directory with two questions and no votes."""
    form, key = make_survey()
    directory = tmp_path / "survey"
    write_survey(directory, form, key)
    return directory, form, key
