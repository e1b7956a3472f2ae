"""Public key lines (pbem.core.keys): the usual line of a roster seat is read by one pattern,
any other line token by token; both readings give the same key, or the same refusal."""

from __future__ import annotations

import pytest

from pbem.core import keys
from pbem.errors import KeyFileError

ED = keys.generate("north").public().ed25519.hex()
X = "ab" * 32


def _reading(text: str) -> tuple[bytes, bytes | None, str, str] | str:
    try:
        key = keys.parse_public_key(text, "roster")
    except KeyFileError as exc:
        return str(exc)
    return key.ed25519, key.x25519, key.name, key.sign_id


LINES = [
    f"ed25519:{ED} x25519:{X} north", f"ed25519:{ED} x25519:{X} n-1_b.c", f"ed25519:{ED} x25519:{X} 維也納",
    f"ed25519:{ED} x25519:{X} a:b", f"ed25519:{ED} x25519:{X} ed25519:{ED}", f"ed25519:{ED} x25519:{X} x25519:",
    f"ed25519:{ED} x25519:{X}", f"ed25519:{ED}", f"ed25519:{ED} north", f"ed25519:{ED} x25519:{X} north south",
    f"ed25519:{ED} x25519:{X.upper()} north", f"ed25519:{ED.upper()} x25519:{X} north", f"ed25519:{ED[:-1]} x25519:{X} north",
    f"ed25519:{ED} x25519:{X}0 north", f"ed25519:{'ff' * 32} x25519:{X} north", f"ed25519:{'00' * 32} x25519:{X} north",
    f"x25519:{X} north", f"ed25519:{ED}  x25519:{X} north", f"ed25519:{ED} x25519:{X} north\n", f"ed25519:{ED}\tx25519:{X} north",
    f"ed25519:{ED} x25519:{X} north\u00a0", f"ed25519:{ED} x25519:{X} nor\u2028th", "", "north",
]


@pytest.mark.parametrize("line", LINES)
def test_the_usual_line_reads_as_token_by_token(line: str) -> None:
    # a leading blank leaves the usual pattern to the tokens (the careful reading)
    assert _reading(line) == _reading(" " + line), line
    assert keys._USUAL.fullmatch(" " + line) is None


def test_the_usual_line_is_read_by_its_pattern_and_round_trips() -> None:
    pub = keys.generate("north").public()
    assert keys._USUAL.fullmatch(pub.line()) is not None
    again = keys.parse_public_key(pub.line())
    assert again == pub and again.sign_id == pub.sign_id == "ed25519:" + pub.ed25519.hex()
    assert again.verifier() is pub.verifier()  # made once per key
    refused = [line for line in LINES if isinstance(_reading(line), str)]
    assert len(refused) >= 5  # the comparison covers refusals too
