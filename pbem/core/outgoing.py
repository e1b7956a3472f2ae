"""A queued message's envelope: who it is from and to, its Message-ID, and the bytes that go out.

The outbox holds each message as it was queued (no ``Date``, ``Bcc`` kept as the envelope's
record); :func:`wire_bytes` gives what the server receives. Delivery itself is
:mod:`pbem.core.delivery`.
"""

from __future__ import annotations

import email.utils
import re
from dataclasses import dataclass, field
from email.parser import BytesHeaderParser
from pathlib import Path

from pbem.core.mailconfig import MailError

_EOL = re.compile(rb"\r\n|\r|\n")


@dataclass(frozen=True)
class Outgoing:
    """One queued message: the file, its Message-ID and its envelope."""

    name: str
    message_id: str
    sender: str
    recipients: tuple[str, ...]
    raw: bytes = field(repr=False)


def _header_end(raw: bytes) -> tuple[int, bytes]:
    """Offset where the body starts and the line ending the header uses."""
    crlf, lf = raw.find(b"\r\n\r\n"), raw.find(b"\n\n")
    if crlf != -1 and (lf == -1 or crlf <= lf):
        return crlf + 2, b"\r\n"
    if lf != -1:
        return lf + 1, b"\n"
    return len(raw), b"\r\n" if b"\r\n" in raw else b"\n"


def _drop_header(raw: bytes, name: bytes) -> bytes:
    """``raw`` without every ``name:`` field (with its folded continuation lines)."""
    end, nl = _header_end(raw)
    lines = raw[:end].split(nl)
    kept: list[bytes] = []
    skipping = False
    for line in lines:
        if skipping and line[:1] in (b" ", b"\t"):
            continue
        skipping = line.lower().startswith(name.lower() + b":")
        if not skipping:
            kept.append(line)
    return nl.join(kept) + raw[end:]


def parse_outgoing(name: str, raw: bytes, sender: str | None = None) -> Outgoing:
    """Read the envelope of a queued message; raise MailError if it cannot be sent."""
    headers = BytesHeaderParser().parsebytes(raw)
    message_id = (headers.get("Message-ID") or "").strip()
    if not message_id:
        raise MailError("has no Message-ID header; pbem cannot send it exactly once", source=name)
    fields = [str(v) for key in ("To", "Cc", "Bcc") for v in headers.get_all(key, [])]
    recipients: list[str] = []
    for _, addr in email.utils.getaddresses(fields):
        if addr and "@" in addr and addr not in recipients:
            recipients.append(addr)
    if not recipients:
        raise MailError("has no recipient (To, Cc or Bcc)", source=name)
    if sender is None:
        found = email.utils.getaddresses([str(v) for v in headers.get_all("From", [])])
        sender = next((addr for _, addr in found if addr), None)
    if not sender:
        raise MailError("has no From address; give --from", source=name)
    return Outgoing(name, message_id, sender, tuple(recipients), raw)


def wire_bytes(raw: bytes, date: str) -> bytes:
    """The bytes that go out: ``Date`` added (unless present) and ``Bcc`` removed."""
    headers = BytesHeaderParser().parsebytes(raw)
    out = _drop_header(raw, b"Bcc")
    if headers.get("Date") is None:
        _, nl = _header_end(out)
        out = b"Date: " + date.encode("ascii") + nl + out
    return out


def to_crlf(data: bytes) -> bytes:
    """SMTP lines end in CRLF; smtplib fixes line ends only for str messages, not bytes."""
    return _EOL.sub(b"\r\n", data)


def message_id_of(path: Path) -> str | None:
    """The Message-ID of a stored message, reading only its header."""
    with open(path, "rb") as handle:
        head = b""
        while b"\n\n" not in head and b"\r\n\r\n" not in head:
            chunk = handle.read(65536)
            if not chunk:
                break
            head += chunk
    value = BytesHeaderParser().parsebytes(head).get("Message-ID")
    return value.strip() if value else None
