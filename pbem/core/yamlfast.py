"""The common shape of an order file read directly, as the restricted loader reads it.

``pbem sign`` writes order files in one block style (:func:`pbem.core.envelope.format_document`):
nested mappings of plain keys, sequences of plain words or of mappings, plain words and whole
numbers, and long words (a hash, the signature) as double-quoted text continued over lines
with escaped line breaks. The restricted loader (:func:`pbem.common.safeyaml.load_document`)
builds plain data from libyaml's events, one Python call per event, which cost about as much as
the rest of checking the file. :func:`read` reads that style line by line and gives the same
data the loader gives (and, when asked, the loader's lines of its fields: only a file with a
problem asks); anything else (comments, empty lines, flow collections, block scalars, anchors,
tags, a key or word that is not plain, a number that is not a plain whole number, an empty
value, tabs, CR line ends, a key twice, deep nesting) gives None, and the loader reads the file (``tests/test_yamlfast.py`` compares
them on the order files of the tests and the examples, signed files of random orders and their
mutants).

Whatever reads a file, its signature is checked over the canonical form of the data read, and
audits read the stored file again with the loader: the two readers must agree exactly, so this
one takes only what it is sure of.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

from pbem.common.safeyaml import DEFAULT_MAX_DEPTH, Document, load_document

_STR = "tag:yaml.org,2002:str"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_resolver = Resolver()
_RESOLVED_FIRST = frozenset(Resolver.yaml_implicit_resolvers)

# a plain word as libyaml reads it in block context, conservatively: no indicator first, no
# ': ', ' #', quote, bracket, brace, tab or control character anywhere, no trailing space
_WORD = re.compile(r"[\w(/][\w .,()/+=~^$;-]*(?<! )")
_INT = re.compile(r"0|[1-9][0-9]{0,17}")
# one piece of a double-quoted word continued over lines: no blank, quote or backslash in it
_PIECE = re.compile(r"[A-Za-z0-9+/=:._-]*")
_QUOTED = re.compile(r'"([ !#-\[\]-~]*)"')  # one line, printable ASCII, no backslash or quote
_SINGLE = re.compile(r"'([ -&(-~]*)'")  # one line, printable ASCII, no quote


class _Unusual(Exception):
    """A shape left to the loader."""


_KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*")  # a plain key: ASCII letters, digits, '_', '-' not first
_MISSING = object()
_words: dict[str, Any] = {}  # plain word -> its value (order files repeat powers, places, verbs)
_keys: set[str] = set()  # the keys found plain strings


def _plain(word: str) -> Any:
    """The value of a plain ``word`` as the loader builds it: a string, a whole number, a
    boolean or null; anything else raises :class:`_Unusual`."""
    value = _words.get(word, _MISSING)
    if value is not _MISSING:
        return value
    # (a word of letters and digits alone is of _WORD's shape: \w is a letter, a digit or '_')
    if not (word.isalnum() or _WORD.fullmatch(word)):
        raise _Unusual
    return _resolved(word)


def _resolved(word: str) -> Any:
    """The value of ``word``, of :data:`_WORD`'s shape, as the loader builds it (remembered)."""
    if word[0] not in _RESOLVED_FIRST:
        value: Any = word
    elif _INT.fullmatch(word):
        value = int(word)
    elif word in ("true", "false", "null"):
        value = {"true": True, "false": False, "null": None}[word]
    elif _resolver.resolve(ScalarNode, word, (True, False)) in (_STR, _TIMESTAMP):
        value = word
    else:
        raise _Unusual
    if len(_words) >= 4096:
        _words.clear()
        _keys.clear()
    _words[word] = value
    return value


def read(text: str, source: str, max_depth: int = DEFAULT_MAX_DEPTH) -> Read | None:
    """The document ``text`` (decoded, checked for control characters: see
    :func:`~pbem.common.safeyaml.decode_text`) as the loader reads it, or None for a shape left
    to the loader. The lines of its fields are the loader's, found when first asked (a file
    that is accepted without a problem never asks)."""
    if "\r" in text or "\t" in text or text[-1:] != "\n" or text[:1] in ("", " ", "-", "#"):
        return None
    lines = text.split("\n")
    lines.pop()  # (the empty text after the last line end)
    try:
        data = _read(iter(lines), max_depth)
    except (_Unusual, IndexError):  # (an IndexError: an empty line or value)
        return None
    return Read(data, text, source, max_depth)


class Read:
    """A document read here: its data now, and the lines of its fields (as
    :class:`~pbem.common.safeyaml.Document` gives them) from the loader when first asked."""

    __slots__ = ("data", "_from", "_loaded")

    def __init__(self, data: Any, text: str, source: str, max_depth: int) -> None:
        self.data = data
        self._from = (text, source, max_depth)
        self._loaded: Document | None = None

    def _document(self) -> Document:
        if self._loaded is None:
            text, source, max_depth = self._from
            self._loaded = load_document(text, source, max_depth=max_depth)
        return self._loaded

    @property
    def lines(self) -> dict[str, int]:
        return self._document().lines

    def line_of(self, path: str) -> int | None:
        return self._document().line_of(path)


def _read(lines: Iterator[str], max_depth: int) -> dict[str, Any]:
    """The data of ``lines``. Each is its indentation, maybe a sequence's '- ', then a plain key,
    its ':' and the text after ': ' (or nothing: a block follows), or else (after '- ' only) a
    value; anything else raises :class:`_Unusual` (or IndexError)."""
    root: dict[str, Any] = {}
    stack: list[tuple[int, Any]] = []  # the blocks open around the innermost: (column, container)
    top, out = 0, root  # the innermost open block: its column and container
    pending = ""  # a 'key:' whose block follows
    for line in lines:
        if line[0] == " ":
            body = line.lstrip(" ")
            column = len(line) - len(body)
        else:
            body, column = line, 0
        dash = body[0] == "-"
        if dash:
            if body[1] != " ":
                raise _Unusual
            body = body[2:]
        if pending:
            if column < top or (column == top and not dash):
                raise _Unusual  # (an empty value: null, rare in order files)
            if len(stack) + 2 >= max_depth:
                raise _Unusual
            block: Any = [] if dash else {}
            out[pending] = block
            pending = ""
            stack.append((top, out))
            top, out = column, block
        elif column != top or (not dash and type(out) is list):
            while top > column or (top == column and not dash and type(out) is list):
                if not stack:
                    raise _Unusual
                top, out = stack.pop()
            if top != column:
                raise _Unusual
        name, colon, rest = body.partition(": ")
        if not colon:
            name = body[:-1] if body[-1] == ":" else ""  # 'key:', its block below
        if not name or (name not in _keys and not _key(name)):  # a value (after '- ' only)
            if not dash or type(out) is not list:
                raise _Unusual
            value = _words.get(body, _MISSING)
            out.append(_scalar(body, lines, column) if value is _MISSING else value)
            continue
        if dash:
            if type(out) is not list or len(stack) + 2 >= max_depth:
                raise _Unusual
            item: dict[str, Any] = {}
            out.append(item)
            stack.append((top, out))
            column += 2
            top, out = column, item
        # (else ``out`` is a mapping: a sequence at this column was closed above)
        if name in out:
            raise _Unusual
        if not colon:
            pending = name
            continue
        value = _words.get(rest, _MISSING)
        out[name] = _scalar(rest, lines, column) if value is _MISSING else value
    if pending:
        raise _Unusual
    return root


def _key(name: str) -> bool:
    """Whether ``name`` is a plain key (one that is not raises :class:`_Unusual`)."""
    if not _KEY.fullmatch(name):
        return False
    if type(_resolved(name)) is not str:
        raise _Unusual
    _keys.add(name)
    return True


def _scalar(text: str, lines: Iterator[str], column: int) -> Any:
    """A value written after 'key: ' or '- ' in a block at ``column`` (a double-quoted word
    continued over lines takes them from ``lines``)."""
    head = text[0]
    if head == '"':
        if text[-1] == "\\":
            return _continued(text, lines, column)
        found = _QUOTED.fullmatch(text)
        if not found:
            raise _Unusual
        return found.group(1)
    if head == "'":
        found = _SINGLE.fullmatch(text)
        if not found:
            raise _Unusual
        return found.group(1)
    return _plain(text)


def _continued(text: str, lines: Iterator[str], column: int) -> str:
    """A double-quoted word whose lines end in escaped line breaks (``"abc\\`` then, deeper
    than ``column``, ``def"``)."""
    pieces = [text[1:-1]]
    for line in lines:
        body = line.lstrip(" ")
        end = body[-1]
        if len(line) - len(body) <= column or (end != "\\" and end != '"'):
            raise _Unusual
        pieces.append(body[:-1])
        if end == '"':
            word = "".join(pieces)
            if not (word.isalnum() and word.isascii()) and not _PIECE.fullmatch(word):  # (a hash: letters and digits)
                raise _Unusual
            return word
    raise _Unusual
