"""Signing and verifying order files, and intake's refusals of well-signed files that are not
acceptable now: each refusal carries its own message (DESIGN: order files; CLI contract)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import NOW, run_cli
from orders_util import signed, write_orders

from pbem.common.canonical import sha256_hex
from pbem.core.campaign import Campaign, parse_time
from pbem.core.envelope import format_document, sign_data
from pbem.core.keys import load_private_key
from pbem.core.phase import resolve


def _hand(camp: Path, power: str) -> list[int]:
    import json

    last = sorted((camp / "states").glob("[0-9]*[0-9].json"))[-1]
    return json.loads(last.read_bytes())["hands"][power]


def _craft(path: Path, key: Path, **fields: Any) -> Path:
    """A file signed by ``key`` with exactly the given fields (no seq bookkeeping of pbem sign)."""
    data = {"pbem": 1, "campaign": "mini-1", "player": "north", "phase": "round-1", "seq": 1,
            "entropy_commit": sha256_hex(b"e" + str(sorted(fields.items())).encode()), "orders": {"N": {"bid": 1}}}
    data.update(fields)
    path.write_text(format_document(sign_data(data, load_private_key(key))))
    return path


def _intake(camp: Path, *files: Path) -> str:
    result = run_cli("intake", str(camp), *map(str, files), "--now", NOW)
    assert "Traceback" not in result.output
    return result.stdout


def _resolve(camp: Path) -> None:
    with Campaign(camp).locked() as c:
        resolve(c, parse_time(NOW))


# -- keygen, sign, verify ---------------------------------------------------------------------


def test_keygen_sign_verify_round_trip(tmp_path: Path, keys: dict[str, Path]) -> None:
    key = keys["north"]
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    pub = key.with_suffix(".pub").read_text()
    assert pub.startswith("ed25519:") and " x25519:" in pub and pub.strip().endswith(" north")
    src = write_orders(tmp_path / "o.yaml", "mini-1", "north", "round-1", {"N": {"bid": 3}})
    out = tmp_path / "o.signed.yaml"
    run_cli("sign", str(src), "--key", str(key), "-o", str(out))
    data = yaml.safe_load(out.read_text())
    assert data["seq"] == 1 and len(data["entropy_commit"]) == 64
    assert data["signature"]["key"] == pub.split()[0]
    ok = run_cli("verify", str(out), "--pubkey", str(key.with_suffix(".pub"))).stdout
    assert ok.startswith(f"good signature: {out}: north, mini-1 round-1 seq 1, content ")
    bad = run_cli("verify", str(out), "--pubkey", str(keys["south"].with_suffix(".pub")), ok=False)
    assert bad.exit_code == 1
    assert "signed with a key that is not the roster key of 'north'" in bad.stderr


def test_sign_prints_to_stdout_without_out(tmp_path: Path, keys: dict[str, Path]) -> None:
    src = write_orders(tmp_path / "o.yaml", "mini-1", "north", "round-1", {"N": {"bid": 3}})
    text = run_cli("sign", str(src), "--key", str(keys["north"])).stdout
    assert text.startswith("pbem: 1\n") and "signature:" in text


def test_sign_again_for_same_phase_raises_seq_and_keeps_commitment(tmp_path: Path, keys: dict[str, Path]) -> None:
    a = yaml.safe_load(signed(tmp_path, keys["north"], "mini-1", "north", "round-1", {"N": {"bid": 3}}, name="a").read_text())
    b = yaml.safe_load(signed(tmp_path, keys["north"], "mini-1", "north", "round-1", {"N": {"bid": 4}}, name="b").read_text())
    c = yaml.safe_load(signed(tmp_path, keys["north"], "mini-1", "north", "round-2", {"N": {"bid": 4}}, name="c").read_text())
    assert (a["seq"], b["seq"], c["seq"]) == (1, 2, 1)
    assert a["entropy_commit"] == b["entropy_commit"] != c["entropy_commit"]
    assert "entropy_reveal" not in a
    assert sha256_hex(bytes.fromhex(c["entropy_reveal"])) == a["entropy_commit"]


def test_sign_leaves_a_request_without_entropy_and_the_orders_own_untouched(tmp_path: Path, keys: dict[str, Path]) -> None:
    """A request (pause, resume, resend) is published whole in the record it makes: pbem sign
    gives it no entropy field, so it reveals nothing the seat's next order file reveals, and the
    order files before and after it go on as if it had not been signed (seq of its own)."""
    a = yaml.safe_load(signed(tmp_path, keys["north"], "mini-1", "north", "round-1", {"N": {"bid": 3}}, name="a").read_text())
    src = tmp_path / "pause-src.yaml"
    src.write_text("campaign: mini-1\nplayer: north\nphase: round-2\nrequest:\n  kind: pause\n", encoding="utf-8")
    run_cli("sign", str(src), "--key", str(keys["north"]), "-o", str(tmp_path / "pause.yaml"))
    pause = yaml.safe_load((tmp_path / "pause.yaml").read_text())
    assert pause["request"] == {"kind": "pause"} and pause["seq"] == 1
    assert "entropy_reveal" not in pause and "entropy_commit" not in pause
    run_cli("sign", str(src), "--key", str(keys["north"]), "-o", str(tmp_path / "pause2.yaml"))
    assert yaml.safe_load((tmp_path / "pause2.yaml").read_text())["seq"] == 2  # requests count their own seq
    c = yaml.safe_load(signed(tmp_path, keys["north"], "mini-1", "north", "round-2", {"N": {"bid": 4}}, name="c").read_text())
    assert c["seq"] == 1 and sha256_hex(bytes.fromhex(c["entropy_reveal"])) == a["entropy_commit"]


def test_sign_refuses_private_key_readable_by_others(tmp_path: Path, keys: dict[str, Path]) -> None:
    key = keys["north"]
    os.chmod(key, 0o644)
    src = write_orders(tmp_path / "o.yaml", "mini-1", "north", "round-1", {"N": {"bid": 3}})
    result = run_cli("sign", str(src), "--key", str(key), "-o", str(tmp_path / "out.yaml"), ok=False)
    assert result.exit_code == 1
    assert "the private key is readable by others (mode -rw-r--r--)" in result.stderr
    assert f"run: chmod 600 {key}" in result.stderr
    assert "Traceback" not in result.output
    assert not (tmp_path / "out.yaml").exists()


def test_keygen_refuses_to_overwrite(tmp_path: Path, keys: dict[str, Path]) -> None:
    key, pub = keys["north"], keys["north"].with_suffix(".pub")
    before = (key.read_bytes(), pub.read_bytes())
    result = run_cli("keygen", "north", "-o", str(key.parent), ok=False)
    assert result.exit_code == 1
    assert "a key file is already there; not overwriting it" in result.stderr
    assert (key.read_bytes(), pub.read_bytes()) == before


def test_key_names_are_checked_whole() -> None:
    """A name with a line break would write a key file that does not load back."""
    from pbem.core.keys import generate
    from pbem.errors import KeyFileError

    assert generate("fritz-2.b").name == "fritz-2.b"
    for bad in ("fritz\n", "fritz\nx", "a" * 65, "-fritz", ""):
        with pytest.raises(KeyFileError, match="is not a usable key name"):
            generate(bad)


@pytest.mark.parametrize("name", ["on", "123", "null", "true", "1e3"])
def test_a_key_named_like_a_yaml_word_loads_back_with_its_name(tmp_path: Path, name: str) -> None:
    from pbem.core.keys import generate, load_private_key, write_private_key

    path = tmp_path / f"{name}.key"
    write_private_key(generate(name), path)
    assert load_private_key(path).name == name


def test_verify_against_campaign_roster(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    good = signed(tmp_path, keys["north"], "mini-1", "north", "round-1", {"N": {"bid": 3}})
    out = run_cli("verify", str(good), "--campaign", str(mini_campaign)).stdout
    assert "good signature" in out and "north, mini-1 round-1 seq 1" in out
    cases = {
        "the file is for campaign 'other-9', not 'mini-1'": signed(tmp_path, keys["north"], "other-9", "north", "round-1", {"N": {"bid": 3}}),
        "'mallory' is not on the roster of mini-1": signed(tmp_path, keys["mallory"], "mini-1", "mallory", "round-1", {"N": {"bid": 3}}),
        "signed with a key that is not the roster key of 'south'": signed(tmp_path, keys["mallory"], "mini-1", "south", "round-1", {"S": {"bid": 3}}, name="m"),
    }
    for phrase, path in cases.items():
        result = run_cli("verify", str(path), "--campaign", str(mini_campaign), ok=False)
        assert result.exit_code == 1 and phrase in result.stderr, result.output
    usage = run_cli("verify", str(good), ok=False)
    assert usage.exit_code == 2 and "exactly one of --pubkey or --campaign" in usage.output


# -- intake refusals of signed files ------------------------------------------------------------


def test_changed_order_is_refused(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    good = signed(tmp_path, keys["north"], "mini-1", "north", "round-1", {"N": {"bid": 3}})
    changed = tmp_path / "changed.yaml"
    changed.write_text(good.read_text().replace("bid: 3", "bid: 4"))
    out = _intake(mini_campaign, changed)
    assert out.startswith("refused: changed.yaml")
    assert "the signature does not match the content: the file was changed after it was signed" in out
    assert not (mini_campaign / "orders").exists() or not list((mini_campaign / "orders").rglob("*.yaml"))


def test_another_seats_key_is_refused(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    forged = signed(tmp_path, keys["south"], "mini-1", "north", "round-1", {"N": {"bid": 3}}, name="forged")
    out = _intake(mini_campaign, forged)
    assert "signature.key: signed with a key that is not the roster key of 'north'" in out


def test_another_campaigns_id_is_refused(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    other = signed(tmp_path, keys["north"], "mini-2", "north", "round-1", {"N": {"bid": 3}})
    out = _intake(mini_campaign, other)
    assert "campaign: this file is for campaign 'mini-2', not 'mini-1'" in out


def test_resolved_and_future_phases_are_refused(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    a = signed(tmp_path, keys["north"], "mini-1", "north", "round-1", {"N": {"bid": _hand(mini_campaign, "N")[0]}})
    b = signed(tmp_path, keys["south"], "mini-1", "south", "round-1", {"S": {"bid": _hand(mini_campaign, "S")[0]}})
    assert _intake(mini_campaign, a, b).count("accepted:") == 2
    _resolve(mini_campaign)
    late = signed(tmp_path, keys["north"], "mini-1", "north", "round-1", {"N": {"bid": 1}}, seq=5, name="late")
    early = signed(tmp_path, keys["north"], "mini-1", "north", "round-3", {"N": {"bid": 1}}, name="early")
    out = _intake(mini_campaign, late, early).splitlines()
    assert "phase: phase 'round-1' is already resolved; the current phase is 'round-2'" in out[0]
    assert "phase: phase 'round-3' is not open; the current phase is 'round-2'" in out[1]


@pytest.mark.parametrize("seq", [1, 2])
def test_equal_or_lower_seq_is_refused_as_replay(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path], seq: int) -> None:
    first = _craft(tmp_path / "first.yaml", keys["north"], seq=2, orders={"N": {"bid": 3}})
    assert "accepted: first.yaml: north seq 2" in _intake(mini_campaign, first)
    again = _craft(tmp_path / "again.yaml", keys["north"], seq=seq, orders={"N": {"bid": 5}})
    out = _intake(mini_campaign, again)
    assert out.startswith("refused: again.yaml")
    assert f"seq: seq {seq} is not above seq 2, which was already accepted for round-1; this looks like a replay" in out
    assert "send them with seq 3 or more" in out
    stored = sorted(p.name for p in (mini_campaign / "orders").rglob("*.yaml"))
    assert stored == ["north.000002.yaml"]


def test_higher_seq_replaces(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    one = signed(tmp_path, keys["north"], "mini-1", "north", "round-1", {"N": {"bid": 3}}, name="one")
    two = signed(tmp_path, keys["north"], "mini-1", "north", "round-1", {"N": {"bid": 4}}, name="two")
    out = _intake(mini_campaign, one, two)
    assert "north seq 1" in out and "north seq 2" in out
    from pbem.core.intake import accepted_documents

    assert accepted_documents(Campaign(mini_campaign), 1, "round-1")["north"].seq == 2
    # the same file again is a duplicate, not a new acceptance
    assert _intake(mini_campaign, two).startswith("already accepted: two-round-1.yaml: north seq 2")


# -- form changes keep the signature ------------------------------------------------------------


def _crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


def _reindent(text: str) -> str:
    data = yaml.safe_load(text)
    return yaml.safe_dump(data, sort_keys=False, indent=4, default_flow_style=False)


def _flow(text: str) -> str:
    return yaml.safe_dump(yaml.safe_load(text), sort_keys=False, default_flow_style=True, width=10_000)


def _reorder(text: str) -> str:
    data = yaml.safe_load(text)
    return yaml.safe_dump(dict(reversed(list(data.items()))), sort_keys=False)


def _sorted(text: str) -> str:
    return yaml.safe_dump(yaml.safe_load(text), sort_keys=True)


@pytest.mark.parametrize("change", [_crlf, _reindent, _flow, _reorder, _sorted], ids=lambda f: f.__name__.strip("_"))
def test_copies_that_keep_the_meaning_still_verify_and_are_accepted(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path], change) -> None:  # type: ignore[no-untyped-def]
    good = signed(tmp_path, keys["north"], "mini-1", "north", "round-1", {"N": {"bid": 3, "note": "für Österreich"}})
    copy = tmp_path / "copy.yaml"
    copy.write_bytes(change(good.read_text()).encode())
    assert copy.read_bytes() != good.read_bytes()
    run_cli("verify", str(copy), "--pubkey", str(keys["north"].with_suffix(".pub")))
    run_cli("verify", str(copy), "--campaign", str(mini_campaign))
    out = _intake(mini_campaign, copy)
    assert out.startswith("accepted: copy.yaml: north seq 1"), out
    stored = next((mini_campaign / "orders").rglob("north.000001.yaml"))
    assert stored.read_bytes() == copy.read_bytes(), "intake keeps the verbatim bytes"


def test_check_reads_an_unsigned_file(tmp_path: Path, mini_campaign: Path) -> None:
    """``pbem check`` validates orders before they are signed: an unsigned file is read, its
    problems are given with their line, and a good one passes (only intake requires a signature)."""
    hand = _hand(mini_campaign, "N")
    good = write_orders(tmp_path / "good.yaml", "mini-1", "north", "round-1", {"N": {"bid": hand[0]}}, seq=1)
    out = run_cli("check", str(good), "--campaign", str(mini_campaign)).stdout
    assert out.strip() == f"{good}: no problems found for round-1"
    bad = write_orders(tmp_path / "bad.yaml", "mini-1", "north", "round-1", {"N": {"bid": 99}}, seq=1)
    result = run_cli("check", str(bad), "--campaign", str(mini_campaign), ok=False)
    assert result.exit_code == 1
    assert f"{bad}, line 8: orders.N.bid: 99 is not a card in your hand" in result.output
    assert "not signed" not in result.output
