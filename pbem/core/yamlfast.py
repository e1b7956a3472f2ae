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


# a line: its indentation, a sequence's '- ', then a plain key (ASCII letters, digits, '_', '-'
# not first), its ':' and the text after ': ', or else the whole text
_LINE = re.compile(r"( *)(- )?(?:([A-Za-z0-9_][A-Za-z0-9_-]*):(?: (.+))?|(.*))\n")
_MISSING = object()
_words: dict[str, Any] = {}  # plain word -> its value (order files repeat powers, places, verbs)
_keys: set[str] = set()  # the keys found plain strings


def _plain(word: str) -> Any:
    """The value of a plain ``word`` as the loader builds it: a string, a whole number, a
    boolean or null; anything else raises :class:`_Unusual`."""
    value = _words.get(word, _MISSING)
    if value is not _MISSING:
        return value
    if not _WORD.fullmatch(word):
        raise _Unusual
    if word[0] not in _RESOLVED_FIRST:
        value = word
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
    try:
        data = _read(_LINE.findall(text), max_depth)
    except _Unusual:
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


def _read(lines: list[tuple[str, str, str, str, str]], max_depth: int) -> dict[str, Any]:
    root: dict[str, Any] = {}
    # the open blocks, innermost last: [column, container]
    stack: list[list[Any]] = [[0, root]]
    pending: tuple[dict[str, Any], str] | None = None  # a 'key:' whose block follows
    count = len(lines)
    at = 0
    while at < count:
        blank, dash, name, rest, other = lines[at]
        at += 1
        column = len(blank)
        if pending is not None:
            owner, key = pending
            pending = None
            if column < stack[-1][0] or (column == stack[-1][0] and not dash):
                raise _Unusual  # (an empty value: null, rare in order files)
            if len(stack) + 1 >= max_depth:
                raise _Unusual
            block: Any = [] if dash else {}
            owner[key] = block
            stack.append([column, block])
        else:
            while stack[-1][0] > column or (stack[-1][0] == column and not dash and type(stack[-1][1]) is list):
                stack.pop()
                if not stack:
                    raise _Unusual
            if stack[-1][0] != column:
                raise _Unusual
        out = stack[-1][1]
        if dash:
            if type(out) is not list:
                raise _Unusual
            if not name:
                if not other:
                    raise _Unusual
                value, at = _scalar(other, lines, at, column)
                out.append(value)
                continue
            if len(stack) + 1 >= max_depth:
                raise _Unusual
            item: dict[str, Any] = {}
            out.append(item)
            column += 2
            stack.append([column, item])
            out = item
        elif not name or type(out) is not dict:
            raise _Unusual
        if name not in _keys:
            if type(_plain(name)) is not str:
                raise _Unusual
            _keys.add(name)
        if name in out:
            raise _Unusual
        if rest:
            out[name], at = _scalar(rest, lines, at, column)
        else:
            pending = (out, name)
    if pending is not None:
        raise _Unusual
    return root


def _scalar(text: str, lines: list[tuple[str, str, str, str, str]], at: int, column: int) -> tuple[Any, int]:
    """A value written after 'key: ' or '- ' in a block at ``column``, and the index of the
    line after it."""
    head = text[0]
    if head == '"':
        found = _QUOTED.fullmatch(text)
        if found:
            return found.group(1), at
        return _continued(text, lines, at, column)
    if head == "'":
        found = _SINGLE.fullmatch(text)
        if not found:
            raise _Unusual
        return found.group(1), at
    return _plain(text), at


def _continued(text: str, lines: list[tuple[str, str, str, str, str]], at: int, column: int) -> tuple[str, int]:
    """A double-quoted word whose lines end in escaped line breaks (``"abc\\`` then, deeper
    than ``column``, ``def"``)."""
    if text[-1] != "\\" or not _PIECE.fullmatch(text, 1, len(text) - 1):
        raise _Unusual
    pieces = [text[1:-1]]
    while at < len(lines):
        blank, dash, name, _, rest = lines[at]
        at += 1
        end = rest[-1:]
        if dash or name or len(blank) <= column or end not in ("\\", '"') or not _PIECE.fullmatch(rest, 0, len(rest) - 1):
            raise _Unusual
        pieces.append(rest[:-1])
        if end == '"':
            return "".join(pieces), at
    raise _Unusual
