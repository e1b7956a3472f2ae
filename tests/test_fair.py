"""Verifiable randomness (README, "Fairness"): every draw is recomputed here from raw SHA-256 as
the module documentation tells a player to, not with pbem's own Rng, so a change to the stream,
the rejection rule, the shuffle, the hash chain or the seeds fails a test."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from pbem.common.fair import (
    H,
    Rng,
    check_chain_key,
    entropy_mix,
    hash_chain,
    hmac_sha256,
    phase_rng,
    phase_seed,
)

SEED = bytes(range(32))
TWO64 = 1 << 64


def words(seed: bytes, n: int) -> list[int]:
    """The first ``n`` 8-byte big-endian numbers of SHA-256(seed || j) in counter mode."""
    out: list[int] = []
    j = 0
    while len(out) < n:
        block = hashlib.sha256(seed + j.to_bytes(8, "big")).digest()
        out += [int.from_bytes(block[i:i + 8], "big") for i in range(0, 32, 8)]
        j += 1
    return out[:n]


def reference_below(stream: list[int], n: int) -> int:
    limit = TWO64 - TWO64 % n
    while True:
        x = stream.pop(0)
        if x < limit:
            return x % n


def test_draws_are_sha256_in_counter_mode() -> None:
    rng = Rng(SEED)
    stream = words(SEED, 40)
    for n in (6, 2, 1, 52, 1000, 7, 3, 10**9, 5, 6, 6, 6):
        assert rng.below(n) == reference_below(stream, n), n
    assert rng.draws == 12


def test_a_draw_in_the_last_incomplete_run_is_drawn_again() -> None:
    """With n just over 2^63 about half the numbers fall in the incomplete run: find a seed
    whose first number does, and check that the second one is used."""
    n = (1 << 63) + 5
    limit = TWO64 - TWO64 % n
    seed = next(s for s in (i.to_bytes(32, "big") for i in range(200)) if words(s, 1)[0] >= limit)
    stream = words(seed, 12)
    assert stream[0] >= limit
    expected = next(x for x in stream[1:] if x < limit) % n
    rng = Rng(seed)
    assert rng.below(n) == expected
    assert rng.draws == 1


def test_below_needs_a_positive_bound() -> None:
    for n in (0, -1):
        with pytest.raises(ValueError, match="positive bound"):
            Rng(SEED).below(n)
    assert Rng(SEED).below(1) == 0


def test_hmac_sha256_is_rfc_2104_for_keys_of_every_length() -> None:
    for n in (0, 1, 32, 63, 64, 65, 100):
        key = bytes(range(7, 7 + n))
        for message in (b"", b"bot-12", "Böhmen".encode() * 30):
            assert hmac_sha256(key, message) == hmac.new(key, message, hashlib.sha256).digest()


def test_a_die_has_six_sides_unless_told() -> None:
    rng = Rng(SEED)
    assert {rng.die() for _ in range(60)} == {1, 2, 3, 4, 5, 6}


def test_die_choice_and_shuffle() -> None:
    stream = words(SEED, 60)
    rng = Rng(SEED)
    assert rng.die() == reference_below(stream, 6) + 1
    assert rng.die(20) == reference_below(stream, 20) + 1
    items = ["a", "b", "c", "d", "e"]
    assert rng.choice(items) == items[reference_below(stream, 5)]
    deck = list(range(10))
    expected = list(deck)
    for i in range(len(expected) - 1, 0, -1):  # Fisher-Yates from the end
        j = reference_below(stream, i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    shuffled = rng.shuffled(deck)
    assert shuffled == expected and deck == list(range(10))
    assert rng.draws == 3 + 9


def test_fork_is_an_hmac_of_the_label() -> None:
    child = Rng(SEED).fork("cards")
    assert child.seed == hmac.new(SEED, b"cards", hashlib.sha256).digest()
    assert child.label == "cards"
    assert child.below(100) == reference_below(words(child.seed, 4), 100)


def test_hash_chain_runs_backwards_from_the_seed() -> None:
    chain = hash_chain(b"seed", 4)
    assert len(chain) == 5
    assert chain[4] == hashlib.sha256(b"seed").digest()
    for i in range(4):
        assert chain[i] == hashlib.sha256(chain[i + 1]).digest()
        assert check_chain_key(chain[i + 1], chain[i])
        assert not check_chain_key(chain[i], chain[i + 1])
    assert hash_chain(b"seed", 0) == [hashlib.sha256(b"seed").digest()]


def test_entropy_mix_hashes_sorted_seat_lines() -> None:
    mix = entropy_mix({"south": "22", "north": "11", "east": "33"})
    assert mix == hashlib.sha256(b"east=33\nnorth=11\nsouth=22").digest()
    assert entropy_mix({}) == hashlib.sha256(b"").digest()


def test_phase_seeds_and_streams() -> None:
    key, secret, mix = b"K" * 32, b"S" * 32, b"M" * 32
    assert phase_seed("public", key, "1741-1/setup", mix) == hashlib.sha256(
        b"pbem|public|" + key + b"|1741-1/setup|" + mix).digest()
    streams = phase_rng(key, secret, "p1", mix)
    assert streams.public.seed == phase_seed("public", key, "p1", mix) and streams.public.label == "public"
    assert streams.secret.seed == phase_seed("secret", secret, "p1", mix) and streams.secret.label == "secret"
    assert H(b"x") == hashlib.sha256(b"x").digest()
