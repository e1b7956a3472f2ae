"""Reading order documents out of what players send: bare YAML files, single mails (.eml), mbox
files and Maildir folders.

A mail may carry the order file as an attachment or inline in a text/plain body, in any
transfer encoding (7bit, quoted-printable, base64) and nested in any multipart structure.
Extraction never raises for a bad mail: it yields a :class:`Candidate` with a ``problem`` that
intake turns into a refusal a player understands.
"""

from __future__ import annotations

import email
import email.feedparser
import email.header
import email.message
import email.policy
import email.utils
import errno
import mailbox
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from pbem.common.canonical import sha256_hex
from pbem.common.safeyaml import DEFAULT_MAX_BYTES
from pbem.core import mailbody, mailfast
from pbem.core.envelope import parse_order_document
from pbem.core.mailfast import MAX_PARTS, TooManyParts
from pbem.errors import PbemError, echo

MAX_MAIL_BYTES = 25 * 1024 * 1024
# Written by ``pbem fetch`` into the header it stores in place of a message over the size limit.
NOT_FETCHED = "X-Pbem-Not-Fetched"


def too_large(size: int) -> str:
    """The refusal of a mail of ``size`` bytes, over :data:`MAX_MAIL_BYTES`."""
    return f"the mail is {size:,} bytes; pbem reads mails up to {MAX_MAIL_BYTES:,} bytes"


Mail = mailfast.Part | email.message.Message
"""A mail as read: directly (its common shapes), or by the email package."""


YAML_TYPES = {"text/yaml", "text/x-yaml", "application/yaml", "application/x-yaml"}
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


@dataclass
class Candidate:
    """One order document (or one refusal) found in a source."""

    source: str
    raw: bytes | None = None
    problem: str | None = None
    sender: str | None = None
    received: datetime | None = None
    message_id: str | None = None
    subject: str | None = None  # the mail's own subject and date, named in the reply
    sent: datetime | None = None

    @property
    def key(self) -> str:
        """A stable identity for logs and reply names."""
        return sha256_hex(self.source.encode() + b"\0" + (self.raw or b"") + (self.problem or "").encode())


@dataclass
class Source:
    """A mail or file read from a source, and what to do once it is processed."""

    name: str
    candidates: list[Candidate] = field(default_factory=list)
    maildir_file: Path | str | None = None
    taken: set[str] | None = None  # the names in cur/ without their info part (":2,...")

    def done(self) -> None:
        """Mark a Maildir message processed: move it from new/ to cur/ with the Seen flag.

        A name already in cur/ (whatever its flags) is never overwritten: the message gets the
        first free name ``NAME.1``, ``NAME.2``... instead."""
        if self.maildir_file is None:
            return
        # (one a mail: text work, neither pathlib nor os.path's joins and splits)
        new, _, name = os.fspath(self.maildir_file).rpartition(os.sep)
        if not name or new.rpartition(os.sep)[2] != "new":
            return
        cur = new[:-3] + "cur"  # (the Maildir's new/ and cur/ are side by side)
        taken = self.taken if self.taken is not None else _bare_names(cur)
        base = unique = name.split(":")[0]
        n = 0
        while unique in taken:
            n += 1
            unique = f"{base}.{n}"
        try:
            os.rename(f"{new}{os.sep}{name}", f"{cur}{os.sep}{unique}:2,S")
        except FileNotFoundError:  # already moved by an earlier, interrupted run
            return
        taken.add(unique)


def _bare_names(cur: Path | str) -> set[str]:
    """The names in a Maildir's cur/ without their info part (what a collision is about)."""
    return {name.split(":")[0] for name in os.listdir(cur)}


_KINDS = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISDIR, "a folder"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"))


def _not_regular(mode: int) -> str:
    kind = next((what for test, what in _KINDS if test(mode)), "something else")
    return f"it is {kind}, not a regular file; only regular files are read"


def read_regular(p: Path | str, limit: int, too_big: Callable[[int], str], listed: bool = False) -> tuple[bytes | None, str | None]:
    """The bytes of ``p`` if it is a regular file of at most ``limit`` bytes, else why not
    (``too_big(size)`` for a file over the limit).

    Opened without following a symbolic link and without blocking (a FIFO never stalls intake),
    and checked on the open file, so nothing can be swapped in between the check and the read.
    ``listed``: the folder's listing named ``p`` a regular file (its ``d_type``), which stands
    for the look before the open."""
    try:
        if not listed:
            mode = os.lstat(p).st_mode
            if not stat.S_ISREG(mode):  # no open at all of a device or FIFO
                return None, _not_regular(mode)
        fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return None, _not_regular(stat.S_IFLNK)
        return None, f"it cannot be read ({exc.strerror})"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, _not_regular(info.st_mode)
        data = _read_fd(fd, info.st_size + 1, limit + 1) if info.st_size <= limit else b""
        if info.st_size > limit or len(data) > limit:  # (a file that grew while being read)
            return None, too_big(max(info.st_size, len(data)))
        return data, None
    finally:
        os.close(fd)


def _read_fd(fd: int, first: int, most: int) -> bytes:
    """Up to ``most`` bytes of the regular file ``fd``, asking for ``first`` bytes first (plain
    reads: a file object costs more than a small mail). A read that gives less than asked
    is at the end of the file."""
    chunks = []
    total, want = 0, first
    while total < most:
        ask = min(want, most - total)
        chunk = os.read(fd, ask)
        chunks.append(chunk)
        total += len(chunk)
        if len(chunk) < ask:
            break
        want = 1 << 20
    return b"".join(chunks)


def read_sources(paths: list[str | Path], max_bytes: int = DEFAULT_MAX_BYTES) -> Iterator[Source]:
    """Every source named: .yaml/.yml files, .eml files, mbox files, Maildir folders."""
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            if (p / "new").is_dir() and (p / "cur").is_dir():
                yield from _maildir(p, max_bytes)
            else:
                for child in sorted(p.iterdir()):
                    if child.is_file() and not child.name.startswith("."):
                        yield from read_sources([child], max_bytes)
        elif not p.is_file():
            problem = _not_regular(p.lstat().st_mode) if p.exists() else "no such file or folder"
            yield Source(str(p), [Candidate(str(p), problem=problem)])
        elif p.suffix.lower() in (".yaml", ".yml"):
            yield _bare_file(p, max_bytes)
        elif _looks_like_mbox(p):
            yield from _mbox(p, max_bytes)
        else:
            yield _mail_file(p, p.name, max_bytes)


def _bare_file(p: Path, max_bytes: int) -> Source:
    size = p.stat().st_size
    if size > max_bytes:
        return Source(str(p), [Candidate(str(p), problem=f"the file is {size:,} bytes; the limit is {max_bytes:,} bytes")])
    return Source(str(p), [Candidate(p.name, raw=p.read_bytes())])


def _looks_like_mbox(p: Path) -> bool:
    with p.open("rb") as fh:
        return fh.read(5) == b"From "


def _mail_file(p: Path | str, name: str, max_bytes: int, received: datetime | None = None, listed: bool = False) -> Source:
    raw, problem = read_regular(p, MAX_MAIL_BYTES, too_large, listed)
    if raw is None:
        return Source(name, [Candidate(name, problem=problem)])
    return Source(name, _extract_bytes(raw, name, max_bytes, received))


_DIGITS = re.compile(r"(\d+)")


def delivery_order(name: str) -> list[tuple[int, str]]:
    """Sort key of Maildir file names. They start with the delivery time and carry unpadded
    counters (``1764590400.M99P1.host`` came before ``1764590400.M100P1.host``), so runs of digits
    compare as numbers: two mails of the same second are read in the order they came, and a
    player's seq 3 is not read before its seq 2 and the seq 2 refused as a replay."""
    key = []
    for i, run in enumerate(_DIGITS.split(name)):
        if i % 2:  # digits: by length without leading zeros, then by text (no int() of huge runs)
            digits = run.lstrip("0")
            key.append((len(digits), digits))
        else:
            key.append((0, run))
    return key


def _maildir(p: Path, max_bytes: int) -> Iterator[Source]:
    taken = _bare_names(p / "cur")
    new = os.path.join(p, "new")  # (a name a mail: text paths, not pathlib's)
    with os.scandir(new) as listing:
        regular = {entry.name: entry.is_file(follow_symlinks=False) for entry in listing}  # (d_type: no stat each)
    for name in sorted(regular, key=delivery_order):
        if name.startswith("."):
            continue
        f = new + os.sep + name
        source = _mail_file(f, f"{p.name}/new/{name}", max_bytes, _maildir_time(name), regular[name])
        source.maildir_file = f
        source.taken = taken
        yield source


def _maildir_time(name: str) -> datetime | None:
    head = name.split(".", 1)[0]
    if not head.isdigit():
        return None
    try:
        return datetime.fromtimestamp(int(head), UTC)
    except (OverflowError, ValueError, OSError):  # a hostile name such as 99999999999999999999.x
        return None


def _mbox(p: Path, max_bytes: int) -> Iterator[Source]:
    box = mailbox.mbox(p, create=False)
    try:
        for i, key in enumerate(box.keys()):
            raw = box.get_bytes(key)
            name = f"{p.name}#{i + 1}"
            if len(raw) > MAX_MAIL_BYTES:
                yield Source(name, [Candidate(name, problem=f"the mail is {len(raw):,} bytes; too large")])
                continue
            yield Source(name, _extract_bytes(raw, name, max_bytes, None))
    finally:
        box.close()


def _extract_bytes(raw: bytes, name: str, max_bytes: int, received: datetime | None) -> list[Candidate]:
    """Parse one mail and extract its candidates; a mail the email package chokes on (malformed
    headers raise from deep inside it) becomes one refusal instead of a traceback."""
    try:
        # compat32 parses headers lazily and plainly: the default policy's header objects cost
        # far more than the rest of intake, and extraction needs only types, names and payloads
        msg = _parse_capped(raw)
        return list(extract(msg, name, max_bytes, received))
    except TooManyParts:
        return [Candidate(name, problem=f"the mail has more than {MAX_PARTS:,} parts; pbem reads mails of up to {MAX_PARTS:,}")]
    except Exception as exc:  # noqa: BLE001 - a hostile mail must not stop intake
        return [Candidate(name, problem=f"the mail is malformed and cannot be read ({type(exc).__name__}); send it again as a plain mail")]


class _PartCounter:
    """The parser's factory of parts: counts them and stops the parse past :data:`MAX_PARTS`."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, policy: email.policy.Policy = email.policy.compat32) -> email.message.Message:
        self.count += 1
        if self.count > MAX_PARTS:
            raise TooManyParts
        return email.message.Message(policy)


def _parse_capped(raw: bytes) -> mailfast.Part | email.message.Message:
    """Read a mail: the common shapes directly (:mod:`pbem.core.mailfast`), anything else with
    the email package's compat32 parser, which gives up as soon as the mail has too many parts
    (before the rest is read: the cost stays that of MAX_PARTS parts)."""
    return mailfast.read(raw) or _feed(raw, _PartCounter())


def _feed(raw: bytes, counter: _PartCounter) -> email.message.Message:
    """The email package's compat32 parse of ``raw``, chunk by chunk, its parts counted."""
    before = counter.count
    parser = email.feedparser.BytesFeedParser(counter, policy=email.policy.compat32)
    counter.count = before  # the parser calls the factory once to learn its signature
    for start in range(0, len(raw), 64 * 1024):
        parser.feed(raw[start:start + 64 * 1024])
    return parser.close()


def _decoded(part: Mail) -> bytes:
    """A leaf part's payload with its transfer encoding undone (b"" if there is none)."""
    data = part.get_payload(decode=True)
    return data if isinstance(data, bytes) else b""


def _header(msg: Mail, name: str) -> str:
    """A header's text, or '' when it cannot be parsed."""
    try:
        value = str(msg.get(name, ""))
    except Exception:  # noqa: BLE001 - e.g. HeaderParseError on a hostile Message-ID
        return ""
    if value.isascii():
        return value
    # raw 8-bit bytes in a header arrive as surrogate escapes: keep them printable
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _filename(part: Mail) -> str | None:
    """The attachment's file name, with RFC 2047 encoded words (=?utf-8?b?...?=) decoded."""
    try:
        name = part.get_filename()
        if name and "=?" in name:
            name = str(email.header.make_header(email.header.decode_header(name)))
    except Exception:  # noqa: BLE001 - a hostile parameter must not stop intake
        return None
    if name is None:
        return None
    name = str(name).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    # the name is printed in intake's one-line verdicts: no line breaks, terminal escapes or
    # bidi controls, and not longer than any other echoed value
    return echo(_UNPRINTABLE.sub("?", name))


# "addr@host" or "Plain Name <addr@host>", whose address parseaddr gives as it is, read directly
# (parseaddr's tokenizer costs some 20 microseconds a mail; tests/test_mailin_split.py compares)
_PLAIN_FROM = re.compile(r"(?:(?P<name>[A-Za-z0-9]+(?: [A-Za-z0-9]+)*) <)?(?P<addr>[A-Za-z0-9_+-]+(?:\.[A-Za-z0-9_+-]+)*"
                         r"@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)(?(name)>)")


def _sender(msg: Mail) -> str | None:
    try:
        text = _header(msg, "From")
        plain = _PLAIN_FROM.fullmatch(text)
        addr = plain.group("addr") if plain else email.utils.parseaddr(text)[1]
    except Exception:  # noqa: BLE001 - a hostile header must not stop intake
        return None
    return addr.lower() or None


def _subject(msg: Mail) -> str | None:
    """The Subject with RFC 2047 encoded words decoded."""
    text = _header(msg, "Subject")
    try:
        text = str(email.header.make_header(email.header.decode_header(text))) if "=?" in text else text
    except Exception:  # noqa: BLE001 - a hostile encoded word must not stop intake
        pass
    return " ".join(text.split()) or None


def _sent(msg: Mail) -> datetime | None:
    """The Date header as an aware time, or None."""
    text = _header(msg, "Date")
    if not text:
        return None
    try:
        usual = _USUAL_DATE.fullmatch(text)
        when = _usual_date(usual) if usual else email.utils.parsedate_to_datetime(text)
    except Exception:  # noqa: BLE001 - hostile
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


# The Date as mail clients write it (RFC 5322 3.3: "Tue, 1 Dec 2026 12:00:00 +0100"), read
# directly: parsedate_to_datetime's tokenizer costs some 10 microseconds a mail, and it gives the
# same time (tests/test_mailin_split.py compares)
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_USUAL_DATE = re.compile(r"(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), )?([0-9]{1,2}) (" + "|".join(_MONTHS) + r") ([1-9][0-9]{3}) "
                         r"([0-9]{2}):([0-9]{2}):([0-9]{2}) ([+-])([0-9]{2})([0-9]{2})")


def _usual_date(found: re.Match[str]) -> datetime:
    day, month, year, hour, minute, second, sign, tz_hours, tz_minutes = found.groups()
    when = datetime(int(year), _MONTHS.index(month) + 1, int(day), int(hour), int(minute), int(second))
    offset = int(tz_hours) * 3600 + int(tz_minutes) * 60
    if sign == "-":
        if not offset:  # "-0000": a time whose zone is unknown (RFC 5322 3.3), read as UTC
            return when
        offset = -offset
    zone = _ZONES.get(offset)
    if zone is None:
        zone = _ZONES[offset] = timezone(timedelta(seconds=offset))  # (a ValueError past a day: no time)
    return when.replace(tzinfo=zone)


_ZONES: dict[int, timezone] = {}  # the zones of the dates read, by offset (players' clients use few)


def extract(msg: Mail, name: str, max_bytes: int, received: datetime | None) -> Iterator[Candidate]:
    """The order documents in one mail, or one Candidate saying why there are none."""
    sender = _sender(msg)
    mid = _header(msg, "Message-ID").strip() or None
    subject, sent = _subject(msg), _sent(msg)

    def cand(label: str, raw: bytes | None = None, problem: str | None = None) -> Candidate:
        return Candidate(label, raw, problem, sender, received, mid, subject, sent)

    not_fetched = _header(msg, NOT_FETCHED).strip()
    if not_fetched.isdigit():  # pbem fetch kept only the header of a mail over the limit
        yield cand(name, problem=too_large(int(not_fetched)))
        return
    found = 0
    bodies: dict[str, list[bytes]] = {"text/plain": [], "text/html": []}
    parts: Iterator[Mail] = msg.walk()
    for index, part in enumerate(parts):
        if part.is_multipart():
            continue
        ctype = part.get_content_type()
        filename = _filename(part)
        label = f"{name} ({filename})" if filename else f"{name} (part {index})"
        is_yaml = ctype in YAML_TYPES or bool(filename and filename.lower().endswith((".yaml", ".yml")))
        if is_yaml:
            found += 1
            encoded = part.get_payload(decode=False)
            if isinstance(encoded, str) and len(encoded) > 2 * max_bytes:
                yield cand(label, problem=f"the attachment is far over the limit of {max_bytes:,} bytes")
                continue
            data = _decoded(part)
            if not data:
                yield cand(label, problem="the attachment is empty (0 bytes); attach the signed order file")
            elif len(data) > max_bytes:
                yield cand(label, problem=f"the attachment is {len(data):,} bytes; the limit is {max_bytes:,} bytes")
            else:
                yield cand(label, data)
        elif ctype in ("text/plain", "text/html") and not filename:
            body = _body_document(part, ctype)
            if body is not None:
                bodies[ctype].append(body)
    chosen = _best_bodies(bodies, name)
    found += len(chosen)
    for body in chosen:
        if len(body) > max_bytes:
            yield cand(f"{name} (mail body)", problem=f"the order text is {len(body):,} bytes; the limit is {max_bytes:,} bytes")
        else:
            yield cand(f"{name} (mail body)", body)
    if not found:
        yield cand(name, problem="no order file found in the mail; attach the signed .yaml file made by 'pbem sign'")


def _body_document(part: Mail, ctype: str) -> bytes | None:
    """The order document in a text/plain or text/html body, as UTF-8 (see :mod:`mailbody`)."""
    data = _decoded(part)
    if b"pbem" not in data:
        return None
    charset = part.get_content_charset() or "utf-8"
    try:
        text = data.decode(charset)
    except (LookupError, UnicodeDecodeError):  # an unknown or wrong charset: read it as UTF-8
        text = data.decode("utf-8", "surrogateescape")
    if ctype == "text/html":
        text = mailbody.html_text(text)
    elif _param(part, "format") == "flowed":
        text = mailbody.unflow(text, delsp=_param(part, "delsp") == "yes")
    doc = mailbody.order_text(text)
    return None if doc is None else doc.encode("utf-8", "surrogateescape")


def _param(part: Mail, name: str) -> str:
    """A Content-Type parameter, lowercased ('' when absent)."""
    value = part.get_param(name, "", header="content-type")
    return (email.utils.collapse_rfc2231_value(value) if isinstance(value, tuple) else str(value)).lower()


def _best_bodies(bodies: dict[str, list[bytes]], name: str) -> list[bytes]:
    """The documents of the text/plain bodies, unless none of them reads and an HTML body (the
    other side of a multipart/alternative) does: a client may have wrapped the plain text
    beyond repair while its HTML kept every line."""
    plain, html = bodies["text/plain"], bodies["text/html"]
    if not plain:
        return html[:1]
    if html and not any(_reads(b, name) for b in plain):
        return [b for b in html if _reads(b, name)][:1] or plain
    return plain


def _reads(doc: bytes, name: str) -> bool:
    """Whether ``doc`` parses as an order file (its signature is checked later, by intake)."""
    try:
        parse_order_document(doc, name)
    except PbemError:
        return False
    return True
