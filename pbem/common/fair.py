"""Verifiable randomness.

Two streams feed each phase (see README, "Fairness"):

* **public chance** (dice) is seeded from a key of a reverse hash chain. At campaign creation
  the chain ``k[n] = H(seed), k[i] = H(k[i+1])`` is computed and only its anchor ``k[0]`` is
  published. Phase ``i`` uses ``k[i]`` and its report reveals it, so anyone checks
  ``H(k[i]) == k[i-1]`` at once, and nobody could have known ``k[i]`` in advance.
* **secret chance** (shuffles, hidden draws) is seeded from a secret key whose hash is published at
  creation and which is revealed only when the game ends.

Both are mixed with the players' entropy revealed in that phase's order files, committed one round
earlier, so no single party, the GM included, chooses an outcome.

:class:`Rng` turns a 32-byte seed into numbers with SHA-256 in counter mode, so a player can
recompute any draw by hand with nothing but ``sha256sum``: block ``j`` is
``SHA-256(seed || j as 8 big-endian bytes)``; each draw takes the next 8 bytes as a big-endian
integer ``x`` and returns ``x mod n``, drawing again when ``x`` falls in the last, incomplete
run of ``n`` (so every outcome is equally likely).
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

_TWO64 = 1 << 64
_WORDS = struct.Struct(">4Q").unpack  # a block's four 8-byte words, big-endian, in order
_LIMITS = {n: _TWO64 - (_TWO64 % n) for n in range(1, 257)}  # below(n): draws under it count


def H(data: bytes) -> bytes:
    """SHA-256."""
    return hashlib.sha256(data).digest()


def hmac_sha256(key: bytes, message: bytes) -> bytes:
    """HMAC-SHA-256 (RFC 2104) written out with two hashes: what ``hmac.new(key, message,
    hashlib.sha256).digest()`` gives, in a third of its time (forks are made every round)."""
    if len(key) > 64:
        key = H(key)
    key = key.ljust(64, b"\0")
    return H(key.translate(_OPAD) + H(key.translate(_IPAD) + message))


_OPAD = bytes(x ^ 0x5C for x in range(256))  # RFC 2104's outer and inner pads, byte by byte
_IPAD = bytes(x ^ 0x36 for x in range(256))


class Rng:
    """Deterministic random numbers from a seed: SHA-256 in counter mode (see module doc)."""

    def __init__(self, seed: bytes, label: str = "") -> None:
        self.seed = bytes(seed)
        self.label = label
        self._block = 0
        self._words: list[int] = []  # the current block's unused 8-byte words, last first
        self.draws = 0
        self.log: list[list[int]] | None = None  # [n, result] of every draw, when a caller asks

    def _take8(self) -> int:
        words = self._words
        if not words:
            block = H(self.seed + self._block.to_bytes(8, "big"))
            self._block += 1
            words.extend(_WORDS(block)[::-1])  # popped from the end
        return words.pop()

    def below(self, n: int) -> int:
        """A uniform integer in ``0 .. n-1``."""
        limit = _LIMITS.get(n)
        if limit is None:
            if n <= 0:
                raise ValueError("below() needs a positive bound")
            limit = _TWO64 - (_TWO64 % n)
        words = self._words
        x = words.pop() if words else self._take8()
        while x >= limit:  # the last, incomplete run of n: draw again
            x = words.pop() if words else self._take8()
        self.draws += 1
        if self.log is not None:
            self.log.append([n, x % n])
        return x % n

    def die(self, sides: int = 6) -> int:
        """A roll of a die with ``sides`` faces, 1..sides."""
        return self.below(sides) + 1

    def choice(self, items: Sequence[T]) -> T:
        """One element of ``items``, uniformly."""
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffle in place (Fisher-Yates from the end): ``below(i + 1)`` for each place ``i``
        from the last down to 1, written out here (a long deck makes many draws)."""
        words, log = self._words, self.log
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            limit = _LIMITS.get(n) or _TWO64 - (_TWO64 % n)
            x = words.pop() if words else self._take8()
            while x >= limit:
                x = words.pop() if words else self._take8()
            j = x % n
            self.draws += 1
            if log is not None:
                log.append([n, j])
            items[i], items[j] = items[j], items[i]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A shuffled copy of ``items``."""
        out = list(items)
        self.shuffle(out)
        return out

    def fork(self, label: str) -> Rng:
        """An independent stream derived from this seed and ``label``."""
        return Rng(hmac_sha256(self.seed, label.encode("utf-8")), label)


@dataclass(frozen=True)
class PhaseRng:
    """What a game's ``resolve`` receives: a public and a secret stream for one phase."""

    public: Rng
    secret: Rng


def hash_chain(seed: bytes, length: int) -> list[bytes]:
    """The reverse hash chain ``k[0..length]`` with ``k[length] = H(seed)``, ``k[i] = H(k[i+1])``."""
    chain = [H(seed)]
    for _ in range(length):
        chain.append(H(chain[-1]))
    chain.reverse()
    return chain


def check_chain_key(key: bytes, previous: bytes) -> bool:
    """True if ``key`` is the successor of ``previous`` in a reverse hash chain."""
    return hmac.compare_digest(H(key), previous)


def entropy_mix(reveals: dict[str, str]) -> bytes:
    """Mix the players' revealed entropy of one phase: SHA-256 of ``seat=value`` lines, sorted."""
    text = "\n".join(f"{seat}={reveals[seat]}" for seat in sorted(reveals))
    return H(text.encode("utf-8"))


def phase_seed(kind: str, key: bytes, phase_id: str, mix: bytes) -> bytes:
    """The seed of a phase's ``kind`` stream (``public`` or ``secret``)."""
    return H(b"pbem|" + kind.encode() + b"|" + key + b"|" + phase_id.encode("utf-8") + b"|" + mix)


def phase_rng(public_key: bytes, secret_key: bytes, phase_id: str, mix: bytes) -> PhaseRng:
    """The two streams of one phase."""
    return PhaseRng(
        public=Rng(phase_seed("public", public_key, phase_id, mix), "public"),
        secret=Rng(phase_seed("secret", secret_key, phase_id, mix), "secret"),
    )
