"""The order-file envelope on its own (DESIGN: order files): every field check with the line it
points at, the limits on each side (seq 1, entropy lengths), signatures made and checked, and
the unsigned reading ``pbem check`` uses. Fast: no campaign, no CLI."""

from __future__ import annotations

import base64
import hashlib

import pytest
import yaml

from pbem.core import keys
from pbem.core.envelope import (
    FIELD_ORDER,
    format_document,
    parse_order_document,
    sign_data,
    signing_bytes,
    verify_signature,
)
from pbem.errors import OrderFileError, SignatureError

KEY = keys.generate("north")
OTHER = keys.generate("south")
COMMIT = "ab" * 32  # 64 lowercase hex digits


def body(**fields: object) -> dict[str, object]:
    data: dict[str, object] = {"pbem": 1, "campaign": "mini-1", "player": "north", "phase": "round-1", "seq": 2,
                               "entropy_commit": COMMIT, "orders": {"N": {"bid": 4}}}
    data.update(fields)
    return {k: v for k, v in data.items() if v is not None}


def text(data: dict[str, object], *, sign: bool = True) -> bytes:
    return format_document(sign_data(data, KEY) if sign else data).encode()


def refusal(raw: bytes, **kw: bool) -> OrderFileError:
    with pytest.raises(OrderFileError) as err:
        parse_order_document(raw, "orders.yaml", **kw)
    return err.value


def test_a_signed_document_parses_into_its_fields() -> None:
    raw = text(body(entropy_reveal="cd" * 16))
    doc = parse_order_document(raw, "orders.yaml")
    assert (doc.campaign, doc.player, doc.phase, doc.seq) == ("mini-1", "north", "round-1", 2)
    assert doc.orders == {"N": {"bid": 4}} and doc.request is None
    assert doc.entropy_commit == COMMIT and doc.entropy_reveal == "cd" * 16
    assert doc.key_id == KEY.public().sign_id and doc.signature is not None and len(doc.signature) == 64
    assert doc.raw_hash == hashlib.sha256(raw).hexdigest()
    assert doc.body_hash == hashlib.sha256(signing_bytes(doc.data)).hexdigest()
    verify_signature(doc, KEY.public())


def test_seq_one_is_the_least() -> None:
    assert parse_order_document(text(body(seq=1)), "o").seq == 1
    err = refusal(text(body(seq=0)))
    assert "'seq' must be a whole number 1 or more" in err.message
    assert err.field == "seq" and err.line == 5  # pbem, campaign, player, phase, seq
    assert "'seq' must be" in refusal(text(body(seq=-1))).message
    assert "'seq' must be" in refusal(text(body(seq=True))).message


@pytest.mark.parametrize(("name", "value", "ok"), [
    ("entropy_commit", "ab" * 32, True),
    ("entropy_commit", "ab" * 16, False),  # a reveal's length is not a commitment
    ("entropy_commit", "ab" * 32 + "a", False),
    ("entropy_commit", "AB" * 32, False),
    ("entropy_commit", 12, False),
    ("entropy_reveal", "ab" * 16, True),  # 32 hex digits: the least
    ("entropy_reveal", "ab" * 64, True),  # 128: the most
    ("entropy_reveal", "ab" * 16 + "a", True),
    ("entropy_reveal", "a" * 31, False),
    ("entropy_reveal", "a" * 129, False),
    ("entropy_reveal", "AB" * 16, False),
])
def test_entropy_fields_are_lowercase_hex_of_their_own_length(name: str, value: object, ok: bool) -> None:
    raw = text(body(**{name: value}))
    if ok:
        assert getattr(parse_order_document(raw, "o"), name) == value
    else:
        err = refusal(raw)
        assert err.message == f"'{name}' must be lowercase hex ('pbem sign' fills it)"
        assert err.field == name and err.line == raw.decode().splitlines().index(
            next(ln for ln in raw.decode().splitlines() if ln.startswith(name))) + 1


def test_errors_about_the_whole_file_point_at_line_one() -> None:
    assert refusal(b"- a\n- b\n").line == 1
    err = refusal(b"campaign: x\n")
    assert err.line == 1 and "the first line should be 'pbem: 1'" in err.message
    err = refusal(b"campaign: x\npbem: 2\n")
    assert err.line == 2 and err.message == "unsupported format version 2; write 'pbem: 1'"


def test_the_first_unknown_field_is_named_and_located() -> None:
    data = body()
    data.update({"zeta": 1, "comment": "hi"})
    raw = format_document(data).encode()
    err = refusal(raw)
    assert err.message.startswith("unknown field 'comment' (allowed: " + ", ".join(FIELD_ORDER))
    assert err.line == raw.decode().splitlines().index("comment: hi") + 1


@pytest.mark.parametrize(("field", "value", "message"), [
    ("campaign", None, "the field 'campaign' is missing"),
    ("player", None, "the field 'player' is missing"),
    ("phase", None, "the field 'phase' is missing"),
    ("player", True, "'player' must be a word, not bool"),
    ("campaign", ["a"], "'campaign' must be a word, not list"),
    ("phase", 3.5, "'phase' must be a word, not float"),
])
def test_word_fields(field: str, value: object, message: str) -> None:
    raw = text(body(**{field: value}))
    err = refusal(raw)
    assert err.message == message
    if value is not None:
        assert err.line == next(i for i, ln in enumerate(raw.decode().splitlines(), 1) if ln.startswith(field))
    else:
        assert err.line is None and err.field == field


def test_a_number_is_a_word() -> None:
    assert parse_order_document(text(body(player=7)), "o").player == "7"


def test_orders_or_request_exactly_one() -> None:
    both = body(request={"kind": "x"})
    assert "not both" in refusal(text(both)).message
    neither = body()
    del neither["orders"]
    assert "not both" in refusal(text(neither)).message
    only = body(request={"kind": "x"})
    del only["orders"]
    doc = parse_order_document(text(only), "o")
    assert doc.request == {"kind": "x"} and doc.orders is None
    err = refusal(text(body(orders=["N"])))
    assert err.message == "'orders' must be a mapping keyed by power" and err.field == "orders"


def test_unsigned_files_are_refused_unless_the_reader_allows_them() -> None:
    raw = text(body(), sign=False)
    assert "the file is not signed" in refusal(raw).message
    doc = parse_order_document(raw, "o", require_signature=False)
    assert doc.signature is None and doc.key_id is None
    with pytest.raises(SignatureError, match="the file is not signed"):
        verify_signature(doc, KEY.public())


def _with_signature(signature: object) -> bytes:
    data = body()
    data["signature"] = signature
    return format_document(data).encode()


@pytest.mark.parametrize(("signature", "message", "field"), [
    ("abc", "'signature' must have exactly 'key' and 'value'", "signature"),
    ({"key": "k"}, "'signature' must have exactly 'key' and 'value'", "signature"),
    ({"key": "k", "value": "v", "x": 1}, "'signature' must have exactly 'key' and 'value'", "signature"),
    ({"key": "k", "value": "not base64!"}, "the signature is not valid base64", "signature.value"),
    # 64 bytes in base64 with one stray character: refused, not read with the character dropped
    ({"key": "k", "value": "*" + base64.b64encode(b"x" * 64).decode()}, "the signature is not valid base64",
     "signature.value"),
    ({"key": "k", "value": base64.b64encode(b"x" * 63).decode()}, "the signature has the wrong length",
     "signature.value"),
])
def test_malformed_signatures(signature: object, message: str, field: str) -> None:
    err = refusal(_with_signature(signature))
    assert err.message.startswith(message) and err.field == field
    assert err.line is not None and err.line >= 8


def test_a_signature_of_64_bytes_parses() -> None:
    doc = parse_order_document(_with_signature({"key": "k", "value": base64.b64encode(b"x" * 64).decode()}), "o")
    assert doc.signature == b"x" * 64 and doc.key_id == "k"


def test_verify_refuses_another_key_and_a_changed_file() -> None:
    raw = text(body())
    doc = parse_order_document(raw, "o")
    with pytest.raises(SignatureError) as err:
        verify_signature(doc, OTHER.public())
    assert "not the roster key of 'north'" in err.value.message and err.value.field == "signature.key"
    assert err.value.message.endswith(
        f"(signed by {KEY.public().sign_id[:20]}…, roster has {OTHER.public().sign_id[:20]}…)")
    assert err.value.line == doc.line_of("signature.key")
    changed = parse_order_document(raw.replace(b"bid: 4", b"bid: 5"), "o")
    with pytest.raises(SignatureError) as err:
        verify_signature(changed, KEY.public())
    assert "the file was changed after it was signed" in err.value.message


def test_sign_data_orders_the_fields_and_signs_all_but_the_signature() -> None:
    data = {"orders": {"N": {"bid": 1}}, "seq": 3, "pbem": 1, "phase": "p", "player": "north", "campaign": "c"}
    signed = sign_data(data, KEY)
    assert list(signed) == "pbem campaign player phase seq orders signature".split()
    assert signed["signature"]["key"] == KEY.public().sign_id
    again = sign_data(signed, KEY)  # re-signing replaces the old signature
    assert again == signed
    assert signing_bytes(signed) == signing_bytes(data)


def test_format_document_folds_lines_and_keeps_the_meaning() -> None:
    data = body(orders={"N": {"note": "word " * 30, "hash": "ab" * 60}})
    out = format_document(sign_data(data, KEY))
    assert max(len(line) for line in out.splitlines()) <= 72
    assert {k: v for k, v in yaml.safe_load(out).items() if k != "signature"} == data
    verify_signature(parse_order_document(out.encode(), "o"), KEY.public())


def test_line_of_knows_each_field() -> None:
    raw = text(body())
    doc = parse_order_document(raw, "o")
    lines = raw.decode().splitlines()
    for name in ("pbem", "campaign", "player", "phase", "seq", "entropy_commit", "orders", "signature"):
        assert doc.line_of(name) == next(i for i, ln in enumerate(lines, 1) if ln.startswith(name + ":")), name
    assert doc.line_of("orders.N.bid") == next(i for i, ln in enumerate(lines, 1) if "bid:" in ln)


BASE = "be cee dddd eeeee ffffff g hh iii jjjj kkkkk llllll m nn ooo pppp qqqqq rrrrrr s tt uuu vvvv wwwww"


def test_format_document_folds_text_where_pyyaml_does_at_width_60() -> None:
    """Text is folded by PyYAML at width 72 - 12: pinned with two texts whose folds move if the
    width moves by one either way."""
    for text in ("aa " + BASE, "a " + BASE):
        assert format_document({"note": text}) == yaml.safe_dump(
            {"note": text}, sort_keys=False, allow_unicode=True, default_flow_style=False, width=60)


def test_format_document_keeps_chinese_and_a_line_of_exactly_72() -> None:
    assert format_document({"note": "中文命令"}) == "note: 中文命令\n"
    line = "x: " + "a" * 69
    assert format_document({"x": "a" * 69}) == line + "\n" and len(line) == 72


def test_a_long_word_is_split_into_lines_of_exactly_72() -> None:
    out = format_document({"entropy_commit": "ab" * 32, "n": int("9" * 80)})
    lines = out.splitlines()
    assert lines[0] == 'entropy_commit: "' + ("ab" * 32)[:54] + "\\" and len(lines[0]) == 72
    assert lines[1] == "  " + ("ab" * 32)[54:] + '"'
    assert yaml.safe_load(out) == {"entropy_commit": "ab" * 32, "n": int("9" * 80)}  # a number stays a number


def test_sign_data_keeps_fields_outside_the_standard_order_before_the_signature() -> None:
    signed = sign_data({"pbem": 1, "zeta": 2, "campaign": "c"}, KEY)
    assert list(signed) == "pbem campaign zeta signature".split()


def test_a_parsed_document_is_frozen_and_holds_what_the_file_says() -> None:
    import dataclasses

    key = keys.generate("s1")
    data = sign_data({"pbem": 1, "campaign": "c-1", "player": "s1", "phase": "turn-1", "seq": 2,
                      "entropy_commit": "ab" * 32, "orders": {"PR": {"march": ["Wien"]}}}, key)
    doc = parse_order_document(format_document(data).encode(), "f.yaml")
    assert (doc.campaign, doc.player, doc.phase, doc.seq, doc.orders, doc.request) == ("c-1", "s1", "turn-1", 2, {"PR": {"march": ["Wien"]}}, None)
    assert (doc.entropy_reveal, doc.entropy_commit, doc.key_id) == (None, "ab" * 32, key.public().sign_id)
    assert doc.signature is not None and len(doc.signature) == 64 and doc.source == "f.yaml"
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(doc, "seq", 3)  # noqa: B010 - (an attribute set as any code would try it)
    verify_signature(doc, key.public())
