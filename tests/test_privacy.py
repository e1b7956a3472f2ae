"""Encrypted private reports: X25519 + HKDF + ChaCha20-Poly1305 with real keys."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_cli

from pbem.core.keys import load_private_key
from pbem.core.privacy import seal, unseal
from pbem.errors import PbemError


def test_round_trip_with_real_keys(keys: dict[str, Path]) -> None:
    north = load_private_key(keys["north"])
    text = "Ihre Hand: H7.2, S10.1 — 你的手牌".encode()
    sealed = seal(text, north.public())
    assert "H7.2" not in sealed
    assert unseal(sealed, north) == text


def test_deterministic_with_seed_and_distinct_per_recipient(keys: dict[str, Path]) -> None:
    north, south = load_private_key(keys["north"]), load_private_key(keys["south"])
    a1 = seal(b"report", north.public(), seed=b"s" * 32)
    assert a1 == seal(b"report", north.public(), seed=b"s" * 32)
    assert a1 != seal(b"report", south.public(), seed=b"s" * 32)
    assert a1 != seal(b"report", north.public())


def test_a_compressed_report_opens_to_the_same_bytes_and_a_bomb_is_refused(keys: dict[str, Path]) -> None:
    import gzip

    import pbem.core.privacy as privacy

    north = load_private_key(keys["north"])
    report = ("<svg>" + "<circle r='2.6'/>" * 5000 + "</svg>").encode()
    small = seal(report, north.public(), seed=b"s" * 32, compress=True)
    assert len(small) * 10 < len(seal(report, north.public(), seed=b"s" * 32))
    assert unseal(small, north) == report
    bomb = seal(gzip.compress(b"\0" * (privacy.MAX_OPENED + 1)), north.public())
    with pytest.raises(PbemError, match="opens to more than"):
        unseal(bomb, north)


def test_wrong_key_and_tampering_are_refused(keys: dict[str, Path]) -> None:
    north, south = load_private_key(keys["north"]), load_private_key(keys["south"])
    sealed = seal(b"secret hand", north.public())
    with pytest.raises(PbemError, match="not for this key"):
        unseal(sealed, south)
    lines = sealed.splitlines()
    body = lines[1]
    flipped = body[:10] + ("A" if body[10] != "A" else "B") + body[11:]
    with pytest.raises(PbemError):
        unseal("\n".join([lines[0], flipped, *lines[2:]]), north)


def test_cli_decrypt(tmp_path: Path, keys: dict[str, Path]) -> None:
    north = load_private_key(keys["north"])
    f = tmp_path / "report.eml"
    f.write_text("Subject: your report\n\n" + seal(b"<h1>Bericht</h1>", north.public()))
    out = run_cli("decrypt", str(f), "--key", str(keys["north"])).output
    assert out == "<h1>Bericht</h1>"
    bad = run_cli("decrypt", str(f), "--key", str(keys["south"]), ok=False)
    assert bad.exit_code == 1 and "not for this key" in bad.output
