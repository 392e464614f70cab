"""Platform-independent seeded randomness: a 64-bit mixer, a stream and a permutation.

Python's ``random`` module is not used so that a seed gives the same suite on every
Python version and machine: everything here is integer arithmetic defined in this file.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableSequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    import numpy as np

MASK64 = (1 << 64) - 1
T = TypeVar("T")


def mix64(value: int) -> int:
    """The splitmix64 finaliser: a bijective, well-scrambled map on 64-bit integers."""
    value = (value + 0x9E3779B97F4A7C15) & MASK64
    value = ((value ^ (value >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    value = ((value ^ (value >> 27)) * 0x94D049BB133111EB) & MASK64
    return value ^ (value >> 31)


def derive_key(seed: int, *labels: str | int) -> int:
    """A 64-bit key from a seed and labels; distinct labels give unrelated keys."""
    key = mix64(seed & MASK64)
    for label in labels:
        data = label.encode() if isinstance(label, str) else str(label).encode()
        for byte in data:
            key = mix64(key ^ byte)
        key = mix64(key ^ 0xFF)
    return key


class Stream:
    """A deterministic stream of 64-bit values (splitmix64)."""

    def __init__(self, key: int) -> None:
        self._state = key & MASK64

    def next64(self) -> int:
        self._state = (self._state + 0x9E3779B97F4A7C15) & MASK64
        return mix64(self._state)

    def below(self, bound: int) -> int:
        """Uniform integer in [0, bound) by rejection (no modulo bias)."""
        if bound <= 0:
            raise ValueError("bound must be positive")
        limit = MASK64 + 1 - ((MASK64 + 1) % bound)
        while True:
            value = self.next64()
            if value < limit:
                return value % bound

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher–Yates shuffle in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


class IndexPermutation:
    """A keyed pseudo-random permutation of ``range(size)`` for any size.

    A balanced four-round Feistel network (Luby–Rackoff) on the smallest even-width power
    of two covering ``size``, with cycle-walking to stay inside the range. Lets the
    generator visit a space of billions of combinations in random order, without repeats
    and without storing it.
    """

    ROUNDS = 4

    def __init__(self, size: int, key: int) -> None:
        if size <= 0:
            raise ValueError("size must be positive")
        self.size = size
        bits = max(2, (size - 1).bit_length())
        bits += bits % 2
        self._half = bits // 2
        self._half_mask = (1 << self._half) - 1
        self._blocks = (self._half + 63) // 64
        self._round_keys = tuple(derive_key(key, "round", r) for r in range(self.ROUNDS))

    def _round(self, right: int, round_key: int) -> int:
        mixed = mix64((right ^ round_key) & MASK64)
        # Halves wider than 64 bits: extend with further blocks chained on the input.
        for block in range(1, self._blocks):
            chunk = (right >> (64 * block)) & MASK64
            mixed |= mix64(chunk ^ mixed ^ round_key) << (64 * block)
        return mixed

    def _encrypt(self, value: int) -> int:
        half, mask = self._half, self._half_mask
        left, right = value >> half, value & mask
        if self._blocks == 1:
            for round_key in self._round_keys:
                # splitmix64's finaliser, inlined: this is the generator's hottest loop.
                x = ((right ^ round_key) + 0x9E3779B97F4A7C15) & MASK64
                x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
                x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
                left, right = right, (left ^ x ^ (x >> 31)) & mask
        else:
            # ``_round`` inlined (the episode versions' spaces are beyond 64 bits): the same
            # arithmetic, without two function calls per block and round.
            shifts = range(64, 64 * self._blocks, 64)
            for round_key in self._round_keys:
                x = ((right ^ round_key) + 0x9E3779B97F4A7C15) & MASK64
                x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
                x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
                mixed = x ^ (x >> 31)
                for shift in shifts:
                    x = (
                        (((right >> shift) & MASK64) ^ mixed ^ round_key) + 0x9E3779B97F4A7C15
                    ) & MASK64
                    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
                    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
                    mixed |= (x ^ (x >> 31)) << shift
                left, right = right, (left ^ mixed) & mask
        return (left << half) | right

    def __getitem__(self, position: int) -> int:
        if not 0 <= position < self.size:
            raise IndexError(position)
        value = self._encrypt(position)
        while value >= self.size:
            value = self._encrypt(value)
        return value

    def __iter__(self) -> Iterator[int]:
        for position in range(self.size):
            yield self[position]

    def values(self, start: int, count: int) -> list[int]:
        """``[self[p] for p in range(start, start + count)]`` (clipped to the size), the
        same values: vectorised with numpy when the halves are 65-128 bits wide (every
        episode version's spaces), where one Python lookup costs about 9 µs."""
        stop = min(start + count, self.size)
        if start < 0 or start > stop:
            raise IndexError(start)
        if not 64 < self._half <= 128 or self.size >= 1 << 256 or stop > 1 << 64:
            return [self[position] for position in range(start, stop)]
        return self._wide_values(start, stop)

    def _wide_values(self, start: int, stop: int) -> list[int]:
        """The Feistel rounds on two 64-bit limbs per half (``_round`` for two blocks:
        block 0 mixes the low limb with the key, block 1 the high limb with block 0's output
        and the key), with cycle-walking on the entries still out of range."""
        import numpy as np  # here, not at the top: v1 generation never needs it

        half = self._half
        top_mask = np.uint64((1 << (half - 64)) - 1)
        keys = [np.uint64(key) for key in self._round_keys]
        size_left, size_right = self.size >> half, self.size & self._half_mask
        limit = [np.uint64(size_left >> 64), np.uint64(size_left & MASK64)]
        limit += [np.uint64(size_right >> 64), np.uint64(size_right & MASK64)]
        count = stop - start
        # Limbs, high to low: left_hi, left_lo, right_hi, right_lo (positions < 2**64).
        state = np.zeros((4, count), dtype=np.uint64)
        state[3] = np.arange(start, stop, dtype=np.uint64)
        pending = np.arange(count)
        with np.errstate(over="ignore"):
            while pending.size:
                left_hi, left_lo, right_hi, right_lo = state[:, pending]
                for key in keys:
                    low = _mix64_array(right_lo ^ key)
                    high = _mix64_array(right_hi ^ low ^ key)
                    left_hi, left_lo, right_hi, right_lo = (
                        right_hi,
                        right_lo,
                        (left_hi ^ high) & top_mask,
                        left_lo ^ low,
                    )
                state[:, pending] = left_hi, left_lo, right_hi, right_lo
                # Out of range (value >= size), compared limb by limb from the top.
                over = np.zeros(pending.size, dtype=bool)
                equal = np.ones(pending.size, dtype=bool)
                for limb, bound in zip((left_hi, left_lo, right_hi, right_lo), limit, strict=True):
                    over |= equal & (limb > bound)
                    equal &= limb == bound
                pending = pending[over | equal]
        out = []
        shift = half + 64
        for l_hi, l_lo, r_hi, r_lo in zip(*(row.tolist() for row in state), strict=True):
            out.append((l_hi << shift) | (l_lo << half) | (r_hi << 64) | r_lo)
        return out


def _mix64_array(values: np.ndarray) -> np.ndarray:
    """``mix64`` on every element of a uint64 array (multiplication wraps at 64 bits)."""
    import numpy as np

    x = values + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))
