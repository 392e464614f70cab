from pathlib import Path

import pytest

from empathybench.errors import UserError
from empathybench.jsonl import read_json_record
from empathybench.types import TokenUsage


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{nope", "not valid JSON"),
        (b"[1, 2]", "expected a JSON object"),
        (b"\xff\xfe{}", "not UTF-8 text"),
        (b'{"input_tokens": "many"}', "input_tokens"),
        (b'{"surprise": 1}', "surprise"),
    ],
)
def test_a_bad_json_record_file_is_one_error_naming_it(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "record.json"
    path.write_bytes(content)
    with pytest.raises(UserError, match=message) as raised:
        read_json_record(path, TokenUsage)
    assert str(path) in str(raised.value)


def test_a_good_record_and_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "usage.json"
    path.write_text('{"input_tokens": 3, "output_tokens": 4}', encoding="utf-8")
    assert read_json_record(path, TokenUsage) == TokenUsage(input_tokens=3, output_tokens=4)
    with pytest.raises(UserError, match="no such file"):
        read_json_record(tmp_path / "missing.json", TokenUsage)


def test_read_records_names_the_line_that_is_not_utf8(tmp_path: Path) -> None:
    from empathybench.jsonl import read_records

    path = tmp_path / "records.jsonl"
    path.write_bytes(b'{"input_tokens": 1}\r\n{"input_tokens": "\xff"}\n')
    with pytest.raises(UserError, match=r"records\.jsonl:2: not UTF-8 text"):
        list(read_records(path, TokenUsage))
    path.write_bytes(b'{"input_tokens": 1}\r\n\n{"input_tokens": 2}\n')
    assert [r.input_tokens for r in read_records(path, TokenUsage)] == [1, 2]
