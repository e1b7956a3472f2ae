"""Delivering the outbox by SMTP, exactly once.

The outbox (``DIR/outbox/*.eml``) holds complete messages with a stable ``Message-ID`` and no
``Date``. Delivery is split into a pure plan (:func:`plan_delivery`: what is to be sent, to
whom, what is already done) and an apply step (:func:`deliver`) that talks SMTP.

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
import json
import os
import re
import smtplib
import ssl
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.parser import BytesHeaderParser
from pathlib import Path
from typing import Any

from pbem.core import atomic
from pbem.core.mailconfig import MailError, ServerSettings, is_loopback

JOURNAL_DIR = ".journal"
LOCK_FILE = ".lock"

Say = Callable[[str], None]
_EOL = re.compile(rb"\r\n|\r|\n")


# -- files ------------------------------------------------------------------------------------


def _json_bytes(data: Any) -> bytes:
    return (json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()


# -- messages ---------------------------------------------------------------------------------


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


# -- journal ----------------------------------------------------------------------------------


@dataclass
class Journal:
    """What is known about the delivery of one message. Saved after every step."""

    message_id: str
    date: str  # the Date header, fixed at the first attempt so that a resend is identical
    delivered: dict[str, str] = field(default_factory=dict)  # recipient -> server reply
    refused: dict[str, str] = field(default_factory=dict)  # permanent (5xx): never retried
    deferred: dict[str, str] = field(default_factory=dict)  # temporary (4xx): next run
    in_flight: list[str] = field(default_factory=list)  # sent DATA, reply not yet on disk
    done: bool = False
    sent_as: str | None = None  # the file name in sent/

    def remaining(self, recipients: tuple[str, ...]) -> list[str]:
        """Recipients still owed this message."""
        return [r for r in recipients if r not in self.delivered and r not in self.refused]

    def to_bytes(self) -> bytes:
        return _json_bytes(self.__dict__)

    @classmethod
    def load(cls, path: Path) -> Journal | None:
        try:
            data = json.loads(path.read_bytes())
        except FileNotFoundError:
            return None
        except ValueError as exc:
            raise MailError(f"delivery journal is damaged: {exc}", source=str(path)) from None
        return cls(**data)


# -- plan -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One thing the apply step will do for one outbox file.

    ``kind``: ``send`` (to ``recipients``), ``file`` (delivery finished, only the move to
    sent/ is left), ``duplicate`` (Message-ID already in sent/ or in an earlier outbox file,
    same bytes: drop this copy), ``conflict`` (the same with other content: left alone,
    reported), ``broken`` (cannot be sent: reason in ``note``).
    """

    kind: str
    name: str
    item: Outgoing | None = None
    journal: Journal | None = None
    recipients: tuple[str, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class Plan:
    """Everything :func:`deliver` will do, in order, and journals left without a message."""

    steps: tuple[Step, ...]
    stray_journals: tuple[str, ...] = ()

    @property
    def to_send(self) -> list[Step]:
        return [s for s in self.steps if s.kind == "send"]


def sent_index(sent_dir: Path) -> dict[str, str]:
    """Message-ID -> file name of every message in sent/."""
    index: dict[str, str] = {}
    if sent_dir.is_dir():
        for path in sorted(sent_dir.glob("*.eml")):
            mid = message_id_of(path)
            if mid:
                index.setdefault(mid, path.name)
    return index


def plan_delivery(campaign_dir: Path, *, sender: str | None = None) -> Plan:
    """Work out what sending the outbox of ``campaign_dir`` involves; touches nothing."""
    outbox = campaign_dir / "outbox"
    if not outbox.is_dir():
        raise MailError("has no outbox folder", source=str(campaign_dir))
    sent = sent_index(campaign_dir / "sent")
    journals = outbox / JOURNAL_DIR
    steps: list[Step] = []
    queued: dict[str, Outgoing] = {}  # Message-ID -> the first outbox file that carries it
    names = sorted(p.name for p in outbox.glob("*.eml") if not p.name.startswith("."))
    for name in names:
        raw = (outbox / name).read_bytes()
        try:
            item = parse_outgoing(name, raw, sender)
        except MailError as exc:
            steps.append(Step("broken", name, note=exc.message))
            continue
        journal = Journal.load(journals / f"{name}.json")
        if journal is not None and journal.message_id != item.message_id:
            # the file was replaced by another message after a run stopped: its journal is void
            journal = None
        if journal is not None and journal.done:
            steps.append(Step("file", name, item, journal))
            continue
        if item.message_id in sent:
            sent_name = sent[item.message_id]
            sent_raw = (campaign_dir / "sent" / sent_name).read_bytes()
            sent_date = BytesHeaderParser().parsebytes(sent_raw).get("Date", "")
            same = wire_bytes(raw, str(sent_date)) == sent_raw or raw == sent_raw
            kind = "duplicate" if same else "conflict"
            note = f"Message-ID {item.message_id} is already in sent/{sent_name}"
            steps.append(Step(kind, name, item, note=note))
            continue
        first = queued.setdefault(item.message_id, item)
        if first is not item:
            kind = "duplicate" if first.raw == item.raw else "conflict"
            note = f"Message-ID {item.message_id} is also in outbox/{first.name}"
            steps.append(Step(kind, name, item, note=note))
            continue
        if journal is None:
            journal = Journal(item.message_id, "")  # the Date is set when it is first sent
        steps.append(Step("send", name, item, journal, tuple(journal.remaining(item.recipients))))
    stray: tuple[str, ...] = ()
    if journals.is_dir():
        stray = tuple(
            sorted(p.name for p in journals.glob("*.json") if p.name[: -len(".json")] not in names)
        )
    return Plan(tuple(steps), stray)


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


# -- SMTP -------------------------------------------------------------------------------------


class Dropped(Exception):
    """The connection broke; reconnecting may help."""


def _tls_context(settings: ServerSettings) -> ssl.SSLContext:
    # Verification is never switched off; a private CA or self-signed server is trusted by
    # naming its certificate with --cafile / cafile:.
    return ssl.create_default_context(cafile=settings.cafile)


def smtp_connect(settings: ServerSettings) -> smtplib.SMTP:
    """Open, secure and log in; raise Dropped (try again) or MailError (give up)."""
    if not settings.host or not settings.port:
        raise MailError("no SMTP server: give --smtp HOST:PORT or smtp.host/port in mail.yaml")
    security = settings.effective_security(465)
    if settings.password and not settings.user:
        raise MailError("an SMTP password is set but no user (PBEM_SMTP_USER or smtp.user)")
    if settings.user and not settings.password:
        raise MailError(
            f"no SMTP password for {settings.user}: set PBEM_SMTP_PASSWORD or smtp.password "
            "in a mail.yaml only you can read"
        )
    if settings.user and security == "none" and not is_loopback(settings.host):
        raise MailError(
            f"refusing to send the SMTP password to {settings.host} unencrypted; "
            "use --security starttls or ssl"
        )
    try:
        return _open(settings, security)
    except ssl.SSLCertVerificationError as exc:
        raise MailError(
            f"the certificate of {settings.host} does not verify ({exc.verify_message}); "
            "if the server uses a private CA, name it with --cafile"
        ) from None
    except smtplib.SMTPNotSupportedError as exc:
        raise MailError(f"{settings.host}: {exc}") from None
    except smtplib.SMTPAuthenticationError as exc:
        raise MailError(f"{settings.host} refused the login of {settings.user}: "
                        f"{_reply(exc.smtp_code, exc.smtp_error)}") from None
    except (smtplib.SMTPServerDisconnected, smtplib.SMTPConnectError, OSError) as exc:
        raise Dropped(f"cannot connect to {settings.host}:{settings.port}: {exc}") from None


def _open(settings: ServerSettings, security: str) -> smtplib.SMTP:
    assert settings.host and settings.port
    if security == "ssl":
        conn: smtplib.SMTP = smtplib.SMTP_SSL(settings.host, settings.port,
                                              timeout=settings.timeout,
                                              context=_tls_context(settings))
    else:
        conn = smtplib.SMTP(settings.host, settings.port, timeout=settings.timeout)
    try:
        if security == "starttls":
            conn.ehlo()
            if not conn.has_extn("starttls"):
                raise MailError(f"{settings.host} does not offer STARTTLS; refusing to go on")
            conn.starttls(context=_tls_context(settings))
        conn.ehlo_or_helo_if_needed()
        if settings.user:
            conn.login(settings.user, settings.password or "")
        return conn
    except BaseException:
        conn.close()
        raise


def _reply(code: int, text: bytes | str) -> str:
    text = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    return f"{code} {' '.join(text.split())}"


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
                why = _reply(exc.smtp_code, exc.smtp_error)
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
                                f"{_reply(code, text)}")
            raise smtplib.SMTPResponseException(code, text)
        accepted: list[str] = []
        journal.deferred = {}
        for rcpt in remaining:
            code, text = conn.rcpt(rcpt)
            if code in (250, 251):
                accepted.append(rcpt)
            elif code >= 500:
                journal.refused[rcpt] = _reply(code, text)
            elif code == 421:
                raise smtplib.SMTPResponseException(code, text)
            else:
                journal.deferred[rcpt] = _reply(code, text)
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
            why = _reply(exc.smtp_code, exc.smtp_error)
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
            journal.delivered[rcpt] = _reply(code, text)
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


def describe_plan(plan: Plan) -> list[str]:
    """One line per step, for ``--dry-run``."""
    lines = []
    for step in plan.steps:
        if step.kind == "send":
            assert step.item is not None and step.journal is not None
            extra = " (resend: an earlier run was interrupted)" if step.journal.in_flight else ""
            lines.append(f"would send {step.name} {step.item.message_id} to "
                         f"{', '.join(step.recipients)}{extra}")
        elif step.kind == "file":
            lines.append(f"would move {step.name} to sent/ (already delivered)")
        elif step.kind == "duplicate":
            lines.append(f"would drop {step.name}: {step.note}")
        else:
            lines.append(f"would leave {step.name}: {step.note}")
    return lines
