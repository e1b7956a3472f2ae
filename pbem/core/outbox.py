"""Queueing mail in a campaign's outbox.

Every queued mail has a stable ``Message-ID`` derived from its content's identity and no
``Date`` header (``pbem send`` adds it when it really sends), so queueing the same mail twice, as
a rerun after a crash does, writes the same bytes to the same file.
"""

from __future__ import annotations

import email.policy
import re
from email.message import EmailMessage
from pathlib import Path

from pbem.core import atomic

_SAFE = re.compile(r"[^A-Za-z0-9._-]")


def message_id(kind: str, key: str, campaign: str) -> str:
    """A stable Message-ID such as ``<receipt.3f2a…@maria-1741.pbem>``."""
    return f"<{kind}.{key}@{_SAFE.sub('-', campaign)}.pbem>"


def new_message(*, sender: str, to: str, subject: str, mid: str, text: str) -> EmailMessage:
    """A plain-text mail with the headers pbem always sets."""
    msg = EmailMessage(policy=email.policy.SMTP)
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Message-ID"] = mid
    msg["Auto-Submitted"] = "auto-replied"
    msg.set_content(text, cte="quoted-printable" if not text.isascii() else "7bit")
    return msg


def queue(outbox: Path, name: str, msg: EmailMessage) -> Path:
    """Write ``msg`` to ``outbox/<name>.eml`` atomically (unchanged bytes are not rewritten)."""
    path = outbox / (_SAFE.sub("_", name) + ".eml")
    sent = outbox.parent / "sent" / path.name
    if sent.exists():
        return sent
    atomic.write_if_changed(path, msg.as_bytes(policy=email.policy.SMTP))
    return path
