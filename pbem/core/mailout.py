"""Report mails as bytes, written directly.

A report mail is ``multipart/alternative`` (text, HTML) inside ``multipart/mixed`` with the
attachments; the HTML with its ``related`` parts (the map images it cites by ``cid:``) in a
``multipart/related`` (RFC 2387). The boundaries are hashes of the content, so the same report
gives the same bytes; there is no ``Date`` (``pbem send`` adds it).

:func:`report_mail` writes the MIME text itself with the C encoders of :mod:`binascii`: the
email package's quoted-printable encoder is pure Python, and flattening a message line by line
cost most of the time of publishing a phase's mails. The headers are folded by the email
package's own SMTP policy, as it would write them. Anything it does not expect (a file name
that would need encoding, a kind of part it does not know) is built by the email package
instead (:func:`email_package_mail`), which is also what the tests compare it with: both give
the same parts once parsed.
"""

from __future__ import annotations

import binascii
import email.policy
import hashlib
import re
from collections.abc import Sequence
from email.message import EmailMessage
from functools import lru_cache

Attachment = tuple[bytes, str, str, str]  # data, maintype, subtype, file name
Related = tuple[bytes, str, str, str, str]  # data, maintype, subtype, file name, Content-ID

_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,60}")
_SAFE_TYPE = re.compile(r"[a-z0-9][a-z0-9.+-]{0,40}")
_CID = re.compile(r"[A-Za-z0-9._@-]{1,100}")
_POLICY = email.policy.SMTP


def report_mail(*, sender: str, to: str, subject: str, mid: str, text: str, html: str,
                attachments: Sequence[Attachment], related: Sequence[Related] = ()) -> bytes:
    """The bytes of a report mail (see the module's text)."""
    kinds = [(a[1], a[2], a[3]) for a in attachments] + [(r[1], r[2], r[3]) for r in related]
    if not all(_SAFE_TYPE.fullmatch(m) and _SAFE_TYPE.fullmatch(s) and _SAFE_NAME.fullmatch(n) for m, s, n in kinds) \
            or not all(_CID.fullmatch(r[4]) for r in related):
        return email_package_mail(sender=sender, to=to, subject=subject, mid=mid, text=text, html=html,
                                  attachments=attachments, related=related).as_bytes(policy=_POLICY)
    text_data, html_data = text.encode("utf-8"), html.encode("utf-8")  # each encoded once
    digest = _boundary_digest(text_data, html_data, attachments, related)
    boundaries = iter(f"=_pbem_{digest}_{n}" for n in range(4))
    top = next(boundaries)
    alternative = next(boundaries) if attachments else top
    text_part = _text_part("plain", text_data, _cte(text, text_data))
    html_part = _text_part("html", html_data, _cte(html, html_data, line_limit=0), version=not related)
    if related:
        inner = next(boundaries)
        images = [_part(_type(m, s), _base64(data), "base64", f"inline; filename=\"{name}\"", cid=cid)
                  for data, m, s, name, cid in related]
        html_part = _multipart("related", inner, [html_part, *images], version=True)
    body = _multipart("alternative", alternative, [text_part, html_part], version=False)
    if attachments:
        parts = [body]
        for data, maintype, subtype, name in attachments:
            disposition = f"attachment; filename=\"{name}\""
            if maintype == "text":
                parts.append(_text_part(subtype, data, _cte(data.decode("utf-8"), data), disposition=disposition, version=True))
            elif _seven_bit(data):  # JSON, for one: as it is
                parts.append(_part(_type(maintype, subtype), _lines(data), "7bit", disposition))
            else:
                parts.append(_part(_type(maintype, subtype), _base64(data), "base64", disposition))
        body = _multipart("mixed", top, parts, version=False)
    head = "".join(_header(name, value) for name, value in (
        ("From", sender), ("To", to), ("Subject", subject), ("Message-ID", mid),
        ("Auto-Submitted", "auto-generated"), ("MIME-Version", "1.0")))
    body[0] = head.encode("ascii") + body[0]
    return b"".join(body)  # the mail's pieces copied once (a map image's base 64 is large)


def email_package_mail(*, sender: str, to: str, subject: str, mid: str, text: str, html: str,
                       attachments: Sequence[Attachment], related: Sequence[Related] = ()) -> EmailMessage:
    """The same mail built by the email package (slower; for what :func:`report_mail` does not
    expect)."""
    msg = EmailMessage(policy=_POLICY)
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Message-ID"] = mid
    msg["Auto-Submitted"] = "auto-generated"
    msg["MIME-Version"] = "1.0"
    msg.set_content(text, cte=text_cte(text))
    msg.add_alternative(html, subtype="html", cte=text_cte(html, line_limit=0))
    if related:
        html_part = next(p for p in msg.walk() if p.get_content_type() == "text/html")
        for data, maintype, subtype, filename, cid in related:
            html_part.add_related(data, maintype=maintype, subtype=subtype, cid=f"<{cid}>", filename=filename,
                                  disposition="inline")
    for data, maintype, subtype, filename in attachments:
        if maintype == "text":
            body = data.decode("utf-8")
            msg.add_attachment(body, subtype=subtype, filename=filename, cte=text_cte(body))
        elif _seven_bit(data):  # JSON, for one: as it is
            msg.add_attachment(data, maintype=maintype, subtype=subtype, filename=filename, cte="7bit")
        else:
            msg.add_attachment(data, maintype=maintype, subtype=subtype, filename=filename)
    digest = _boundary_digest(text, html, attachments, related)
    n = 0
    for part in msg.walk():
        if part.is_multipart():
            part.set_boundary(f"=_pbem_{digest}_{n}")
            n += 1
    return msg


def text_cte(body: str, line_limit: int = 990) -> str:
    """The lighter transfer encoding of a text part: 7bit for ASCII lines under ``line_limit``
    (0: never), else quoted-printable or base64, whichever is smaller (Chinese text is three
    bytes a character, each three characters in quoted-printable)."""
    if line_limit and _seven_bit(body, line_limit):
        return "7bit"
    return _cte(body, body.encode("utf-8"), 0)


def _cte(body: str, data: bytes, line_limit: int = 990) -> str:
    """:func:`text_cte` of ``body``, whose UTF-8 ``data`` the caller has."""
    if line_limit and _seven_bit(body, line_limit):
        return "7bit"
    escaped = len(data) - len(data.translate(None, _ESCAPED))
    return "quoted-printable" if len(data) + 2 * escaped < len(data) * 4 // 3 else "base64"


def _seven_bit(body: str | bytes, line_limit: int = 990) -> bool:
    """Whether ``body`` travels as it is: ASCII, every line shorter than ``line_limit``.

    A line as long as the limit would hold a whole stretch of half its length that starts at
    a multiple of that half; when each such stretch holds a line feed (an order page's 115 KB:
    some 230 searches) no line is, and its lines need not be cut out one by one."""
    if not body.isascii() or line_limit <= 0:
        return False
    half = (line_limit + 1) // 2
    starts = range(0, len(body) - half + 1, half)
    if isinstance(body, str):
        fed = all(body.find("\n", i, i + half) >= 0 for i in starts)
    else:
        fed = all(body.find(b"\n", i, i + half) >= 0 for i in starts)
    if fed:
        return True
    return max(map(len, body.splitlines()), default=0) < line_limit


_ESCAPED = bytes([61, *range(127, 256)])  # the bytes quoted-printable writes as =XX (and more)


def _header(name: str, value: str) -> str:
    """A header line as the email package's SMTP policy folds it. A Message-ID of the plain
    kind pbem makes (one line: every seat's mail has its own) is written out as the policy
    writes it; the rest is folded by the policy, kept (the same sender, seats and subjects
    come back in many mails)."""
    if name == "Message-ID" and len(value) <= 78 - len("Message-ID: ") and _PLAIN_ID.fullmatch(value):
        return f"Message-ID: {value}\r\n"
    return _folded(name, value)


_PLAIN_ID = re.compile(r"<[A-Za-z0-9._+-]+@[A-Za-z0-9._-]+>")


@lru_cache(maxsize=256)
def _folded(name: str, value: str) -> str:
    return str(_POLICY.header_factory(name, value).fold(policy=_POLICY))


def _boundary_digest(text: str | bytes, html: str | bytes, attachments: Sequence[Attachment],
                     related: Sequence[Related]) -> str:
    """The hash the boundaries carry: of the text and HTML (as UTF-8), then every part's bytes."""
    digest = hashlib.sha256(text.encode("utf-8") if isinstance(text, str) else text)
    for data in [html.encode("utf-8") if isinstance(html, str) else html, *(a[0] for a in attachments),
                 *(r[0] for r in related)]:
        digest.update(data)
    return digest.hexdigest()[:32]


def _type(maintype: str, subtype: str) -> str:
    return f"{maintype}/{subtype}"


def _text_part(subtype: str, text: bytes, cte: str, disposition: str | None = None, version: bool = False) -> list[bytes]:
    """A text part (UTF-8 ``text``) as the email package's ``set_content`` writes it: lines
    split as ``bytes.splitlines`` splits them, each ended by CRLF."""
    data = _crlf_lines(text)
    if cte == "base64":
        body = _base64(data)
    elif cte == "quoted-printable":
        # every line of data ends CRLF (no lone CR or LF): b2a_qp then ends every line of its
        # own, soft breaks too, with CRLF, as _lines would write them
        body = binascii.b2a_qp(data, quotetabs=False, istext=True, header=False)
    else:
        body = data
    return _part(f'text/{subtype}; charset="utf-8"', body, cte, disposition, version=version)


def _crlf_lines(data: bytes) -> bytes:
    """Every line of ``data`` ended by CRLF, the last one too."""
    if b"\r" in data:
        return b"\r\n".join(data.splitlines()) + b"\r\n"
    data = data.replace(b"\n", b"\r\n")  # one pass where the lines end with LF alone
    return data if data.endswith(b"\r\n") else data + b"\r\n"


def _part(content_type: str, body: bytes, cte: str, disposition: str | None = None, *, cid: str | None = None,
          version: bool = True) -> list[bytes]:
    """A part's pieces: its headers and blank line, then its body (not copied here)."""
    head = f"Content-Type: {content_type}\r\nContent-Transfer-Encoding: {cte}\r\n"
    if disposition is not None:
        head += f"Content-Disposition: {_fold_params(disposition)}\r\n"
    if cid is not None:
        head += f"Content-ID: <{cid}>\r\n"
    if version:
        head += "MIME-Version: 1.0\r\n"
    return [head.encode("ascii") + b"\r\n", body]


def _fold_params(value: str) -> str:
    """``attachment; filename="..."`` folded before its parameter when the line is long, as
    the email package folds it."""
    kind, _, params = value.partition("; ")
    return value if len("Content-Disposition: ") + len(value) <= 78 else f"{kind};\r\n {params}"


def _multipart(subtype: str, boundary: str, parts: Sequence[list[bytes]], *, version: bool) -> list[bytes]:
    """A multipart's pieces: its headers (the top one's follow the mail's), a blank line, each
    part after a delimiter line, the close line. The CRLF before a delimiter belongs to it."""
    lines = [b"MIME-Version: 1.0\r\n"] if version else []
    lines.append(f'Content-Type: multipart/{subtype};\r\n boundary="{boundary}"\r\n\r\n'.encode("ascii"))
    delimiter = f"--{boundary}\r\n".encode("ascii")
    for i, part in enumerate(parts):
        lines.append(delimiter if i == 0 else b"\r\n" + delimiter)
        lines += part
    lines.append(f"\r\n--{boundary}--\r\n".encode("ascii"))
    return lines


@lru_cache(maxsize=8)
def _base64(data: bytes) -> bytes:
    """Base64 in lines of 76 characters, each ended by CRLF (kept for the next mail: a phase's
    map images go to every seat of a language)."""
    text = binascii.b2a_base64(data, newline=False)
    return b"\r\n".join(_BASE64_LINE.findall(text)) + b"\r\n" if text else b""  # (no Python loop a line)


_BASE64_LINE = re.compile(rb".{1,76}", re.DOTALL)


_LINE_END = re.compile(rb"\r\n|\r|\n")  # where bytes.splitlines splits


def _lines(data: bytes) -> bytes:
    """``data`` with its line ends written CRLF (a last line without one stays without)."""
    if b"\r" not in data:
        return data.replace(b"\n", b"\r\n")
    if data.count(b"\r\n") == data.count(b"\r") == data.count(b"\n"):  # so already
        return data
    return _LINE_END.sub(b"\r\n", data)
