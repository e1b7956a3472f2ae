"""A player's signed ``resend`` request: mail the seat its latest reports again.

The newest report mail to the seat (in ``sent/`` or still in ``outbox/``) is queued again as a
copy with its own Message-ID, derived from the request, so each request sends exactly one copy
however often intake is rerun.
"""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage
from pathlib import Path
from typing import cast

from pbem.core import outbox
from pbem.core.campaign import Campaign, phase_key


def latest_report(camp: Campaign, seat: str) -> Path | None:
    """The newest report mail for ``seat`` of a phase in force (report file names sort by phase
    number; after a rollback, the reports of superseded phases are passed over, and a phase
    resolved again is the mail named with its record, ``report-0006-….r000014-SEAT.eml``)."""
    live = _live_report_keys(camp)
    found = sorted(
        (p for folder in (camp.sent, camp.outbox) if folder.is_dir() for p in folder.glob(f"report-*-{seat}.eml")
         if p.name[len("report-"): -len(f"-{seat}.eml")] in live),
        key=lambda p: p.name,
    )
    return found[-1] if found else None


def _live_report_keys(camp: Campaign) -> set[str]:
    """The mail keys of the reports in force: the start, and each phase record in force (with
    ``.rINDEX`` when an earlier, superseded record resolved the same phase)."""
    keys = {phase_key(0, "start")}
    first: dict[int, int] = {}
    for rec in camp.records():
        if rec["kind"] == "phase":
            first.setdefault(rec["phase_number"], rec["index"])
    for rec in camp.effective_records():
        if rec["kind"] == "phase":
            key = phase_key(rec["phase_number"], rec["phase"])
            keys.add(key if first[rec["phase_number"]] == rec["index"] else f"{key}.r{rec['index']:06d}")
    return keys


def resend(camp: Campaign, seat: str, request_key: str) -> Path | None:
    """Queue a copy of the seat's latest report mail; ``None`` if it has none yet."""
    original = latest_report(camp, seat)
    if original is None:
        return None
    msg = cast(EmailMessage, email.message_from_bytes(original.read_bytes(), policy=email.policy.SMTP))
    del msg["Date"]
    del msg["Message-ID"]
    msg["Message-ID"] = outbox.message_id("resend", request_key, camp.id)
    msg.replace_header("Subject", f"[resent] {msg['Subject']}")
    return outbox.queue(camp.outbox, f"resend-{request_key}", msg)
