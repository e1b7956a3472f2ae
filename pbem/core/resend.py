"""A player's signed ``resend`` request: mail the seat its latest reports again.

The newest report mail to the seat (in ``sent/`` or still in ``outbox/``) is queued again as a
copy with its own Message-ID, derived from the request, so each request sends exactly one copy
however often intake is rerun.
"""

from __future__ import annotations

import email
import email.policy
from pathlib import Path

from pbem.core import outbox
from pbem.core.campaign import Campaign


def latest_report(camp: Campaign, seat: str) -> Path | None:
    """The newest report mail for ``seat`` (report file names sort by phase number)."""
    found = sorted(
        (p for folder in (camp.sent, camp.outbox) if folder.is_dir() for p in folder.glob(f"report-*-{seat}.eml")),
        key=lambda p: p.name,
    )
    return found[-1] if found else None


def resend(camp: Campaign, seat: str, request_key: str) -> Path | None:
    """Queue a copy of the seat's latest report mail; ``None`` if it has none yet."""
    original = latest_report(camp, seat)
    if original is None:
        return None
    msg = email.message_from_bytes(original.read_bytes(), policy=email.policy.SMTP)
    del msg["Date"]
    del msg["Message-ID"]
    msg["Message-ID"] = outbox.message_id("resend", request_key, camp.id)
    msg.replace_header("Subject", f"[resent] {msg['Subject']}")
    return outbox.queue(camp.outbox, f"resend-{request_key}", msg)  # type: ignore[arg-type]
