"""The fast canonical encoder writes the standard library's bytes, or hands over to it."""

from __future__ import annotations

import enum
from typing import Any

import pytest

from empathybench.jsonl import canonical_json_bytes, canonical_json_data
from empathybench.scenarios.generator import generate_records


class Colour(str, enum.Enum):
    RED = "red"


@pytest.mark.parametrize(
    "data",
    [
        {"text": 'quote " backslash \\ tab \t newline \n nul \x00 bell \x07 del \x7f'},
        {"unicode": "é ß 中文 😀 \u2028 \u2029 \ufeff"},
        {"big": 2**64 + 5, "negative_big": -(2**63) - 1, "edge": 2**63 - 1},
        {"edges": [2**64 - 1, -(2**63)], "over": 2**64, "under": -(2**63) - 1},
        {"outer": {"inner": {"index": 10**40, "name": "x"}}, "after": 10**41},
        {"in_a_list": [10**40, {"deeper": 10**41}], "top": 10**42},
        {"collision": "\ue0000\ue000", "big": 10**40},
        {"collision": "x\ue0000\ue000y", "big": 10**40},
        {"nested": [1, [2, {"b": None, "a": True}], False], "empty": {}, "list": []},
        {"subclass": Colour.RED, "int_key": {1: "x"}},
        ["a", 1, None],
    ],
)
def test_same_bytes_as_the_standard_library(data: Any) -> None:
    assert canonical_json_bytes(data) == canonical_json_data(data).encode("utf-8")


@pytest.mark.parametrize(
    "data",
    [
        {"id": "a", "provenance": {"seed": 1, "space_index": 10**40, "rank": 2}},
        {"provenance": {"space_index": 10**40}, "also_big": 10**41},  # a second one
        {"provenance": {"space_index": 10**40}, "collision": "\ue0000\ue000"},
        {"provenance": {"space_index": -(10**40)}},
        {"provenance": {"space_index": 7}},  # small: the general path
        {"provenance": {"space_index": "10"}},
        {"provenance": [10**40]},
        {"no_provenance": 10**40},
        ["provenance", 10**40],
        {"provenance": {"space_index": 10**40, "bad": Colour.RED}},
    ],
)
def test_the_big_integer_hint_writes_the_same_bytes(data: Any) -> None:
    hinted = canonical_json_bytes(data, ("provenance", "space_index"))
    assert hinted == canonical_json_data(data).encode("utf-8")


def test_a_lone_surrogate_fails_as_it_did() -> None:
    with pytest.raises(UnicodeEncodeError):
        canonical_json_data({"surrogate": "\ud800"}).encode("utf-8")
    with pytest.raises(UnicodeEncodeError):
        canonical_json_bytes({"surrogate": "\ud800"})


def _has_float(value: object) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(_has_float(item) for item in value.values())
    if isinstance(value, list | tuple):
        return any(_has_float(item) for item in value)
    return False


@pytest.mark.parametrize("template_version", ["v1", "v2", "v3"])
def test_generator_records_hold_no_float_and_encode_identically(template_version: str) -> None:
    records = list(generate_records(300, 5, template_version=template_version))
    assert not any(_has_float(record) for record in records)
    expected = [canonical_json_data(r).encode("utf-8") for r in records]
    assert [canonical_json_bytes(r) for r in records] == expected
    hinted = [canonical_json_bytes(r, ("provenance", "space_index")) for r in records]
    assert hinted == expected
