import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from empathybench.scenarios.permutation import IndexPermutation, Stream, derive_key, mix64


def test_mix64_known_answers_pin_the_algorithm() -> None:
    # splitmix64 reference outputs: if these change, every suite's bytes change.
    assert mix64(0) == 0xE220A8397B1DCDAF
    assert mix64(1) == 0x910A2DEC89025CC1


@given(size=st.integers(min_value=1, max_value=3000), key=st.integers(0, 2**64 - 1))
@settings(max_examples=60, deadline=None)
def test_permutation_visits_every_index_once(size: int, key: int) -> None:
    permutation = IndexPermutation(size, key)
    assert sorted(permutation) == list(range(size))


def test_permutation_of_a_huge_space_has_no_repeats_in_a_prefix() -> None:
    permutation = IndexPermutation(10**20, derive_key(5, "huge"))
    prefix = [permutation[i] for i in range(20000)]
    assert len(set(prefix)) == len(prefix)
    assert all(0 <= value < 10**20 for value in prefix)


@given(
    bits=st.sampled_from([130, 144, 200, 260]),
    value=st.integers(min_value=0),
    key=st.integers(0, 2**64 - 1),
)
@settings(max_examples=80, deadline=None)
def test_wide_rounds_inlined_match_the_reference_round(bits: int, value: int, key: int) -> None:
    """Spaces beyond 64 bits (every episode version's) encrypt with ``_round`` inlined; the
    reference composition of ``_round`` must give the same values, or suites change."""
    permutation = IndexPermutation(2**bits - 3, key)
    value %= 2 ** (2 * permutation._half)
    half, mask = permutation._half, permutation._half_mask
    left, right = value >> half, value & mask
    for round_key in permutation._round_keys:
        left, right = right, (left ^ permutation._round(right, round_key)) & mask
    assert permutation._encrypt(value) == (left << half) | right


@given(
    size=st.one_of(
        st.integers(min_value=2**129, max_value=2**256 - 1),  # vectorised (65-128 bit halves)
        st.integers(min_value=1, max_value=2**40),  # narrow: one lookup at a time
        st.integers(min_value=2**257, max_value=2**300),  # three limbs: one at a time
    ),
    start=st.integers(min_value=0, max_value=2000),
    count=st.integers(min_value=0, max_value=700),
    key=st.integers(0, 2**64 - 1),
)
@settings(max_examples=60, deadline=None)
def test_values_are_the_lookups_in_a_window(size: int, start: int, count: int, key: int) -> None:
    permutation = IndexPermutation(size, key)
    start = min(start, size)
    expected = [permutation[p] for p in range(start, min(start + count, size))]
    assert permutation.values(start, count) == expected


def test_values_near_the_end_of_the_space_and_past_it() -> None:
    permutation = IndexPermutation(2**130 + 5, 11)
    assert permutation.values(2**130, 10) == [permutation[2**130 + i] for i in range(5)]
    edge = IndexPermutation(2**256, 5)  # halves of 128 bits, size one past the limbs
    assert edge.values(7, 3) == [edge[7], edge[8], edge[9]]
    small = IndexPermutation(10, 3)
    assert sorted(small.values(0, 50)) == list(range(10))
    with pytest.raises(IndexError):
        small.values(11, 1)


def test_keys_change_the_order_and_the_same_key_repeats_it() -> None:
    first = list(IndexPermutation(1000, derive_key(1, "a")))
    assert first == list(IndexPermutation(1000, derive_key(1, "a")))
    assert first != list(IndexPermutation(1000, derive_key(2, "a")))
    assert first != list(IndexPermutation(1000, derive_key(1, "b")))


def test_stream_below_is_in_range_and_roughly_uniform() -> None:
    stream = Stream(derive_key(9, "uniform"))
    counts = [0] * 3
    for _ in range(30000):
        counts[stream.below(3)] += 1
    assert all(9500 < count < 10500 for count in counts)


def test_shuffle_is_a_deterministic_permutation() -> None:
    items = list(range(100))
    Stream(7).shuffle(items)
    again = list(range(100))
    Stream(7).shuffle(again)
    assert items == again
    assert sorted(items) == list(range(100))
    assert items != list(range(100))
