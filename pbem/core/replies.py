"""The mails pbem writes to one player outside the reports: receipts, refusals, request receipts
and the GM's notices (an extension, a pause, a rollback, a new player).

Each is rendered from a template under ``templates/base/mail_*.txt`` in the seat's language
(roster ``lang``), shows times in the seat's time zone (roster ``tz``) with UTC beside it, and
answers the player's own mail: ``In-Reply-To``/``References`` thread it, and it names the mail's
subject and date rather than the GM's file name.

Who gets an answer (a forged ``From`` must not make pbem a mailer for strangers):

- a file that verifies against the roster key of the seat whose address sent it gets a full
  answer: the receipt, or the refusal with its reason (one refusal per mail, each distinct
  reason once);
- anything else from a roster address (an unsigned or unreadable file, a bad signature, a mail
  without an order file) gets one reply per mail, with a fixed text that quotes nothing from the
  mail (only a kind of problem and a line number); at most :data:`REFUSALS_PER_SENDER` refusals
  of either kind go to one sender in one run; a mail from an address not on the roster gets none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

from pbem.common.canonical import sha256_hex
from pbem.common.catalog import N_
from pbem.core import outbox
from pbem.core.campaign import Campaign, Seat, format_time
from pbem.core.mailin import Candidate
from pbem.errors import OrderFileError, PbemError, SignatureError, echo

REFUSALS_PER_SENDER = 3
_MESSAGE_ID = re.compile(r"^<[!-;=?-~]{1,250}>$")  # printable ASCII without < > or spaces



def said(error: type[PbemError], msgid: str, *, line: int | None = None, field: str | None = None,
         **params: Any) -> PbemError:
    """An error whose English message is ``msgid % params``, and which a reply can say in the
    reader's language (times among ``params`` stay times until shown)."""
    exc = error(_fill(msgid, params, None), line=line, field=field)
    exc.said = (msgid, params)
    return exc


def _fill(msgid: str, params: dict[str, Any], tz: str | None) -> str:
    """``msgid % params`` with each time shown in ``tz`` beside UTC (``None``: ISO UTC text)."""
    from pbem.render.i18n import local_time

    def show(value: Any) -> Any:
        if not isinstance(value, datetime):
            return value
        return format_time(value) if tz is None else local_time(value, tz)

    return msgid % {k: show(v) for k, v in params.items()}


def say(exc: PbemError | None, message: str, lang: str, tz: str) -> str:
    """The reason of a refusal in ``lang``: translated when the error carries its msgid, with the
    line it is on; else the message as it is."""
    from pbem.render.i18n import gettext_for

    if exc is None:
        return message
    own = exc.in_language(lang)  # an error that says itself (a refusal by shape)
    if own is not None:
        text = own
    elif exc.said is None:
        return message
    else:
        msgid, params = exc.said
        text = _fill(gettext_for(lang, msgid), params, tz)
    if exc.line:
        text = _fill(gettext_for(lang, N_("line %(line)s: %(text)s")), {"line": exc.line, "text": text}, tz)
    return text


def thread(cand: Candidate) -> dict[str, str]:
    """Headers that make a reply follow the player's mail in their client."""
    mid = (cand.message_id or "").strip()
    return {"In-Reply-To": mid, "References": mid} if _MESSAGE_ID.match(mid) else {}


def mail_ref(cand: Candidate, tz: str, with_subject: bool = True) -> dict[str, str] | None:
    """How a reply names the player's mail: its subject (escaped, cut at 80 characters) and
    date in the player's time zone; ``None`` for a file that did not come by mail."""
    from pbem.render.i18n import local_time

    when = cand.sent or cand.received
    if when is None and cand.subject is None:
        return None
    return {
        "subject": echo(cand.subject) if (with_subject and cand.subject) else "",
        "date": local_time(when, tz) if when else "",
    }


def send(camp: Campaign, seat: Seat, template: str, context: dict[str, Any], *, name: str, kind: str,
         headers: dict[str, str] | None = None) -> Path:
    """Render ``templates/base/mail_<template>.txt`` for ``seat`` (its first line is the subject)
    and queue it as ``outbox/<kind>-<name>.eml`` with the Message-ID ``<kind.name@…>``."""
    from pbem.render import i18n

    lang = i18n.check_lang(seat.lang)
    ctx = dict(context, campaign=camp.id, seat=seat.name, tz=seat.tz)
    return _queue(camp, seat, i18n.render(lang, f"base/mail_{template}.txt", ctx), name=name, kind=kind, headers=headers)


def _queue(camp: Campaign, seat: Seat, text: str, *, name: str, kind: str, headers: dict[str, str] | None) -> Path:
    """Queue a rendered mail ``text`` (its first line is the subject) to ``seat``."""
    return Path(_queue_text(camp, seat, text, name=name, kind=kind, headers=headers))


def _queue_text(camp: Campaign, seat: Seat, text: str, *, name: str, kind: str, headers: dict[str, str] | None,
                new: bool = False, sent: outbox.SentFolder | None = None) -> str:
    """:func:`_queue`, the file's path given as text (``new``, ``sent``: see :func:`outbox.queue_text`)."""
    subject, _, body = text.partition("\n")
    msg = outbox.new_message(
        sender=str(camp.create_record().get("gm_email", "pbem@localhost")), to=seat.email,
        subject=" ".join(subject.split()), mid=outbox.message_id(kind, name, camp.id),
        text=body.lstrip("\n"), headers=headers,
    )
    return outbox.queue_text(camp.outbox, f"{kind}-{name}", msg, new, sent)


# -- refusals of what did not verify ------------------------------------------------------------

# the kinds of problem a fixed-text reply may name (nothing the mail said is quoted)
NO_FILE, UNREADABLE, SIGNATURE, NOT_YOURS = "no_file", "unreadable", "signature", "not_yours"
HTML_ONLY, TOO_LARGE, MALFORMED, EMPTY = "html_only", "too_large", "malformed", "empty"
INTERNAL = "internal"  # checking the file raised: a bug, not the player's fault
INTERNAL_ERROR = N_("the file could not be checked (an internal error); the GM has been told")


def problem_kind(cand: Candidate, exc: PbemError | None) -> str:
    """The kind of problem a fixed-text reply names for a refusal."""
    if cand.problem is not None:
        problem = cand.problem
        if "only HTML" in problem:
            return HTML_ONLY
        if "is empty" in problem:
            return EMPTY
        if "malformed" in problem:
            return MALFORMED
        if " bytes" in problem:
            return TOO_LARGE
        return NO_FILE
    if exc is None:
        return NO_FILE
    if exc.said is not None and exc.said[0] == INTERNAL_ERROR:
        return INTERNAL
    if isinstance(exc, OrderFileError):
        return UNREADABLE
    if isinstance(exc, SignatureError):
        return SIGNATURE
    return NOT_YOURS


@dataclass
class Unproven:
    """The refusals of one mail that no verified file stands behind."""

    kinds: dict[str, int | None] = field(default_factory=dict)  # kind -> first line number
    cands: list[Candidate] = field(default_factory=list)

    def add(self, cand: Candidate, kind: str, line: int | None) -> None:
        self.cands.append(cand)
        if kind not in self.kinds:
            self.kinds[kind] = line if kind == UNREADABLE else None


@dataclass
class Budget:
    """How many fixed-text replies each sender got in this run."""

    sent: dict[str, int] = field(default_factory=dict)

    def take(self, sender: str) -> bool:
        count = self.sent.get(sender, 0)
        if count >= REFUSALS_PER_SENDER:
            return False
        self.sent[sender] = count + 1
        return True


def refuse_unproven(camp: Campaign, roster: dict[str, Seat], unproven: Unproven, budget: Budget) -> Path | None:
    """One fixed-text reply for a mail's unverified refusals, to a roster address only."""
    if not unproven.cands:
        return None
    first = unproven.cands[0]
    by_address = {s.email.lower(): s for s in roster.values()}
    seat = by_address.get((first.sender or "").lower())
    if seat is None or not budget.take(seat.email.lower()):
        return None
    key = sha256_hex("\0".join(c.key for c in unproven.cands).encode())[:24]
    problems = [{"kind": kind, "line": line} for kind, line in unproven.kinds.items()]
    return send(camp, seat, "refused_unproven", {"mail": mail_ref(first, seat.tz, with_subject=False), "problems": problems},
                name=key, kind="refused", headers=thread(first))


# -- answers to verified files ------------------------------------------------------------------


@dataclass
class Refused:
    """The refusals of one mail's files that verified against the sender's own roster key."""

    items: list[tuple[Candidate, str, PbemError | None]] = field(default_factory=list)

    def add(self, cand: Candidate, message: str, exc: PbemError | None) -> None:
        self.items.append((cand, message, exc))


MAX_REASONS = 10


def refuse_verified(camp: Campaign, roster: dict[str, Seat], refused: Refused, budget: Budget, phase_id: str) -> Path | None:
    """One refusal for a mail's verified files, each distinct reason once (a mail of hundreds of
    copies of an old signed file gives one mail), within the sender's replies of this run."""
    if not refused.items:
        return None
    first = refused.items[0][0]
    by_address = {s.email.lower(): s for s in roster.values()}
    seat = by_address.get((first.sender or "").lower())
    if seat is None or not budget.take(seat.email.lower()):
        return None
    from pbem.render.i18n import check_lang

    reasons: list[str] = []
    for _cand, message, exc in refused.items:
        reason = say(exc, message, check_lang(seat.lang), seat.tz)
        if reason not in reasons and len(reasons) < MAX_REASONS:
            reasons.append(reason)
    key = first.key[:24] if len(refused.items) == 1 else sha256_hex("\0".join(c.key for c, _m, _e in refused.items).encode())[:24]
    return send(camp, seat, "refused", {"mail": mail_ref(first, seat.tz), "reasons": reasons, "phase": phase_id},
                name=key, kind="refused", headers=thread(first))


def receipt(camp: Campaign, seat: Seat, cand: Candidate, *, phase_id: str, seq: int, body_hash: str,
            raw_hash: str, pin: str, problems: Iterable[str], understood: str, new: bool = False,
            sent: outbox.SentFolder | None = None) -> str:
    """The receipt of accepted orders: the hashes of what was accepted, the archive head it was
    accepted on (the pin ``pbem audit --pin`` checks), every order that will be VOID and why, and
    the orders as understood. Returns the queued file's path as text. ``new``: the file was
    accepted now (not a copy of a file accepted before), so no receipt of it was queued yet
    (``sent``: the run's look at sent/, see :func:`outbox.queue_text`)."""
    i18n = _i18n()
    ctx = {
        "mail": mail_ref(cand, seat.tz), "phase": phase_id, "seq": seq, "hash": body_hash, "raw_hash": raw_hash, "pin": pin,
        "problems": [i18n.say_problem(seat.lang, p) for p in problems], "understood": understood,
        "campaign": camp.id, "seat": seat.name, "tz": seat.tz,
    }
    text = receipt_text(i18n.check_lang(seat.lang), ctx)
    return _queue_text(camp, seat, text, name=body_hash[:24], kind="receipt", headers=thread(cand), new=new, sent=sent)


def _i18n() -> Any:
    """:mod:`pbem.render.i18n`, imported at the first reply (it brings the template engine)."""
    module = _modules.get("i18n")
    if module is None:
        from pbem.render import i18n as module

        _modules["i18n"] = module
    return module


_modules: dict[str, Any] = {}


# A receipt's text is the same for every file but for the values in it: it is rendered once per
# language and shape (how many VOID orders, what the player's mail is named by) with a mark in
# place of each value, made a template, and each receipt fills it (intake writes one per
# accepted file).
_MARK = "\x00pbem-receipt-%s\x00"
_MARKS = re.compile("\x00pbem-receipt-(\\w+)\x00")
_RECEIPT_FIELDS = ("campaign", "seat", "tz", "phase", "seq", "hash", "raw_hash", "pin", "understood")


def _mail_shape(mail: dict[str, str] | None) -> str:
    """Which sentence of ``mail_yours.txt`` names the player's mail."""
    if mail and mail["subject"] and mail["date"]:
        return "subject"
    return "date" if mail and mail["date"] else ""


@cache
def _receipt_marked(lang: str, problems: int, mail: str) -> str:
    """The receipt's text as a ``str.format`` template: a field for each value (its name), the
    rest as rendered."""
    from pbem.render import i18n

    ctx: dict[str, Any] = {name: _MARK % name for name in _RECEIPT_FIELDS}
    ctx["problems"] = [_MARK % f"p{i}" for i in range(problems)]
    ctx["mail"] = {"subject": _MARK % "subject" if mail == "subject" else "", "date": _MARK % "date" if mail else ""}
    pieces = _MARKS.split(i18n.render(lang, "base/mail_receipt.txt", ctx))  # text, a name, text, ..., text
    return "".join("{" + piece + "}" if i % 2 else piece.replace("{", "{{").replace("}", "}}") for i, piece in enumerate(pieces))


def receipt_text(lang: str, ctx: dict[str, Any]) -> str:
    """``templates/base/mail_receipt.txt`` rendered in ``lang`` with ``ctx``: the same text as
    :func:`pbem.render.i18n.render` gives (``tests/test_replies_receipt.py``)."""
    mail = ctx["mail"]
    shape = _mail_shape(mail)
    values = {name: "" if ctx[name] is None else str(ctx[name]) for name in _RECEIPT_FIELDS}
    values.update((f"p{i}", "" if p is None else str(p)) for i, p in enumerate(ctx["problems"]))
    if shape:
        values.update(subject=str(mail["subject"]), date=str(mail["date"]))
    return _receipt_marked(lang, len(ctx["problems"]), shape).format_map(values)


def request_receipt(camp: Campaign, seat: Seat, cand: Candidate, *, kind: str, seq: int, phase_id: str) -> Path:
    key = sha256_hex(f"{cand.key}|{kind}".encode())[:24]
    return send(camp, seat, "request", {"mail": mail_ref(cand, seat.tz), "kind": kind, "seq": seq, "phase": phase_id},
                name=key, kind="request", headers=thread(cand))


# -- notices ------------------------------------------------------------------------------------

NOTICE_KINDS = ("extend", "pause", "resume", "rollback", "roster")


def notify(camp: Campaign, index: int) -> list[Path]:
    """Queue one notice to each player about record ``index`` when it is a GM's change or a
    pause or resume: what changed and why, and the deadline of the waiting phase, as they stood
    when the record was written. Idempotent (same record, same bytes); ``pbem run`` calls it
    for every record not yet published, so a command killed after its record still mails."""
    rec = camp.records()[index]
    if rec["kind"] not in NOTICE_KINDS:
        return []
    then = camp.as_of(index)
    _, state = then.current()
    phase = then.game().current_phase(state)
    paused = rec["kind"] == "pause"
    deadline = then.deadline(phase.deadline_kind) if phase is not None and not paused else None
    floor = _set_aside_seqs(then, phase.id) if rec["kind"] == "rollback" and phase is not None else {}
    out = []
    for seat in then.roster().values():
        ctx = {
            "kind": rec["kind"], "phase": phase.id if phase else "", "reason": " ".join(str(rec.get("reason", "")).split()),
            "deadline": deadline, "seats": ", ".join(rec.get("requests", {})), "changed": rec.get("seat", ""),
            "next_seq": floor.get(seat.name, 0) + 1,
        }
        out.append(send(camp, seat, "notice", ctx, name=f"{index:06d}.{seat.name}", kind="notice"))
    return out


def _set_aside_seqs(camp: Campaign, phase_id: str) -> dict[str, int]:
    from pbem.core.accepted import set_aside

    return {seat: acc.seq for seat, acc in set_aside(camp, camp.phase_number(), phase_id).items()}
