"""Delivering the outbox by SMTP, exactly once.

The outbox (``DIR/outbox/*.eml``) holds complete messages with a stable ``Message-ID`` and no
``Date``. Delivery is split into a pure plan (:mod:`pbem.core.sendplan`: what is to be sent,
to whom, what is already done) and an apply step (:func:`deliver`, here) that talks SMTP
(:mod:`pbem.core.smtpclient`) and sends each message's wire bytes (:mod:`pbem.core.outgoing`).

Exactly once rests on a journal per message, ``DIR/outbox/.journal/NAME.json``, written
atomically (temporary file, fsync, rename, fsync of the folder) at each step:

1. after ``RCPT``, before the message goes out: the ``Date`` it is sent with (so that a resend
   is byte-identical), the recipients the server took (``in_flight``), those it refused;
2. after the server's ``250`` to the message: ``in_flight`` becomes ``delivered``, and the
   message is ``done`` when no recipient is left;
3. the sent message (with its ``Date``) is written to ``DIR/sent/NAME`` (fsync), then the
   outbox file is removed and the journal moved to ``DIR/sent/.journal/``.

A rerun redoes whatever step was interrupted and never sends to a recipient in ``delivered``
or ``refused``. The ``Message-ID`` is the idempotency key: a message whose Message-ID is already
in ``sent/`` is never sent again (a re-run phase queues byte-identical files).

The one window no client can close runs from the final dot of ``DATA`` to step 2 on disk: the
server's processing before its ``250``, the reading of the reply, and the journal's write and
fsyncs. SMTP has no way to ask a server whether it took a message, so a process that dies (or a
connection that drops) in it leaves the journal at ``in_flight``, and the next run sends the
message again (same bytes, same Message-ID, so mail readers and pbem's intake can tell it is a
copy): each kill in the window can add one copy, never a loss. Everything else — a kill during
``RCPT``, during the transfer before the final dot, after the journal — is exact.
Loss is never traded for it: a message is removed from the outbox only after step 3.
"""

from __future__ import annotations

import contextlib
import email.utils
import fcntl
import os
import smtplib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pbem.core import atomic
from pbem.core.mailconfig import MailError, ServerSettings
from pbem.core.outgoing import Outgoing, message_id_of, to_crlf, wire_bytes
from pbem.core.sendplan import JOURNAL_DIR, Journal, Step, plan_delivery
from pbem.core.smtpclient import Dropped, reply, smtp_connect

LOCK_FILE = ".lock"

Say = Callable[[str], None]


# -- lock -------------------------------------------------------------------------------------


@contextlib.contextmanager
def outbox_lock(outbox: Path, *, wait: bool = False, say: Say | None = None) -> Iterator[None]:
    """Hold ``outbox/.lock`` exclusively, so two sends never interleave.

    Without ``wait`` a held lock is a MailError naming the holder's pid. The lock is the kernel's
    (``flock``): it goes away with its process, so a killed send leaves no stale lock.
    """
    fd = os.open(outbox / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            if not wait:
                raise MailError(
                    f"another pbem send (pid {holder}) is delivering this outbox; "
                    "run again when it has finished, or use --wait",
                    source=str(outbox),
                ) from None
            if say:
                say(f"waiting for pid {holder} to finish sending ...")
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # closing releases the flock


# -- apply ------------------------------------------------------------------------------------


@dataclass
class Outcome:
    """What one run did."""

    sent: list[str] = field(default_factory=list)
    filed: list[str] = field(default_factory=list)
    refused: dict[str, dict[str, str]] = field(default_factory=dict)
    left: list[str] = field(default_factory=list)  # still queued (deferred or broken)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.refused or self.left or self.problems)


class _Run:
    """The apply step: one connection at a time, a journal write at every step."""

    def __init__(self, campaign_dir: Path, settings: ServerSettings, out: Say, err: Say,
                 retries: int, retry_delay: float) -> None:
        self.dir = campaign_dir
        self.outbox = campaign_dir / "outbox"
        self.sent_dir = campaign_dir / "sent"
        self.journals = self.outbox / JOURNAL_DIR
        self.settings = settings
        self.out, self.err = out, err
        self.retries, self.retry_delay = retries, retry_delay
        self.conn: smtplib.SMTP | None = None
        self.failures = 0
        self.outcome = Outcome()

    # journal and files

    def save(self, name: str, journal: Journal) -> None:
        self.journals.mkdir(exist_ok=True)
        atomic.write_bytes(self.journals / f"{name}.json", journal.to_bytes())

    def file_sent(self, item: Outgoing, journal: Journal) -> None:
        """Steps after ``done``: the sent copy, then the outbox file and journal go."""
        self.sent_dir.mkdir(exist_ok=True)
        wire = wire_bytes(item.raw, journal.date)
        target = self.sent_dir / (journal.sent_as or item.name)
        n = 1
        while target.exists() and message_id_of(target) != item.message_id:
            n += 1
            target = self.sent_dir / f"{Path(item.name).stem}-{n}.eml"
        if (journal.sent_as or item.name) != target.name:  # a name clash in sent/
            journal.sent_as = target.name
            self.save(item.name, journal)
        if not target.exists():
            atomic.write_bytes(target, wire)  # durable before the outbox copy goes
        # No fsync from here on: if the unlink or the move below is lost in a crash, the next
        # run finds the journal done, or the Message-ID in sent/, and only tidies up.
        source = self.outbox / item.name
        if source.exists():
            source.unlink()
        self.move_journal(f"{item.name}.json")

    def move_journal(self, journal_name: str) -> None:
        done_dir = self.sent_dir / JOURNAL_DIR
        done_dir.mkdir(parents=True, exist_ok=True)
        os.replace(self.journals / journal_name, done_dir / journal_name)

    # connection

    def connection(self) -> smtplib.SMTP:
        while self.conn is None:
            try:
                self.conn = smtp_connect(self.settings)
            except Dropped as exc:
                self.dropped(str(exc))
        return self.conn

    def dropped(self, why: str) -> None:
        """Count a failure; wait and let the caller reconnect, or give up."""
        if self.conn is not None:
            with contextlib.suppress(Exception):
                self.conn.close()
        self.conn = None
        self.failures += 1
        if self.failures > self.retries:
            raise MailError(f"{why}; gave up after {self.retries} retries. Nothing was lost: "
                            "run pbem send again to deliver the rest")
        pause = min(self.retry_delay * 2 ** (self.failures - 1), 300.0)
        self.err(f"{why}; retrying in {pause:g} s ({self.failures}/{self.retries})")
        time.sleep(pause)

    # one message

    def send(self, step: Step) -> None:
        item, journal = step.item, step.journal
        assert item is not None and journal is not None
        if journal.in_flight:
            self.err(f"{item.name}: an earlier run was stopped while the server was taking it; "
                     "sending it again (same Message-ID), it may arrive twice")
        while True:
            remaining = journal.remaining(item.recipients)
            if not remaining:
                break
            try:
                self.transaction(item, journal, remaining)
                break
            except smtplib.SMTPResponseException as exc:
                why = reply(exc.smtp_code, exc.smtp_error)
                if exc.smtp_code >= 500:
                    raise MailError(f"{self.settings.host} answered {why}") from None
                # 421 (closing) or another temporary refusal of the whole transaction
                self.dropped(f"{self.settings.host} answered {why}")
            except OSError as exc:  # smtplib's errors are OSErrors too: a broken connection
                self.dropped(f"connection to {self.settings.host} lost ({exc or 'closed'})")
                if journal.in_flight:
                    self.err(f"{item.name}: the connection broke while the server was taking "
                             "it; sending it again (same Message-ID), it may arrive twice")
        if journal.deferred and journal.remaining(item.recipients):
            self.outcome.left.append(item.name)
            self.err(f"{item.name}: deferred for " + ", ".join(
                f"{r} ({why})" for r, why in sorted(journal.deferred.items())))
            return
        if not journal.done:
            journal.done = True
            self.save(item.name, journal)
        self.file_sent(item, journal)
        self.report_done(item, journal)

    def transaction(self, item: Outgoing, journal: Journal, remaining: list[str]) -> None:
        conn = self.connection()
        if not journal.date:
            # step 1: the Date is fixed now, and on disk (step 2) before the message goes out
            journal.date = email.utils.formatdate(usegmt=True)
        code, text = conn.mail(item.sender)
        if code != 250:
            conn.rset()
            if code >= 500:
                raise MailError(f"{self.settings.host} refused the sender {item.sender}: "
                                f"{reply(code, text)}")
            raise smtplib.SMTPResponseException(code, text)
        accepted: list[str] = []
        journal.deferred = {}
        for rcpt in remaining:
            code, text = conn.rcpt(rcpt)
            if code in (250, 251):
                accepted.append(rcpt)
            elif code >= 500:
                journal.refused[rcpt] = reply(code, text)
            elif code == 421:
                raise smtplib.SMTPResponseException(code, text)
            else:
                journal.deferred[rcpt] = reply(code, text)
        journal.in_flight = accepted
        self.save(item.name, journal)  # step 1
        if not accepted:
            conn.rset()
            return
        try:
            code, text = conn.data(to_crlf(wire_bytes(item.raw, journal.date)))
            if code != 250:  # smtplib checks the 354 but returns the final reply unchecked
                raise smtplib.SMTPDataError(code, text)
        except smtplib.SMTPDataError as exc:
            why = reply(exc.smtp_code, exc.smtp_error)
            if exc.smtp_code == 421:
                raise  # the server is going away: reconnect and try again
            target = journal.refused if exc.smtp_code >= 500 else journal.deferred
            for rcpt in accepted:
                target[rcpt] = why
            journal.in_flight = []
            self.save(item.name, journal)
            return
        # --- the window: the server has the message; until the next line is on disk a crash
        # --- means it is sent again. Nothing else happens between the reply and the write.
        for rcpt in accepted:
            journal.delivered[rcpt] = reply(code, text)
        journal.in_flight = []
        journal.done = not journal.remaining(item.recipients)  # saves a write in the common case
        self.save(item.name, journal)  # step 2
        self.failures = 0

    def report_done(self, item: Outgoing, journal: Journal) -> None:
        delivered = [r for r in item.recipients if r in journal.delivered]
        refused = {r: journal.refused[r] for r in item.recipients if r in journal.refused}
        if delivered:
            self.outcome.sent.append(item.name)
            self.out(f"sent {item.name} {item.message_id} to {', '.join(delivered)}")
        if refused:
            self.outcome.refused[item.name] = refused
            for rcpt, why in refused.items():
                self.err(f"{item.name}: {rcpt} refused: {why}")

    def close(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(Exception):
                self.conn.quit()
            self.conn = None


def deliver(
    campaign_dir: Path,
    settings: ServerSettings,
    *,
    out: Say,
    err: Say,
    retries: int = 3,
    retry_delay: float = 5.0,
    wait: bool = False,
) -> Outcome:
    """Send the outbox of ``campaign_dir`` under the outbox lock; see the module docstring.

    ``out`` gets one line per delivered message; ``err`` progress and problems. Raises
    MailError when the server stays unreachable (everything not yet sent stays queued).
    """
    outbox = campaign_dir / "outbox"
    if not outbox.is_dir():
        raise MailError("has no outbox folder", source=str(campaign_dir))
    with outbox_lock(outbox, wait=wait, say=err), atomic.scratch(campaign_dir):
        # plan under the lock: another send may have just finished part of the queue
        plan = plan_delivery(campaign_dir, sender=settings.sender)
        run = _Run(campaign_dir, settings, out, err, retries, retry_delay)
        try:
            for name in plan.stray_journals:
                journal = Journal.load(run.journals / name)
                if journal is not None and journal.done:
                    run.move_journal(name)  # a crash after the outbox file went
            for step in plan.steps:
                if step.kind == "send":
                    run.send(step)
                elif step.kind == "file":
                    assert step.item is not None and step.journal is not None
                    run.file_sent(step.item, step.journal)
                    run.outcome.filed.append(step.name)
                    err(f"{step.name}: was delivered by an earlier run; moved to sent/")
                elif step.kind == "duplicate":
                    (outbox / step.name).unlink()
                    atomic.fsync_dir(outbox)
                    err(f"{step.name}: not sent twice: {step.note}; this copy removed")
                else:
                    run.outcome.left.append(step.name)
                    run.outcome.problems.append(f"{step.name}: {step.note}")
                    err(f"{step.name}: not sent: {step.note}")
        finally:
            run.close()
    return run.outcome
