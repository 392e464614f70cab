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
