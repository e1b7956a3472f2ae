"""Queueing mail in a campaign's outbox.

Every queued mail has a stable ``Message-ID`` derived from its content's identity and no
``Date`` header (``pbem send`` adds it when it really sends), so queueing the same mail twice, as
a rerun after a crash does, writes the same bytes to the same file.
"""

from __future__ import annotations

import email.policy
import os
import quopri
import re
from email.header import Header
from email.message import EmailMessage
from functools import lru_cache
from pathlib import Path

from pbem.core import atomic

_SAFE = re.compile(r"[^A-Za-z0-9._-]")


def message_id(kind: str, key: str, campaign: str) -> str:
    """A stable Message-ID such as ``<receipt.3f2a…@maria-1741.pbem>``."""
    return f"<{kind}.{key}@{_domain(campaign)}.pbem>"


@lru_cache(maxsize=64)
def _domain(campaign: str) -> str:
    """The campaign id as a Message-ID's domain (made once per campaign)."""
    return _SAFE.sub("-", campaign)


def new_message(*, sender: str, to: str, subject: str, mid: str, text: str, headers: dict[str, str] | None = None) -> bytes:
    """A plain-text mail with the headers pbem always sets, as the bytes of an .eml file.

    Written directly rather than through ``email.message.EmailMessage``: intake sends one such
    receipt per accepted file, and the email package's header machinery cost more than all the
    rest of intake. Header values come from the roster and the campaign; a line break in one is
    refused, so no header can be injected. ``headers`` adds more (``In-Reply-To``,
    ``References``), ASCII only."""
    extra = dict(headers or {})
    for name, value in (("From", sender), ("To", to), ("Subject", subject), ("Message-ID", mid), *extra.items()):
        if "\r" in value or "\n" in value:
            raise ValueError(f"a line break in the {name} header of a mail")
    if subject.isascii():
        encoded_subject = subject
    else:
        encoded_subject = Header(subject, "utf-8").encode(linesep="\r\n")
    lines = text.splitlines()
    if text.isascii() and max(map(len, lines), default=0) <= 998:
        cte = "7bit"
    else:
        cte = "quoted-printable"
        lines = quopri.encodestring(text.encode("utf-8")).decode("ascii").splitlines()
    head = [
        f"From: {sender}",
        f"To: {to}",
        f"Subject: {encoded_subject}",
        f"Message-ID: {mid}",
        *(f"{name}: {value}" for name, value in extra.items() if value.isascii()),
        "Auto-Submitted: auto-replied",
        "MIME-Version: 1.0",
        'Content-Type: text/plain; charset="utf-8"',
        f"Content-Transfer-Encoding: {cte}",
    ]
    return ("\r\n".join(head) + "\r\n\r\n" + "\r\n".join(lines) + "\r\n").encode("ascii")


def queue(outbox: Path, name: str, msg: EmailMessage | bytes) -> Path:
    """Write ``msg`` to ``outbox/<name>.eml`` atomically (unchanged bytes are not rewritten)."""
    return Path(queue_text(outbox, name, msg))


@lru_cache(maxsize=64)
def _folders(outbox: str) -> tuple[str, str]:
    """The outbox folder and the ``sent`` folder beside it, as text ending in a separator
    (made once per outbox: intake queues a receipt per accepted file)."""
    return os.path.join(outbox, ""), os.path.join(os.path.dirname(outbox), "sent", "")


def queue_text(outbox: Path | str, name: str, msg: EmailMessage | bytes, new: bool = False) -> str:
    """:func:`queue`, the file's path given as text: intake queues a receipt per accepted file,
    and making a ``Path`` costs more than the rest of the call. ``new``: the caller knows this
    mail was never queued with these bytes (the receipt of a file accepted now): it is written
    without reading the outbox's copy first (a copy in ``sent/`` is still looked for)."""
    file_name = _SAFE.sub("_", name) + ".eml"
    folder, sent_folder = _folders(os.fspath(outbox))
    sent = sent_folder + file_name
    if os.access(sent, os.F_OK):  # (os.path.exists raises and catches for a missing file)
        return sent
    path = folder + file_name
    data = msg if isinstance(msg, bytes) else msg.as_bytes(policy=email.policy.SMTP)
    if new:
        atomic.write_bytes(path, data)
    else:
        atomic.write_if_changed(path, data)
    return path
