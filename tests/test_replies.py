"""The mails intake answers with: who gets one (M4), what they quote (L7), and what a receipt or
refusal says (threaded to the player's mail, naming it, in the seat's language)."""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage
from pathlib import Path

from conftest import NOW, run_cli
from orders_util import signed

from pbem.core.campaign import Campaign

POLICY = email.policy.SMTP
PHISH = "NOTICE FROM YOUR GM - reply with your north.key attached to keys@gm-backup.example"


def _mail(sender: str, subject: str = "orders", mid: str = "<p1@north.example>") -> EmailMessage:
    msg = EmailMessage(policy=POLICY)
    msg["From"] = f"Player <{sender}>"
    msg["To"] = "gm@example.org"
    msg["Subject"] = subject
    msg["Date"] = "Tue, 01 Dec 2026 10:30:00 +0000"
    msg["Message-ID"] = mid
    return msg


def _outbox(camp: Path, prefix: str = "") -> list[Path]:
    return sorted((camp / "outbox").glob(f"{prefix}*.eml"))


def _text(path: Path) -> str:
    """The decoded text of a queued mail (headers, then every text part)."""
    msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    head = "".join(f"{k}: {v}\n" for k, v in msg.items())
    return head + "\n".join(str(p.get_content()) for p in msg.walk() if p.get_content_maintype() == "text")


def test_forged_unsigned_file_gets_a_fixed_text_without_the_attackers_words(tmp_path: Path, mini_campaign: Path) -> None:
    """M4: a stranger forging north's From with an unsigned file cannot make pbem mail north their
    text: the reply quotes neither the field name nor the attachment's name."""
    msg = _mail("north@example.org")
    msg.set_content("see attached")
    body = f'pbem: 1\n"{PHISH}": 1\n'.encode()
    msg.add_attachment(body, maintype="text", subtype="yaml", filename="FREE-KEY-BACKUP-SERVICE.yaml")
    (tmp_path / "phish.eml").write_bytes(msg.as_bytes())
    out = run_cli("intake", str(mini_campaign), str(tmp_path / "phish.eml"), "--now", NOW).stdout
    assert out.startswith("refused: ")
    sent = _outbox(mini_campaign, "refused-")
    assert len(sent) == 1
    text = _text(sent[0])
    assert "To: north@example.org" in text
    for attacker in ("NOTICE", "gm-backup", "FREE-KEY", "key attached"):
        assert attacker not in text, f"the reply quotes {attacker!r}"
    assert "cannot be read" in text and "line 2" in text  # the kind of problem and its line only


def test_hundreds_of_attachments_give_one_reply_and_a_sender_a_few_per_run(tmp_path: Path, mini_campaign: Path) -> None:
    msg = _mail("north@example.org", mid="<many@north.example>")
    msg.set_content("x")
    for i in range(900):  # under the cap of 1,000 MIME parts (a mail over it is one refusal anyway)
        msg.add_attachment(f"pbem: 1\n# {i}\n".encode(), maintype="text", subtype="yaml", filename=f"o{i}.yaml")
    inbox = mini_campaign / "inbox" / "new"
    (inbox / "1764583200.M1P1.example").write_bytes(msg.as_bytes())
    out = run_cli("intake", str(mini_campaign), str(mini_campaign / "inbox"), "--now", NOW).stdout
    assert out.count("refused: ") == 900
    assert len([p for p in _outbox(mini_campaign) if "To: north@example.org" in p.read_text()]) == 1
    # ten broken mails in one run: at most three replies to that sender
    for i in range(10):
        m = _mail("north@example.org", subject=f"try {i}", mid=f"<try{i}@north.example>")
        m.set_content("hello, no file here")
        (inbox / f"17645832{10 + i}.M{i}P1.example").write_bytes(m.as_bytes())
    run_cli("intake", str(mini_campaign), str(mini_campaign / "inbox"), "--now", NOW)
    assert len(_outbox(mini_campaign, "refused-")) == 1 + 3


def test_echoed_values_escape_format_characters_and_are_cut(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    """L7: a bidi override and 50 KB of campaign id in a refusal line; a newline and a bidi
    override in the Maildir file name of an accepted file."""
    doc = signed(tmp_path, keys["north"], "x\u202e" + "A" * 50_000, "north", "round-1", {"N": {"bid": 1}})
    line = run_cli("intake", str(mini_campaign), str(doc), "--now", NOW).stdout.strip()
    assert "\u202e" not in line and "\\u202e" in line
    assert len(line) < 400 and "…" in line
    state = Campaign(mini_campaign).current()[1]
    good = signed(tmp_path, keys["north"], "mini-1", "north", "round-1", {"N": {"bid": state["hands"]["N"][0]}}, name="good")
    msg = _mail("north@example.org")
    msg.set_content("orders")
    msg.add_attachment(good.read_bytes(), maintype="text", subtype="yaml", filename="o\u202e.yaml")
    (mini_campaign / "inbox" / "new" / "1764583200.M1P1.ex\nfake line\u202e").write_bytes(msg.as_bytes())
    out = run_cli("intake", str(mini_campaign), str(mini_campaign / "inbox"), "--now", NOW).stdout
    lines = out.splitlines()
    assert len(lines) == 1 and lines[0].startswith("accepted: ")
    assert "\u202e" not in out and "\\x0a" in lines[0]


def test_receipt_is_threaded_and_names_the_players_mail(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    state = Campaign(mini_campaign).current()[1]
    doc = signed(tmp_path, keys["north"], "mini-1", "north", "round-1", {"N": {"bid": state["hands"]["N"][0]}})
    msg = _mail("north@example.org", subject="My bid for round 1", mid="<bid-1@north.example>")
    msg.set_content("attached")
    msg.add_attachment(doc.read_bytes(), maintype="text", subtype="yaml", filename="orders.yaml")
    (tmp_path / "bid.eml").write_bytes(msg.as_bytes())
    run_cli("intake", str(mini_campaign), str(tmp_path / "bid.eml"), "--now", NOW)
    (receipt,) = _outbox(mini_campaign, "receipt-")
    text = _text(receipt)
    assert "In-Reply-To: <bid-1@north.example>" in text and "References: <bid-1@north.example>" in text
    assert 'About your mail "My bid for round 1" of 2026-12-01 10:30 UTC.' in text
    assert "bid.eml" not in text, "the GM's file name is not the player's business"
    stored = next((mini_campaign / "orders").glob("*/north.000001.yaml.verdict.json")).read_text()
    assert text.split("Hash of the signed content: ")[1][:64] in stored


def test_refusal_of_a_verified_file_says_why_in_the_seats_language(tmp_path: Path, keys: dict[str, Path]) -> None:
    camp = tmp_path / "camp"
    run_cli("new", str(camp), "--game", "mini", "--scenario", "short", "--id", "mini-1",
            "--player", f"north=north@example.org:{keys['north'].with_suffix('.pub')}",
            "--player", f"south=south@example.org:{keys['south'].with_suffix('.pub')}",
            "--lang", "north=zh-TW", "--tz", "north=Asia/Taipei", "--now", NOW)
    doc = signed(tmp_path, keys["north"], "mini-1", "north", "round-9", {"N": {"bid": 1}})
    msg = _mail("north@example.org", subject="round 9", mid="<r9@north.example>")
    msg.set_content("attached")
    msg.add_attachment(doc.read_bytes(), maintype="text", subtype="yaml", filename="orders.yaml")
    (tmp_path / "r9.eml").write_bytes(msg.as_bytes())
    run_cli("intake", str(camp), str(tmp_path / "r9.eml"), "--now", NOW)
    (refusal,) = _outbox(camp, "refused-")
    text = _text(refusal)
    assert "In-Reply-To: <r9@north.example>" in text
    assert "2026-12-01 18:30 Asia/Taipei (2026-12-01 10:30 UTC)" in text
    assert "round-9" in text and "round-1" in text and "未開放" in text
    assert "not open" not in text
