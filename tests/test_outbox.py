"""Queued mails: plain-text receipts parse as the mail they claim to be."""

from __future__ import annotations

import email
import email.policy
from pathlib import Path

import pytest

from pbem.core import outbox


@pytest.mark.parametrize("text", ["Orders accepted.\nbid: 3\n", "Befehle für Böhmen angenommen — 命令已收到\n" + "x" * 1200 + "\n"])
def test_text_mail_round_trips_through_the_email_parser(tmp_path: Path, text: str) -> None:
    subject = "[maria-1741] orders received: 1741-1/prussia" + (" — 普魯士" if not text.isascii() else "")
    data = outbox.new_message(sender="gm@example.org", to="fritz@example.org", subject=subject,
                              mid="<receipt.abc@maria-1741.pbem>", text=text)
    path = outbox.queue(tmp_path, "receipt-abc", data)
    msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    assert msg["To"] == "fritz@example.org" and msg["Subject"] == subject
    assert msg["Message-ID"] == "<receipt.abc@maria-1741.pbem>" and msg["Date"] is None
    assert msg.get_content().replace("\r\n", "\n") == text
    assert all(len(line) <= 998 for line in path.read_bytes().split(b"\r\n"))


def test_header_injection_is_refused() -> None:
    with pytest.raises(ValueError, match="line break"):
        outbox.new_message(sender="gm@example.org", to="a@example.org\r\nBcc: victim@example.org",
                           subject="x", mid="<m@x.pbem>", text="hi")


def test_queue_does_not_requeue_what_was_sent(tmp_path: Path) -> None:
    (tmp_path / "outbox").mkdir()
    (tmp_path / "sent").mkdir()
    (tmp_path / "sent" / "receipt-1.eml").write_bytes(b"sent copy")
    got = outbox.queue(tmp_path / "outbox", "receipt-1", b"new bytes")
    assert got == tmp_path / "sent" / "receipt-1.eml" and not (tmp_path / "outbox" / "receipt-1.eml").exists()
