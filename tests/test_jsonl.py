from pathlib import Path

import pytest

from empathybench import jsonl
from empathybench.errors import UserError
from empathybench.jsonl import RecordFormatError, read_json, read_json_lines, read_json_record
from empathybench.records import TokenUsage


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


def _lines(path: Path, content: bytes, **options: bool) -> list[tuple[int, object]]:
    path.write_bytes(content)
    return list(read_json_lines(path, **options))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"a": 1}\n{"a": \n', ":2: not valid JSON"),
        (b'{"a": 1}\n\xff\xfe\x00\n', ":2: not UTF-8 text"),
        (b"[" * 100_000 + b"]" * 100_000 + b"\n", ":1: JSON nested deeper than 64"),
        (b"[" * 65 + b"]" * 65 + b"\n", ":1: JSON nested deeper than 64"),
    ],
)
def test_a_bad_jsonl_line_is_one_error_naming_file_and_line(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "records.jsonl"
    with pytest.raises(RecordFormatError, match=message) as raised:
        _lines(path, content)
    assert str(raised.value).startswith(f"{path}:")


def test_nesting_up_to_the_limit_and_a_torn_tail(tmp_path: Path) -> None:
    deep = b"[" * 64 + b"]" * 64
    assert _lines(tmp_path / "a.jsonl", deep + b"\n\n{}\n") == [(1, eval(deep)), (3, {})]
    assert _lines(tmp_path / "b.jsonl", b'{"a": 1}\n{"a": 2', torn_tail=True) == [(1, {"a": 1})]
    with pytest.raises(RecordFormatError, match=":2: not valid JSON"):
        _lines(tmp_path / "c.jsonl", b'{"a": 1}\n{"a": 2')


def test_a_line_over_the_limit_is_refused_without_reading_it_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jsonl, "MAX_LINE_BYTES", 100)
    with pytest.raises(RecordFormatError, match=":2: line longer than 100 bytes"):
        _lines(tmp_path / "long.jsonl", b"{}\n" + b'{"a": "' + b"x" * 200 + b'"}\n')


@pytest.mark.parametrize("kind", ["folder", "binary", "missing", "large"])
def test_read_json_refuses_what_is_not_a_json_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    path = tmp_path / "x.json"
    if kind == "folder":
        path.mkdir()
    elif kind == "binary":
        path.write_bytes(b'{"a": "\x00"}')
    elif kind == "large":
        monkeypatch.setattr(jsonl, "MAX_FILE_BYTES", 10)
        path.write_text('{"a": "0123456789"}')
    expected = {"folder": "is a folder", "binary": "NUL", "missing": "no such file"}
    with pytest.raises(UserError, match=expected.get(kind, "larger than the 10 bytes")):
        read_json(path)


def test_a_failed_atomic_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    from empathybench.jsonl import atomic_write_text

    target = tmp_path / "manifest.json"
    target.write_text("old\n", encoding="utf-8")
    with pytest.raises(UnicodeEncodeError):
        atomic_write_text(target, "bytes that are not UTF-8: \udcff")
    assert target.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["manifest.json"]
