"""The common shapes of a mail read directly on its bytes, as the email package reads them.

An order mail is nearly always a text/plain body or a multipart of a few leaf parts (a text and
the attached file), in 7bit, 8bit, quoted-printable or base64, with plain header lines. The email
package's parser builds an object per header and per part and compiles a regular expression for
every boundary, which cost more than the rest of reading an order file. :func:`read` reads those
shapes here and gives what :func:`pbem.core.mailin.extract` asks of a mail: its header fields
(``get``), its parts in the order of ``walk()``, each part's type, file name, charset and
parameters, and its payload as stored and decoded, the same values the email package's compat32
parse gives (``tests/test_mailin_split.py`` compares them over the mail clients' corpus, the
hostile mails and their mutants). Anything else (a header line that is not a plain field, a
parameter in RFC 2231 form, quoted pairs or angle brackets, a message or digest part, a
delimiter line that is not plain) gives None, and the email package reads the mail.

Multipart bodies follow that parser's rules (RFC 2046): a delimiter line is ``--`` and the
boundary, ``--`` after it on the close line, then only spaces or tabs; the line break before a
delimiter belongs to it.
"""

from __future__ import annotations

import base64
import binascii
import email.message
import quopri
import re
from collections.abc import Iterator
from itertools import pairwise

MAX_PARTS = 1000
"""A mail of more parts is refused before it is read further: millions of empty parts in 25 MB
would otherwise cost a minute and gigabytes of memory."""
_MAX_DEPTH = 8


class TooManyParts(Exception):
    """The mail has more than :data:`MAX_PARTS` parts (found before the rest is read)."""


class _Unusual(Exception):
    """A shape left to the email package's parser."""


_BREAK = re.compile(rb"\r\n?|\n")
# a header field: its name (printable ASCII but the colon), its value and continuation lines
_FIELD_LF = re.compile(r"([\041-\071\073-\176]+):[ \t]*([^\r\n]*(?:\n[ \t][^\r\n]*)*)\n")
_FIELD_CRLF = re.compile(r"([\041-\071\073-\176]+):[ \t]*([^\r\n]*(?:\r\n[ \t][^\r\n]*)*)\r\n")
_UU = ("x-uuencode", "uuencode", "uue", "x-uue")


class Part:
    """One part of a mail (the mail itself is its first part): its header fields as
    ``email.message.Message`` gives them, its parameters, and for a leaf its payload."""

    __slots__ = ("fields", "_first", "_params", "_ctype", "_body", "_parts")

    def __init__(self, fields: list[tuple[str, str]], body: bytes, parts: list[Part] | None) -> None:
        self.fields = fields
        first = {name.lower(): value for name, value in reversed(fields)}  # (the first of a name wins)
        self._first = first
        ctype = first.get("content-type")
        self._params = {"content-type": _params(ctype), "content-disposition": _params(first.get("content-disposition"))}
        if ctype is None:
            self._ctype = "text/plain"  # (a digest's default, message/rfc822, is left to the parser)
        else:
            self._ctype = _type(ctype)
        self._body = body
        self._parts = parts

    # -- what Message gives -------------------------------------------------------------------

    def get(self, name: str, failobj: str | None = None) -> str | None:
        return self._first.get(name.lower(), failobj)

    def items(self) -> list[tuple[str, str]]:
        return list(self.fields)

    def is_multipart(self) -> bool:
        return self._parts is not None

    def walk(self) -> Iterator[Part]:
        yield self
        for part in self._parts or ():
            yield from part.walk()

    def get_content_type(self) -> str:
        return self._ctype

    def get_content_maintype(self) -> str:
        return self._ctype.partition("/")[0]

    def get_param(self, param: str, failobj: str | None = None, header: str = "content-type") -> str | None:
        return self._params[header].get(param.lower(), failobj)

    def get_filename(self, failobj: str | None = None) -> str | None:
        name = self.get_param("filename", None, "content-disposition")
        if name is None:
            name = self.get_param("name", None)
        return failobj if name is None else name.strip()

    def get_content_charset(self, failobj: str | None = None) -> str | None:
        charset = self.get_param("charset")
        return failobj if charset is None else charset.lower()

    def get_payload(self, decode: bool = False) -> str | bytes:
        """The payload as stored (text), or with its transfer encoding undone (bytes)."""
        body = self._body
        if not decode:
            if body.isascii():
                return body.decode("ascii")
            try:  # (what Message gives for a payload with 8-bit bytes)
                return body.decode(self.get_param("charset") or "ascii", "replace")
            except LookupError:
                return body.decode("ascii", "replace")
        cte = (self.get("content-transfer-encoding") or "").lower()
        if cte == "quoted-printable":
            return quopri.decodestring(body)
        if cte == "base64":
            joined = b"".join(body.splitlines())
            pad = len(joined) % 4
            try:  # what the email package's decode_b does first
                return base64.b64decode(joined + (b"==="[:4 - pad] if pad else b""), validate=True)
            except binascii.Error:
                return _by_email_package(cte, body)
        if cte in _UU:
            return _by_email_package(cte, body)
        return body


def _by_email_package(cte: str, body: bytes) -> bytes:
    """``body`` decoded by the email package (a base64 with stray characters, uuencode)."""
    msg = email.message.Message()
    msg["Content-Transfer-Encoding"] = cte
    msg.set_payload(body.decode("ascii", "surrogateescape"))
    data = msg.get_payload(decode=True)
    return data if isinstance(data, bytes) else b""


_NONE: dict[str, str] = {}
# the parameters and types of header values seen (mails repeat their parts' headers; the
# dictionaries are only read)
_SEEN_PARAMS: dict[str, dict[str, str]] = {}
_SEEN_TYPES: dict[str, str] = {}


def _type(value: str) -> str:
    """The content type of a Content-Type header's value, as ``get_content_type`` gives it."""
    found = _SEEN_TYPES.get(value)
    if found is None:
        ctype = value.partition(";")[0].strip().lower()
        found = ctype if ctype.count("/") == 1 else "text/plain"
        if len(_SEEN_TYPES) >= 512:
            _SEEN_TYPES.clear()
        _SEEN_TYPES[value] = found
    return found


def _params(value: str | None) -> dict[str, str]:
    """A header's parameters as ``Message.get_param`` reads them (the first of a name), for the
    plain forms only: ``name=value`` or ``name="value"``, no quoted pairs, no RFC 2231 names,
    no angle brackets (which the email package's unquoting strips)."""
    if value is None:
        return _NONE
    seen = _SEEN_PARAMS.get(value)
    if seen is not None:
        return seen
    if "\\" in value or "*" in value or "<" in value:
        raise _Unusual
    pieces = value.split(";")
    if "=" in pieces[0] or '"' in pieces[0]:
        raise _Unusual
    out = {pieces[0].strip().lower(): ""}  # (the type itself is the first "parameter")
    for piece in pieces[1:]:
        name, eq, val = piece.partition("=")
        name, val = name.strip().lower(), val.strip()
        if '"' in name:
            raise _Unusual
        if '"' in val:
            if len(val) < 2 or val[0] != '"' or val[-1] != '"' or '"' in val[1:-1]:
                raise _Unusual
            val = val[1:-1]
        out.setdefault(name, val if eq else "")
    if len(_SEEN_PARAMS) >= 512:
        _SEEN_PARAMS.clear()
    _SEEN_PARAMS[value] = out
    return out


def read(raw: bytes) -> Part | None:
    """The mail ``raw`` as the email package's compat32 parser reads it, or None for a shape
    left to that parser. Raises :class:`TooManyParts` for a mail of over :data:`MAX_PARTS`."""
    try:
        fields, body = _head(raw)
        mail = _part(fields, body, 0, [0])
    except _Unusual:
        return None
    return mail


def _head(raw: bytes) -> tuple[list[tuple[str, str]], bytes]:
    """The plain header fields of ``raw`` (each line a field name and a colon, or a
    continuation, then an empty line; ASCII only, every line break the same: CRLF, or LF), and
    the body after them."""
    first = raw.find(b"\n")
    if first <= 0 or raw[:1] in b"\r\n":
        raise _Unusual
    eol = b"\r\n" if raw[first - 1] == 13 else b"\n"
    blank = raw.find(eol + eol)
    if blank < 0:
        raise _Unusual
    block = raw[:blank + len(eol)]
    if not block.isascii():
        raise _Unusual
    head = block.decode("ascii")
    # split at its fields: [between, name, value, between, name, value, ..., after]. The block
    # is fields only (no other line break in it, so no empty line before the one found) when
    # nothing is between or after them: a field's continuation lines start with a blank and a
    # name never does, so the fields are found as a match of the whole block would take them
    pieces = (_FIELD_LF if eol == b"\n" else _FIELD_CRLF).split(head)
    if len(pieces) < 3 or any(pieces[0::3]):
        raise _Unusual
    # each field as the compat32 policy's header_source_parse reads it: the first line's value
    # without its leading blanks, its continuation lines, no last line break
    return list(zip(pieces[1::3], pieces[2::3], strict=True)), raw[blank + 2 * len(eol):]


def _part(fields: list[tuple[str, str]], body: bytes, depth: int, count: list[int]) -> Part:
    count[0] += 1
    if count[0] > MAX_PARTS:
        raise TooManyParts
    part = Part(fields, body, None)
    maintype = part.get_content_maintype()
    if maintype == "message":
        raise _Unusual
    if maintype != "multipart":
        return part
    boundary = part.get_param("boundary")
    if boundary is not None:
        boundary = boundary.rstrip()
    if depth >= _MAX_DEPTH or part.get_content_type() == "multipart/digest" or not boundary \
            or not boundary.isascii() or not boundary.isprintable():
        raise _Unusual
    parts = []
    for chunk in _split(body, b"--" + boundary.encode("ascii")):
        sub_fields, sub_body = _head(chunk)
        sub = _part(sub_fields, sub_body, depth + 1, count)
        if not sub.is_multipart():  # the parser strips a leaf's last line break (the delimiter's)
            sub._body = _strip_eol(sub._body)
        parts.append(sub)
    part._parts = parts
    return part


def _split(data: bytes, delimiter: bytes) -> list[bytes]:
    """The parts of a multipart body, between its delimiter lines."""
    starts: list[tuple[int, int]] = []  # each delimiter line: where it starts, where the next line does
    close = None
    at = data.find(delimiter)
    while at >= 0:
        if at == 0 or data[at - 1] in b"\r\n":  # at the start of a line
            found = _BREAK.search(data, at)
            end = len(data) if found is None else found.end()
            rest = data[at + len(delimiter):end].rstrip(b"\r\n")
            closing = rest.startswith(b"--")
            if (rest[2:] if closing else rest).strip(b" \t") == b"":
                if closing:
                    close = (at, end)
                    break
                starts.append((at, end))
                if len(starts) > MAX_PARTS:
                    raise TooManyParts
        at = data.find(delimiter, at + 1)
    if not starts or close is None:
        raise _Unusual
    bounds = [*starts, close]
    if any(nxt[0] == prev[1] for prev, nxt in pairwise(bounds)):  # two delimiter lines in a row
        raise _Unusual
    return [data[first:last] for (_, first), (last, _) in pairwise(bounds)]


def _strip_eol(line: bytes) -> bytes:
    """``line`` without its one last line break."""
    if line.endswith(b"\r\n"):
        return line[:-2]
    return line[:-1] if line.endswith((b"\n", b"\r")) else line
