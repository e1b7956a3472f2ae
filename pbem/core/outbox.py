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
    extra = ""
    values = f"{sender}{to}{subject}{mid}"
    if headers:
        for name, value in headers.items():
            values += value
            if value.isascii():
                extra += f"{name}: {value}\r\n"
    if "\r" in values or "\n" in values:  # (one look at them all; which one, only when one has)
        for name, value in (("From", sender), ("To", to), ("Subject", subject), ("Message-ID", mid), *(headers or {}).items()):
            if "\r" in value or "\n" in value:
                raise ValueError(f"a line break in the {name} header of a mail")
    if not subject.isascii():
        subject = Header(subject, "utf-8").encode(linesep="\r\n")
    lines = text.splitlines()
    if text.isascii() and max(map(len, lines), default=0) <= 998:
        cte = "7bit"
    else:
        cte = "quoted-printable"
        lines = quopri.encodestring(text.encode("utf-8")).decode("ascii").splitlines()
    return (f"From: {sender}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: {mid}\r\n{extra}{_FIXED}"
            f"Content-Transfer-Encoding: {cte}\r\n\r\n" + "\r\n".join(lines) + "\r\n").encode("ascii")


_FIXED = 'Auto-Submitted: auto-replied\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset="utf-8"\r\n'


def queue(outbox: Path, name: str, msg: EmailMessage | bytes) -> Path:
    """Write ``msg`` to ``outbox/<name>.eml`` atomically (unchanged bytes are not rewritten)."""
    return Path(queue_text(outbox, name, msg))


@lru_cache(maxsize=64)
def _folders(outbox: str) -> tuple[str, str]:
    """The outbox folder and the ``sent`` folder beside it, as text ending in a separator
    (made once per outbox: intake queues a receipt per accepted file)."""
    return os.path.join(outbox, ""), os.path.join(os.path.dirname(outbox), "sent", "")


class SentFolder:
    """What a campaign's ``sent`` folder holds, for the receipts of one intake run: the receipt of
    a file accepted in this run can be in ``sent`` only if an earlier run queued it (the same
    signed content accepted again after its file was lost), so after the first few receipts
    (each a look of its own) the folder is listed once rather than looked in for each."""

    LOOKS = 16

    def __init__(self) -> None:
        self.looks = 0
        self.names: frozenset[str] | None = None

    def has(self, folder: str, file_name: str) -> bool:
        """Whether ``folder`` (the sent folder, as text ending in a separator) holds ``file_name``."""
        if self.names is None:
            if self.looks < self.LOOKS:
                self.looks += 1
                return os.access(folder + file_name, os.F_OK)  # (os.path.exists raises and catches for a missing file)
            try:
                self.names = frozenset(os.listdir(folder))
            except FileNotFoundError:
                self.names = frozenset()
        return file_name in self.names


def queue_text(outbox: Path | str, name: str, msg: EmailMessage | bytes, new: bool = False, sent: SentFolder | None = None) -> str:
    """:func:`queue`, the file's path given as text: intake queues a receipt per accepted file,
    and making a ``Path`` costs more than the rest of the call. ``new``: the caller knows this
    mail was never queued with these bytes (the receipt of a file accepted now): it is written
    without reading the outbox's copy first (a copy in ``sent/`` is still looked for, through
    ``sent`` when given: see :class:`SentFolder`)."""
    file_name = _SAFE.sub("_", name) + ".eml"
    folder, sent_folder = _folders(os.fspath(outbox))
    if new and sent is not None:
        if sent.has(sent_folder, file_name):
            return sent_folder + file_name
    elif os.access(sent_folder + file_name, os.F_OK):
        return sent_folder + file_name
    path = folder + file_name
    data = msg if isinstance(msg, bytes) else msg.as_bytes(policy=email.policy.SMTP)
    if new:
        atomic.write_bytes(path, data)
    else:
        atomic.write_if_changed(path, data)
    return path
