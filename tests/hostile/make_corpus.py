"""Writes the hostile corpus: order files and mails that intake must refuse (or, for the few
valid encodings, accept), for the campaign ``hostile-1`` of the mini test game.

The keys are derived from fixed phrases so the signed files in the corpus are reproducible
(Ed25519 signatures are deterministic): ``python tests/hostile/make_corpus.py`` rewrites the
same bytes. Files too big to commit (the 20 MB attachments, the 1 MB document) are built by
:func:`build_big` at test time. The expected refusal of every file is in ``tests/test_hostile.py``.
"""

from __future__ import annotations

import base64
import hashlib
import quopri
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from pbem.core.envelope import format_document, sign_data
from pbem.core.keys import PrivateKey

HERE = Path(__file__).parent
CAMPAIGN = "hostile-1"
PHASE = "round-2"
EMAILS = {"north": "north@example.org", "south": "south@example.org", "mallory": "mallory@example.net"}


def corpus_key(name: str) -> PrivateKey:
    """The fixed test key of ``name`` (north, south, mallory)."""
    ed = hashlib.sha256(b"pbem hostile corpus ed25519 " + name.encode()).digest()
    x = hashlib.sha256(b"pbem hostile corpus x25519 " + name.encode()).digest()
    return PrivateKey(name, Ed25519PrivateKey.from_private_bytes(ed), X25519PrivateKey.from_private_bytes(x))


def entropy_commit(label: str) -> str:
    return hashlib.sha256(hashlib.sha256(label.encode()).digest()).hexdigest()


def order_data(player: str, phase: str = PHASE, seq: int = 1, bid: int = 3, campaign: str = CAMPAIGN) -> dict[str, Any]:
    power = {"north": "N", "south": "S"}.get(player, "N")
    return {
        "pbem": 1, "campaign": campaign, "player": player, "phase": phase, "seq": seq,
        "entropy_commit": entropy_commit(f"{player}/{phase}/{seq}"), "orders": {power: {"bid": bid}},
    }


def signed_text(data: dict[str, Any], signer: str | None = None) -> str:
    """``data`` signed by ``signer``'s key (default: the player's own), as YAML text."""
    return format_document(sign_data(data, corpus_key(signer or data["player"])))


def mail(headers: dict[str, str], body: str) -> bytes:
    """A mail with CRLF line ends, as mail transport delivers it."""
    head = "".join(f"{k}: {v}\n" for k, v in headers.items())
    return (head + "\n" + body).replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8")


def _hdr(sender: str, subject: str, n: int) -> dict[str, str]:
    return {
        "From": sender, "To": "gm@example.org", "Subject": subject,
        "Message-ID": f"<hostile-{n}@example.org>", "MIME-Version": "1.0",
    }


def _attachment_mail(sender: str, subject: str, n: int, payload: str, filename: str = "orders.yaml",
                     ctype: str = "text/yaml", cte: str = "7bit") -> bytes:
    headers = _hdr(sender, subject, n)
    headers["Content-Type"] = 'multipart/mixed; boundary="=-b1"'
    body = (
        "--=-b1\nContent-Type: text/plain; charset=utf-8\n\nMy orders are attached.\n\n"
        f"--=-b1\nContent-Type: {ctype}\nContent-Disposition: attachment; filename=\"{filename}\"\n"
        f"Content-Transfer-Encoding: {cte}\n\n{payload}\n--=-b1--\n"
    )
    return mail(headers, body)


def _wrapped_b64(data: bytes) -> str:
    text = base64.b64encode(data).decode()
    return "\n".join(text[i:i + 76] for i in range(0, len(text), 76))


def yaml_files() -> dict[str, bytes]:
    """Bare order files."""
    valid = signed_text(order_data("north", seq=2))
    laughs = ["lol0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    laughs += [f"lol{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    deep_block = "pbem: 1\norders:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(40)) + "  " * 41 + "x: 1\n"
    signed = sign_data(order_data("north", seq=2), corpus_key("north"))
    b64 = signed["signature"]["value"]

    def with_signature(value: str) -> str:  # the value is folded over lines: replace it in the data
        return format_document({**signed, "signature": {**signed["signature"], "value": value}})

    flipped = ("B" if b64[10] != "B" else "C")
    corrupted = with_signature(b64[:10] + flipped + b64[11:])
    changed_orders = valid.replace("bid: 3", "bid: 9")
    unsigned = format_document(order_data("north", seq=2))
    return {
        "billion_laughs.yaml": ("pbem: 1\n" + "\n".join(laughs) + "\n").encode(),
        "alias_without_anchor.yaml": b"pbem: 1\ncampaign: *camp\n",
        "merge_key_alias.yaml": b"base: &b {bid: 3}\norders:\n  N:\n    <<: *b\n",
        "deep_flow.yaml": b"pbem: 1\norders: " + b"[" * 200 + b"]" * 200 + b"\n",
        "deep_block.yaml": deep_block.encode(),
        "binary_junk.yaml": hashlib.sha512(b"junk").digest() * 8 + b"\x00\xff\xfe" + bytes(range(256)),
        "utf16le.yaml": "\ufeffpbem: 1\ncampaign: hostile-1\n".encode("utf-16-le"),
        "utf16be.yaml": "\ufeffpbem: 1\ncampaign: hostile-1\n".encode("utf-16-be"),
        "latin1.yaml": "pbem: 1\ncampaign: hostile-1\nplayer: north\n# Gr\u00fc\u00dfe aus K\u00f6ln\n".encode("latin-1"),
        "python_apply.yaml": b"pbem: 1\norders: !!python/object/apply:os.system ['touch /tmp/pbem-hostile-pwned']\n",
        "python_name.yaml": b"pbem: 1\norders: !!python/name:os.system\n",
        "binary_tag.yaml": b"pbem: 1\norders:\n  N: !!binary aGVsbG8=\n",
        "custom_tag.yaml": b"pbem: 1\norders: !custom {N: {bid: 3}}\n",
        "set_tag.yaml": b"pbem: 1\norders: !!set {N, S}\n",
        "duplicate_keys.yaml": b"pbem: 1\ncampaign: hostile-1\ncampaign: other-1\n",
        "duplicate_nested_keys.yaml": b"pbem: 1\norders:\n  N: {bid: 3}\n  N: {bid: 9}\n",
        "seq_string.yaml": format_document({**order_data("north", seq=2), "seq": "3"}).encode(),
        "seq_float.yaml": format_document({**order_data("north", seq=2), "seq": 2.5}).encode(),
        "seq_bool.yaml": format_document({**order_data("north", seq=2), "seq": True}).encode(),
        "orders_list.yaml": format_document({**order_data("north", seq=2), "orders": [{"N": {"bid": 3}}]}).encode(),
        "no_pbem_line.yaml": format_document({k: v for k, v in order_data("north", seq=2).items() if k != "pbem"}).encode(),
        "pbem_version_2.yaml": format_document({**order_data("north", seq=2), "pbem": 2}).encode(),
        "unknown_field.yaml": format_document({**order_data("north", seq=2), "comment": "hi"}).encode(),
        "missing_player.yaml": format_document({k: v for k, v in order_data("north", seq=2).items() if k != "player"}).encode(),
        "player_mapping.yaml": format_document({**order_data("north", seq=2), "player": {"name": "north"}}).encode(),
        "entropy_uppercase.yaml": format_document({**order_data("north", seq=2), "entropy_commit": "AB" * 32}).encode(),
        "top_level_list.yaml": b"- pbem: 1\n- campaign: hostile-1\n",
        "complex_key.yaml": b"pbem: 1\n? [a, b]\n: c\n",
        "int_key.yaml": b"pbem: 1\n7: seven\n",
        "two_documents.yaml": b"pbem: 1\n---\npbem: 1\n",
        "control_char.yaml": b"pbem: 1\ncampaign: host\x1bile-1\n",
        "not_yaml.yaml": b"pbem: 1\norders: {N: [bid: 3\n",
        "empty.yaml": b"",
        "only_comment.yaml": b"# nothing here\n",
        "unsigned.yaml": unsigned.encode(),
        "signature_corrupted.yaml": corrupted.encode(),
        "signature_not_base64.yaml": with_signature(b64[:10] + "$$$" + b64[13:]).encode(),
        "signature_short.yaml": with_signature(base64.b64encode(b"x" * 32).decode()).encode(),
        "signature_extra_field.yaml": valid.replace("  value:", "  by: me\n  value:").encode(),
        "orders_changed_after_signing.yaml": changed_orders.encode(),
        "signed_by_mallory.yaml": signed_text(order_data("north", seq=2), signer="mallory").encode(),
        "stranger_seat.yaml": signed_text(order_data("mallory", seq=2)).encode(),
        "other_campaign.yaml": signed_text(order_data("north", seq=2, campaign="other-7")).encode(),
        "resolved_phase.yaml": signed_text(order_data("north", phase="round-1", seq=5)).encode(),
        "future_phase.yaml": signed_text(order_data("north", phase="round-3", seq=5)).encode(),
        "replayed_seq.yaml": signed_text(order_data("north", seq=1, bid=7)).encode(),
        "nan_bid.yaml": unsigned.replace("bid: 3", "bid: .nan").encode(),
        "infinite_bid.yaml": unsigned.replace("bid: 3", "bid: -.inf").encode(),
        "int_5000_digits.yaml": unsigned.replace("bid: 3", "bid: " + "9" * 5000).encode(),
        "int_base60_bomb.yaml": unsigned.replace("bid: 3", "bid: 1" + ":59" * 12000).encode(),
        "newline_in_campaign.yaml": signed_text(order_data("north", seq=2, campaign="x\naccepted: fake.yaml: north seq 9")).encode(),
        "newline_in_key.yaml": unsigned.replace("pbem: 1\n", 'pbem: 1\n"x\\naccepted: y": 1\n').encode(),
        "seq_too_large.yaml": unsigned.replace("seq: 2", "seq: " + "9" * 300).encode(),
    }


def mail_files() -> dict[str, bytes]:
    """Single mails (.eml)."""
    north_ok = signed_text(order_data("north", seq=2))
    south_ok = signed_text(order_data("south", seq=1, bid=4))
    tampered = north_ok.replace("bid: 3", "bid: 8")
    mallory_as_north = signed_text(order_data("north", seq=2), signer="mallory")
    out: dict[str, bytes] = {}
    # forwarded message/rfc822 > multipart/alternative > multipart/mixed > the (tampered) attachment
    inner = (
        'Content-Type: multipart/alternative; boundary="alt"\n\n'
        "--alt\nContent-Type: text/plain\n\nsee attached\n"
        '--alt\nContent-Type: multipart/mixed; boundary="mix"\n\n'
        "--mix\nContent-Type: text/html\n\n<p>orders</p>\n"
        f'--mix\nContent-Type: application/x-yaml; name="orders.yaml"\nContent-Disposition: attachment; filename="orders.yaml"\n\n{tampered}\n'
        "--mix--\n--alt--\n"
    )
    fwd = _hdr(EMAILS["north"], "Fwd: orders", 1)
    fwd["Content-Type"] = 'multipart/mixed; boundary="outer"'
    out["nested_forward.eml"] = mail(fwd, (
        "--outer\nContent-Type: text/plain\n\nForwarding my orders.\n"
        "--outer\nContent-Type: message/rfc822\n\n"
        "From: north@example.org\nSubject: orders\nMIME-Version: 1.0\n" + inner + "--outer--\n"
    ))
    html = _hdr(EMAILS["north"], "orders", 2)
    html["Content-Type"] = "text/html; charset=utf-8"
    out["html_only.eml"] = mail(html, "<html><body><pre>" + north_ok.replace("\n", "<br>") + "</pre></body></html>\n")
    out["empty_attachment.eml"] = _attachment_mail(EMAILS["north"], "orders", 3, "")
    out["forged_from_player.eml"] = _attachment_mail(EMAILS["north"], "orders", 4, mallory_as_north)
    out["forged_from_stranger.eml"] = _attachment_mail("boss@example.com", "orders", 5, mallory_as_north)
    plain = _hdr(EMAILS["north"], "hello", 6)
    plain["Content-Type"] = "text/plain; charset=utf-8"
    out["no_order.eml"] = mail(plain, "Hi GM, I will send my orders tomorrow.\n")
    broken = {
        "From": "=?utf-8?b?!!!notbase64?= <<<north@example.org", "To": "", "Subject": "=?x-unknown?q?=FF=FE?=",
        "Message-ID": "<<<>>>", "Content-Type": 'multipart/mixed; boundary="never-closed"',
        "Content-Transfer-Encoding": "x-uuencode-maybe",
    }
    out["malformed_headers.eml"] = mail(broken, "--never-closed\nContent-Type: text/plain; charset=bogus-charset\n\nhi\n")
    out["binary_attachment.eml"] = _attachment_mail(
        EMAILS["north"], "orders", 7, _wrapped_b64(hashlib.sha512(b"x").digest() * 4 + b"\xff\x00"),
        filename="orders.yaml", ctype="application/octet-stream", cte="base64")
    out["bomb_attachment.eml"] = _attachment_mail(EMAILS["north"], "orders", 8, yaml_files()["billion_laughs.yaml"].decode())
    inline_tag = _hdr(EMAILS["north"], "orders", 9)
    inline_tag["Content-Type"] = "text/plain; charset=utf-8"
    out["inline_python_tag.eml"] = mail(inline_tag, "Hello,\n\n" + yaml_files()["python_apply.yaml"].decode() + "\n-- \nNorth\n")
    out["utf16_attachment.eml"] = _attachment_mail(
        EMAILS["north"], "orders", 10, _wrapped_b64(north_ok.encode("utf-16")), cte="base64")
    inject = _hdr(EMAILS["north"], "orders", 13)
    inject["Content-Type"] = 'multipart/mixed; boundary="=-b1"'
    out["filename_injection.eml"] = mail(inject, (
        "--=-b1\nContent-Type: text/yaml\n"
        "Content-Disposition: attachment; filename*=utf-8''evil%0Aaccepted%3A%20x%1B%5B31m.yaml\n\n"
        "pbem: 1\norders: !!python/name:os.system\n--=-b1--\n"
    ))
    # valid encodings: these two must be ACCEPTED
    out["valid_base64.eml"] = _attachment_mail(EMAILS["south"], "orders", 11, _wrapped_b64(south_ok.encode()), cte="base64")
    qp = _hdr(EMAILS["north"], "orders", 12)
    qp["Content-Type"] = "text/plain; charset=utf-8"
    qp["Content-Transfer-Encoding"] = "quoted-printable"
    body = "Orders below.\n\n" + north_ok + "\n-- \nNorth, sent from my phone\n"
    out["valid_quoted_printable.eml"] = mail(qp, quopri.encodestring(body.encode(), quotetabs=True).decode())
    return out


def mbox_file() -> bytes:
    """An mbox with three hostile mails."""
    parts = []
    for n, (name, payload) in enumerate(
        [("a", "pbem: 1\norders: !!python/object/apply:os.system ['id']\n"), ("b", "pbem: 1\na: &x 1\nb: *x\n"), ("c", "")], start=20
    ):
        m = _attachment_mail(EMAILS["north"], f"orders {name}", n, payload).replace(b"\r\n", b"\n")
        parts.append(b"From north@example.org Mon Nov 30 10:00:00 2026\n" + m + b"\n")
    return b"".join(parts)


def maildir_files() -> dict[str, bytes]:
    """Messages for a Maildir's new/ folder."""
    return {
        "1795000000.M1P1.hostile": _attachment_mail(EMAILS["north"], "orders", 30, "pbem: 1\norders: !!set {N}\n"),
        "1795000001.M2P1.hostile": _attachment_mail(EMAILS["south"], "orders", 31, "\x00\x01binary"),
        "99999999999999999999999.M3P1.hostile": _attachment_mail(EMAILS["south"], "orders", 32, "pbem: 1\nseq: 'one'\n"),
    }


def build_big(folder: Path) -> dict[str, Path]:
    """The corpus files too big to commit, written into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    huge = folder / "huge_document.yaml"
    huge.write_bytes(b"pbem: 1\norders:\n" + b"".join(b"  k%07d: %s\n" % (i, b"x" * 40) for i in range(20_000)))
    out["huge_document.yaml"] = huge
    blob = hashlib.sha256(b"big").digest() * (20 * 1024 * 1024 // 32)
    b64 = folder / "attachment_20mb_base64.eml"
    b64.write_bytes(_attachment_mail(EMAILS["north"], "orders", 40, _wrapped_b64(blob), cte="base64"))
    out["attachment_20mb_base64.eml"] = b64
    text = folder / "attachment_20mb_8bit.eml"
    line = "x" * 99 + "\n"
    text.write_bytes(_attachment_mail(EMAILS["north"], "orders", 41, "pbem: 1\nnote: |\n" + ("  " + line) * (20 * 1024 * 1024 // 102), cte="8bit"))
    out["attachment_20mb_8bit.eml"] = text
    return out


def write_corpus(root: Path = HERE) -> None:
    for name, data in {**yaml_files(), **mail_files()}.items():
        (root / name).write_bytes(data)
    (root / "three_mails.mbox").write_bytes(mbox_file())
    new = root / "maildir" / "new"
    new.mkdir(parents=True, exist_ok=True)
    for name, data in maildir_files().items():
        (new / name).write_bytes(data)
    keys = root / "keys"
    keys.mkdir(exist_ok=True)
    for name in EMAILS:
        (keys / f"{name}.pub").write_text(corpus_key(name).public().line() + "\n")


if __name__ == "__main__":
    write_corpus(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
