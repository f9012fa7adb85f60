"""A seeded random source that gives the same numbers on every machine and Python.

`random.Random` promises no stability across versions for shuffle and choice, so the
engine draws from SHA-256 of (seed, counter) and does its own unbiased sampling.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


class SeededRandom:
    def __init__(self, seed: int | str) -> None:
        self._seed = f"{type(seed).__name__}:{seed}".encode()
        self._counter = 0
        self._pool = 0
        self._bits = 0

    def _refill(self) -> None:
        block = hashlib.sha256(self._seed + self._counter.to_bytes(8, "big")).digest()
        self._counter += 1
        self._pool = (self._pool << 256) | int.from_bytes(block, "big")
        self._bits += 256

    def getrandbits(self, k: int) -> int:
        while self._bits < k:
            self._refill()
        self._bits -= k
        value = self._pool >> self._bits
        self._pool &= (1 << self._bits) - 1
        return value

    def randbelow(self, n: int) -> int:
        """Uniform in [0, n), by rejection so no value is favoured."""
        if n <= 0:
            raise ValueError("randbelow needs a positive bound")
        k = n.bit_length()
        while True:
            # getrandbits(k), inlined: bots draw once per move, a million times a simulation.
            while self._bits < k:
                self._refill()
            bits = self._bits - k
            value = self._pool >> bits
            self._pool &= (1 << bits) - 1
            self._bits = bits
            if value < n:
                return value

    def choice(self, items: Sequence[T]) -> T:
        return items[self.randbelow(len(items))]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        result = list(items)
        for i in range(len(result) - 1, 0, -1):
            j = self.randbelow(i + 1)
            result[i], result[j] = result[j], result[i]
        return result

    def fork(self, label: str) -> SeededRandom:
        """An independent stream, so adding draws in one place does not shift another."""
        return SeededRandom(f"{self._seed.decode()}/{label}")
