"""The order document in a mail's text, read the way mail clients send it.

A player pastes a signed order file into a mail and the client reshapes it before it leaves:

- **format=flowed** (RFC 3676; Thunderbird's default, Apple Mail, mutt with ``text_flowed``):
  long lines are broken after a space that ends the line (a soft break), lines that start with a
  space, ``>`` or ``From`` get one more space (space-stuffing), and with ``DelSp=yes`` the space
  before a soft break is not part of the text (RFC 3676 §4.2, §4.4, §4.5). :func:`unflow` undoes it.
- **Hard wrapping** (Outlook at 76 columns, Gmail's plain-text mode, an editor with a text
  width): a long line is cut at its last space and the rest starts a new line at column 0. In an
  order file only the envelope's own fields (``pbem:``, ``campaign:`` … ``signature:``) start at
  column 0, so any other text there continues the line before it and is joined back with the
  space the client took away.
- **Quoting** (RFC 3676 §4.5, and the ``> `` every client puts before the text it replies to):
  quoted lines are someone else's text and are left out; a document that is itself quoted (a
  player resending orders from an earlier mail) is read at its own quote depth.
- **Text around it:** a greeting before ``pbem: 1``, a sign-off or an attribution line ("On …
  wrote:") after the signature block, a mail signature after ``-- `` (RFC 3676 §4.3).
- **HTML only** (some webmail and phone clients): :func:`html_text` turns the HTML into the text
  a reader sees (lines from ``<div>``, ``<p>`` and ``<br>``, ``&nbsp;`` as a space, quoted
  ``<blockquote>`` text marked as quoted).

Nothing here judges the document: it only finds the text; intake parses and verifies it.
"""

from __future__ import annotations

import base64
import binascii
import re
from html.parser import HTMLParser

from pbem.common.safeyaml import load_document
from pbem.errors import OrderFileError

FIELDS = ("pbem", "campaign", "nonce", "player", "phase", "seq", "entropy_reveal", "entropy_commit", "orders", "request", "signature")
_START = re.compile(r"^pbem[ \t]*:")
_FIELD = re.compile(r"^(?:" + "|".join(FIELDS) + r")[ \t]*:(?:[ \t]|$)")
_QUOTE = re.compile(r"^((?:> ?)*>) ?")
_SIG_DELIM = ("-- ", "--")


def unflow(text: str, delsp: bool = False) -> str:
    """Undo format=flowed (RFC 3676 §4): join soft-broken lines, remove space-stuffing; quoted
    lines keep their quote marks (one ``>`` per level, then a space)."""
    out: list[str] = []
    pending: tuple[int, str] | None = None  # a paragraph still open: its quote depth and text
    for raw in text.split("\n"):
        line = raw.rstrip("\r")
        depth = 0
        while depth < len(line) and line[depth] == ">":
            depth += 1
        line = line[depth:]
        if line.startswith(" "):  # space-stuffed (§4.4), or the space after the quote marks
            line = line[1:]
        flowed = line.endswith(" ") and line != "-- "
        if flowed and delsp:
            line = line[:-1]
        if pending is not None and pending[0] == depth:
            line = pending[1] + line
        elif pending is not None:  # a quote depth change ends a paragraph (§4.5)
            out.append(_quoted(*pending))
        pending = None
        if flowed:
            pending = (depth, line)
        else:
            out.append(_quoted(depth, line))
    if pending is not None:
        out.append(_quoted(*pending))
    return "\n".join(out)


def _quoted(depth: int, line: str) -> str:
    return ("> " * depth + line) if depth else line


class _HtmlText(HTMLParser):
    """The text of an HTML mail body as a reader sees it."""

    BLOCKS = frozenset({"address", "blockquote", "dd", "div", "dl", "dt", "h1", "h2", "h3", "h4", "h5", "h6",
                        "hr", "li", "ol", "p", "pre", "table", "tr", "ul", "body", "section", "article"})
    SKIP = frozenset({"head", "style", "script", "title"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.line = ""
        self.quote = 0
        self.pre = 0
        self.skip = 0

    def _end_line(self) -> None:
        self.lines.append(("> " * self.quote) + self.line if self.quote else self.line)
        self.line = ""

    def _block(self) -> None:
        if self.line:
            self._end_line()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIP:
            self.skip += 1
        elif tag == "br":
            self._end_line()
        elif tag in self.BLOCKS:
            self._block()
            if tag == "blockquote":
                self.quote += 1
            elif tag == "pre":
                self.pre += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br":
            self._end_line()
        elif tag in self.BLOCKS:
            self._block()

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag in self.BLOCKS:
            self._block()
            if tag == "blockquote":
                self.quote = max(0, self.quote - 1)
            elif tag == "pre":
                self.pre = max(0, self.pre - 1)

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.pre:
            parts = data.replace("\r\n", "\n").split("\n")
            for i, part in enumerate(parts):
                if i:
                    self._end_line()
                self.line += part.replace("\xa0", " ")
            return
        text = re.sub(r"[ \t\r\n\f]+", " ", data)
        if not self.line:
            text = text.lstrip(" ")
        self.line += text.replace("\xa0", " ")


def html_text(html: str) -> str:
    """The text of an HTML body, one line per line a reader sees."""
    parser = _HtmlText()
    parser.feed(html)
    parser.close()
    if parser.line:
        parser._end_line()
    return "\n".join(line.rstrip(" ") if not line.strip() else line for line in parser.lines)


def order_text(text: str) -> str | None:
    """The order document in a mail's text (already unflowed), or ``None`` when there is none."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    unquoted = [_unquote(line) for line in lines]
    start = next((i for i, (_, line) in enumerate(unquoted) if _START.match(line)), None)
    if start is None:
        return None
    depth = unquoted[start][0]
    doc: list[str] = []
    blanks = 0
    for d, line in unquoted[start:]:
        if d != depth:
            break
        line = _indent_spaces(line)
        if line in _SIG_DELIM or line.rstrip() in ("...", "---") and doc:
            break
        if not line.strip():
            blanks += 1
            continue
        if line[0] not in " \t#" and not _FIELD.match(line):
            # not a field of the envelope at column 0: the rest of a wrapped line, or the
            # player's own text after the document
            if blanks or not doc or _complete(doc):
                break
            doc[-1] = doc[-1].rstrip() + " " + line.strip()
            continue
        doc.extend([""] * blanks)
        blanks = 0
        doc.append(line)
    return "\n".join(doc) + "\n" if doc else None


def _unquote(line: str) -> tuple[int, str]:
    m = _QUOTE.match(line)
    if not m:
        return 0, line
    return m.group(1).count(">"), line[m.end():]


def _indent_spaces(line: str) -> str:
    """No-break spaces (from HTML, or a client's own) in a line's indentation become spaces."""
    stripped = line.lstrip(" \xa0")
    return " " * (len(line) - len(stripped)) + stripped


def _complete(doc: list[str]) -> bool:
    """Whether ``doc`` is already a whole signed document (so text after it is not part of it)."""
    try:
        data = load_document("\n".join(doc).encode("utf-8"), "mail body").data
    except OrderFileError:
        return False
    if not isinstance(data, dict):
        return False
    sig = data.get("signature")
    if not isinstance(sig, dict) or not isinstance(sig.get("key"), str) or not isinstance(sig.get("value"), str):
        return False
    try:
        return len(base64.b64decode(sig["value"], validate=True)) == 64
    except (binascii.Error, ValueError):
        return False
