"""One person, one rater id: case and Unicode width do not make new raters."""

from __future__ import annotations

import pytest

from empathybench.annotation.session import canonical_rater_id
from empathybench.errors import UserError
from empathybench.survey.session import normalise_rater_id


@pytest.mark.parametrize("spelling", ["alice", "Alice", " ALICE ", "ａｌｉｃｅ", "Ａｌｉｃｅ"])
def test_spellings_of_one_rater_are_one_id(spelling: str) -> None:
    assert normalise_rater_id(spelling) == "alice"
    assert canonical_rater_id(spelling) == "alice"


@pytest.mark.parametrize("bad", ["", "   ", "a\nb", "x" * 65])
def test_bad_ids_are_refused(bad: str) -> None:
    with pytest.raises(UserError):
        normalise_rater_id(bad)
