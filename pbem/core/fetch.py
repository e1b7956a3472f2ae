"""Fetching a campaign's mail by IMAP into its inbox Maildir, neither losing nor duplicating.

For every message on the server that pbem has not stored yet, in UID order:

1. fetch it with ``BODY.PEEK[]`` (peeking leaves ``\\Seen`` alone), or, for a message over
   the size limit of intake, only its header, marked with the size;
2. store it: write ``inbox/tmp/NAME``, fsync, rename to ``inbox/new/NAME``, fsync the folder;
3. record its UID in ``inbox/.fetched.json`` (atomic write);
4. set ``\\Seen`` on the server.

``NAME`` is ``ARRIVED.KEY.pbem``: the time the server received the message (intake takes it as
the arrival time for deadlines) and a key derived from the account, the mailbox's UIDVALIDITY and
the UID, so a message has one name only. A crash after step 2 leaves a file whose name a rerun recognises (recorded, not
stored again); a crash after step 3 leaves a recorded but unflagged UID (flagged, not stored
again). ``\\Seen`` is a courtesy to a human reading the same mailbox, never the record: pbem
fetches every message it has not stored, read or not.

If the server's UIDVALIDITY changes (the mailbox was rebuilt), every UID is new again: the
messages that were on the server then are compared by content (SHA-256 of their bytes) with the
files in the inbox, and those already stored are not stored a second time. So are the messages
of a mailbox pbem has no record of yet (the first fetch, or the GM changed the port or host). A Message-ID alone
never decides: anyone can send a mail under the Message-ID a player will use. The record holds
only the UIDs still on the server, so it does not grow with the campaign.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import hashlib
import imaplib
import json
import os
import re
import ssl
import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field, replace
from email.parser import BytesHeaderParser
from pathlib import Path
from typing import Any

from pbem.core import atomic
from pbem.core.mailconfig import MailError, ServerSettings, is_loopback
from pbem.core.mailin import MAX_MAIL_BYTES, NOT_FETCHED

STATE_FILE = ".fetched.json"
LOCK_FILE = ".fetch.lock"

Say = Callable[[str], None]


# -- the record ---------------------------------------------------------------------------------


@dataclass
class Account:
    """What pbem stored from one mailbox of one account, under one UIDVALIDITY."""

    uidvalidity: int
    uids: list[int] = field(default_factory=list)
    # after a UIDVALIDITY change: the UIDs below this were on the server at the change and are
    # compared by content with the stored files (0: no such check pending)
    recheck_below: int = 0


@dataclass
class FetchState:
    """The content of ``inbox/.fetched.json``."""

    accounts: dict[str, Account] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> FetchState:
        try:
            data = json.loads(path.read_bytes())
        except FileNotFoundError:
            return cls()
        except ValueError as exc:
            raise MailError(f"the fetch record is damaged: {exc}", source=str(path)) from None
        # (a record of an earlier version also lists Message-IDs: no longer used, and dropped)
        accounts = {k: Account(int(v["uidvalidity"]), [int(u) for u in v["uids"]],
                               int(v.get("recheck_below", 0)))
                    for k, v in data.get("accounts", {}).items()}
        return cls(accounts)

    def save(self, path: Path) -> None:
        data = {
            "accounts": {k: {"uidvalidity": a.uidvalidity, "uids": sorted(set(a.uids)),
                             **({"recheck_below": a.recheck_below} if a.recheck_below else {})}
                         for k, a in sorted(self.accounts.items())},
        }
        atomic.write_bytes(path, (json.dumps(data, indent=1, sort_keys=True) + "\n").encode())


def account_key(settings: ServerSettings) -> str:
    """``user@host:port/mailbox``: the record of one mailbox."""
    return f"{settings.user}@{settings.host}:{settings.port}/{settings.mailbox}"


def message_key(key: str, uidvalidity: int, uid: int) -> str:
    """What identifies one message of one mailbox: the middle part of its Maildir name."""
    account = hashlib.sha256(key.encode()).hexdigest()[:12]
    return f"imap-{account}-{uidvalidity}-{uid}"


def maildir_name(key: str, uidvalidity: int, uid: int, arrived: int) -> str:
    """The Maildir file name of a message: ``ARRIVED.KEY.pbem`` (no ``:`` or ``/``).

    The name starts with the time the server received the message (INTERNALDATE), as Maildir
    names start with the delivery time: intake reads it as the arrival time, so orders that
    reached the server before the deadline are on time however late they are fetched.
    """
    return f"{arrived}.{message_key(key, uidvalidity, uid)}.pbem"


def stored_keys(inbox: Path) -> dict[str, Path]:
    """Message key -> file of every message pbem stored in ``new/`` or ``cur/`` (intake moves
    them to ``cur/``)."""
    keys: dict[str, Path] = {}
    for sub in ("new", "cur"):
        folder = inbox / sub
        if folder.is_dir():
            for entry in os.scandir(folder):
                parts = entry.name.split(":", 1)[0].split(".")
                if len(parts) == 3 and parts[1].startswith("imap-"):
                    keys[parts[1]] = Path(entry.path)
    return keys


def stored_contents(inbox: Path) -> set[str]:
    """SHA-256 of every file in ``new/`` and ``cur/``: what a rebuilt mailbox is compared with."""
    out: set[str] = set()
    for sub in ("new", "cur"):
        folder = inbox / sub
        if folder.is_dir():
            for entry in os.scandir(folder):
                if entry.is_file(follow_symlinks=False):
                    with open(entry.path, "rb") as handle:
                        out.add(hashlib.file_digest(handle, "sha256").hexdigest())
    return out


# -- plan ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FetchPlan:
    """``fetch``: UIDs to download and store; ``record``: already stored by a run that stopped
    before recording them; ``flag``: recorded but not yet ``\\Seen``; ``reset``: the mailbox
    has a new UIDVALIDITY, so the old record of it is void."""

    fetch: tuple[int, ...]
    record: tuple[int, ...]
    flag: tuple[int, ...]
    reset: bool


def plan_fetch(server_uids: list[int], unseen: list[int], account: Account | None,
               uidvalidity: int, names: Collection[str], key: str) -> FetchPlan:
    """Decide what to do with each message on the server; pure. ``names``: stored keys."""
    reset = account is not None and account.uidvalidity != uidvalidity
    known = set() if account is None or reset else set(account.uids)
    fetch, record = [], []
    for uid in sorted(server_uids):
        if uid in known:
            continue
        if message_key(key, uidvalidity, uid) in names:
            record.append(uid)
        else:
            fetch.append(uid)
    flag = sorted((set(unseen) & known) | set(record))
    return FetchPlan(tuple(fetch), tuple(record), tuple(flag), reset)


# -- IMAP ---------------------------------------------------------------------------------------


def _quote(mailbox: str) -> str:
    """A mailbox name as IMAP wants it: modified UTF-7 (RFC 3501 5.1.3), quoted."""
    name = mailbox_utf7(mailbox)
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def mailbox_utf7(name: str) -> str:
    """IMAP's modified UTF-7: printable ASCII as it is ('&' as '&-'), every other run as
    '&' + base64 of its UTF-16BE, with ',' for '/' and no padding, + '-' ("命令" -> "&VH1O5A-")."""
    out: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            b64 = base64.b64encode("".join(run).encode("utf-16-be")).decode("ascii")
            out.append("&" + b64.rstrip("=").replace("/", ",") + "-")
            run.clear()

    for ch in name:
        if 0x20 <= ord(ch) <= 0x7E:
            flush()
            out.append("&-" if ch == "&" else ch)
        else:
            run.append(ch)
    flush()
    return "".join(out)


def imap_connect(settings: ServerSettings) -> imaplib.IMAP4:
    """Open, secure and log in; raise MailError with a one-line reason."""
    if not settings.host:
        raise MailError("no IMAP server: set imap.host in mail.yaml")
    if not settings.user or not settings.password:
        raise MailError("no IMAP login: set imap.user and PBEM_IMAP_PASSWORD (or imap.password "
                        "in a mail.yaml only you can read)")
    security = settings.effective_security(993)
    port = settings.port or (993 if security == "ssl" else 143)
    if security == "none" and not is_loopback(settings.host):
        raise MailError(f"refusing to send the IMAP password to {settings.host} unencrypted; "
                        "set imap.security to ssl or starttls")
    context = ssl.create_default_context(cafile=settings.cafile)
    try:
        if security == "ssl":
            conn: imaplib.IMAP4 = imaplib.IMAP4_SSL(settings.host, port, ssl_context=context,
                                                    timeout=settings.timeout)
        else:
            conn = imaplib.IMAP4(settings.host, port, timeout=settings.timeout)
            if security == "starttls":
                conn.starttls(context)
        conn.login(settings.user, settings.password)
        return conn
    except ssl.SSLCertVerificationError as exc:
        raise MailError(f"the certificate of {settings.host} does not verify "
                        f"({exc.verify_message}); if the server uses a private CA, name it "
                        "with imap.cafile or --cafile") from None
    except imaplib.IMAP4.error as exc:
        raise MailError(f"{settings.host}: {exc}") from None
    except OSError as exc:
        raise MailError(f"cannot connect to {settings.host}:{port}: {exc}") from None


def _ok(result: tuple[str, list[Any]], what: str) -> list[Any]:
    typ, data = result
    if typ != "OK":
        raise MailError(f"the IMAP server refused {what}: {data!r}")
    return data


def _uids(data: list[object]) -> list[int]:
    return [int(x) for x in (data[0] or b"").split()] if data and isinstance(data[0], bytes) \
        else []


def _body(data: list[Any]) -> tuple[bytes, int]:
    """The message and its INTERNALDATE (seconds since the epoch) from a FETCH answer."""
    for part in data:
        if isinstance(part, tuple) and len(part) == 2:
            when = imaplib.Internaldate2tuple(part[0])
            # no INTERNALDATE is a broken server; the fetch time is the next best arrival time
            arrived = int(time.mktime(when)) if when else int(time.time())
            return bytes(part[1]), arrived
    raise MailError(f"the IMAP server sent no message body: {data!r}")


def _size(data: list[Any]) -> int:
    """RFC822.SIZE from a FETCH answer."""
    for part in data:
        head = part[0] if isinstance(part, tuple) else part
        m = re.search(rb"RFC822\.SIZE (\d+)", head) if isinstance(head, bytes) else None
        if m:
            return int(m.group(1))
    raise MailError(f"the IMAP server sent no message size: {data!r}")


def stand_in(header: bytes, size: int) -> bytes:
    """What is stored for a message over the size limit: its header, marked with the size, and
    no body. Memory and disk stay bounded, and intake refuses it to the sender with the size."""
    return header.rstrip(b"\r\n") + f"\r\n{NOT_FETCHED}: {size}\r\n\r\n".encode()


# -- apply --------------------------------------------------------------------------------------


@dataclass
class FetchOutcome:
    """What one run did: names stored in ``new/``, UIDs recovered, flagged, and skipped."""

    stored: list[str] = field(default_factory=list)
    recovered: list[int] = field(default_factory=list)
    flagged: list[int] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)


def ensure_maildir(inbox: Path) -> None:
    """Create ``inbox/{tmp,new,cur}`` if missing."""
    for sub in ("tmp", "new", "cur"):
        (inbox / sub).mkdir(parents=True, exist_ok=True)


def store_message(inbox: Path, name: str, raw: bytes) -> None:
    """Maildir delivery: tmp/, fsync, rename into new/, fsync new/."""
    tmp = inbox / "tmp" / name
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(raw)
        handle.flush()
        os.fsync(handle.fileno())
    os.rename(tmp, inbox / "new" / name)
    atomic.fsync_dir(inbox / "new")
    atomic.fsync_dir(inbox / "tmp")


@contextlib.contextmanager
def fetch_lock(inbox: Path) -> Iterator[None]:
    """One fetch per inbox at a time (a second one is told the holder's pid)."""
    fd = os.open(inbox / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            raise MailError(f"another pbem fetch (pid {holder}) is filling this inbox",
                            source=str(inbox)) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)


_MESSAGE_ID = re.compile(r"\s+")


def _message_id(raw: bytes) -> str | None:
    end = raw.find(b"\r\n\r\n")
    end = raw.find(b"\n\n") if end == -1 else end
    value = BytesHeaderParser().parsebytes(raw[: end if end != -1 else len(raw)]).get(
        "Message-ID")
    return _MESSAGE_ID.sub("", str(value)) if value else None


def fetch_mail(campaign_dir: Path, settings: ServerSettings, *, out: Say, err: Say) -> FetchOutcome:
    """Pull every message not yet stored from the campaign's mailbox into ``DIR/inbox``.

    ``out`` gets one line per stored message, ``err`` recoveries and warnings.
    """
    if settings.port is None:  # the default port goes into the record's account key too
        ssl_port = settings.effective_security(993) == "ssl"
        settings = replace(settings, port=993 if ssl_port else 143)
    inbox = campaign_dir / "inbox"
    ensure_maildir(inbox)
    outcome = FetchOutcome()
    with fetch_lock(inbox), atomic.scratch(campaign_dir):
        conn = imap_connect(settings)
        try:
            _run(conn, inbox, settings, outcome, out, err)
        finally:
            with contextlib.suppress(Exception):
                conn.logout()
    return outcome


def _run(conn: imaplib.IMAP4, inbox: Path, settings: ServerSettings, outcome: FetchOutcome,
         out: Say, err: Say) -> None:
    _ok(conn.select(_quote(settings.mailbox)), f"to open mailbox {settings.mailbox}")
    _, validity = conn.response("UIDVALIDITY")
    if not validity or not isinstance(validity[0], bytes):
        raise MailError(f"the IMAP server gave no UIDVALIDITY for {settings.mailbox}")
    uidvalidity = int(validity[0])
    state_path = inbox / STATE_FILE
    state = FetchState.load(state_path)
    key = account_key(settings)
    server_uids = _uids(_ok(conn.uid("SEARCH", "ALL"), "UID SEARCH"))
    unseen = _uids(_ok(conn.uid("SEARCH", "UNSEEN"), "UID SEARCH UNSEEN"))
    stored = stored_keys(inbox)
    plan = plan_fetch(server_uids, unseen, state.accounts.get(key), uidvalidity, stored, key)
    if plan.reset:
        err(f"{settings.mailbox}: UIDVALIDITY changed; messages already stored are recognised "
            "by their content")
    account = state.accounts.get(key)
    if account is None or plan.reset:
        # the messages on the server now may be ones already stored: under the old UIDVALIDITY,
        # or from this mailbox under another account key (the GM changed the port or security)
        recheck = max(server_uids) + 1 if server_uids else 0
        account = state.accounts[key] = Account(uidvalidity, recheck_below=recheck)
    # UIDs are never reused under one UIDVALIDITY: an expunged one can be forgotten
    on_server = set(server_uids)
    account.uids = [u for u in account.uids if u in on_server]
    contents: set[str] | None = None  # hashes of the stored files, read when first needed
    if plan.record:
        account.uids.extend(plan.record)
        outcome.recovered.extend(plan.record)
        err(f"{len(plan.record)} message(s) stored by an interrupted run; recorded, not stored "
            "again")
        state.save(state_path)
    to_flag = list(plan.flag)
    for uid in plan.fetch:
        size = _size(_ok(conn.uid("FETCH", str(uid), "(RFC822.SIZE)"), f"to size UID {uid}"))
        if size > MAX_MAIL_BYTES:
            head, arrived = _body(_ok(conn.uid("FETCH", str(uid), "(INTERNALDATE BODY.PEEK[HEADER])"),
                                      f"to send the header of UID {uid}"))
            raw = stand_in(head, size)
            err(f"UID {uid}: {size:,} bytes, over the limit of {MAX_MAIL_BYTES:,}; only its header "
                "is stored, and intake tells the sender why")
        else:
            raw, arrived = _body(_ok(conn.uid("FETCH", str(uid), "(INTERNALDATE BODY.PEEK[])"),
                                     f"to send UID {uid}"))
        mid = _message_id(raw)
        name = maildir_name(key, uidvalidity, uid, arrived)
        if uid < account.recheck_below and contents is None:
            contents = stored_contents(inbox)
        digest = hashlib.sha256(raw).hexdigest()
        if uid < account.recheck_below and contents is not None and digest in contents:
            outcome.duplicates.append(name)
            err(f"UID {uid}: {mid or '(no Message-ID)'} is in the inbox already, byte for byte; "
                "not stored again")
        else:
            store_message(inbox, name, raw)
            outcome.stored.append(name)
            if contents is not None:
                contents.add(digest)
        account.uids.append(uid)
        state.save(state_path)
        if name in outcome.stored:
            out(f"fetched new/{name} {mid or '(no Message-ID)'}")
        _ok(conn.uid("STORE", str(uid), "+FLAGS.SILENT", "(\\Seen)"), "to flag a message")
    for uid in to_flag:
        _ok(conn.uid("STORE", str(uid), "+FLAGS.SILENT", "(\\Seen)"), "to flag a message")
        outcome.flagged.append(uid)
    account.recheck_below = 0  # every message of before the change is stored or recognised now
    state.save(state_path)  # also records UIDs forgotten because they were expunged
