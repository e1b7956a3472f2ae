"""The one YAML loader for everything that comes from outside.

Order files arrive from strangers by mail, so the loader accepts only plain data: mappings with
string keys, sequences and scalars. It refuses tags (``!!python/object`` and friends), anchors and
aliases (so no "billion laughs"), duplicate keys, non-UTF-8 text, documents over a size limit and
nesting over a depth limit. Timestamps stay strings. Every refusal is a single line naming the
file, the line and, where known, the field.

The C parser (libyaml) is used where PyYAML was built with it; objects are built here from the
parser's event stream, which is what lets us see anchors and tags before anything is constructed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml import events as ev
from yaml.constructor import SafeConstructor
from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

from pbem.errors import OrderFileError, echo

try:  # pragma: no cover - depends on how PyYAML was built
    from yaml._yaml import CParser as _Parser
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as _Parser  # type: ignore[assignment]

DEFAULT_MAX_BYTES = 64 * 1024
MAX_INT = 2**63
DEFAULT_MAX_DEPTH = 20

_STR = "tag:yaml.org,2002:str"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_resolver = Resolver()
_constructor = SafeConstructor()
_SCALAR_BUILDERS = {
    "tag:yaml.org,2002:null": _constructor.construct_yaml_null,
    "tag:yaml.org,2002:bool": _constructor.construct_yaml_bool,
    "tag:yaml.org,2002:int": _constructor.construct_yaml_int,
    "tag:yaml.org,2002:float": _constructor.construct_yaml_float,
}
# the first characters of the plain scalars the resolver may make something other than a string
# (it looks a scalar up by its first character; it has no resolvers for any character)
assert None not in Resolver.yaml_implicit_resolvers and not Resolver.yaml_path_resolvers
_RESOLVED_FIRST = frozenset(Resolver.yaml_implicit_resolvers)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CONTROL_BYTES = bytes([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])


def _line(event: ev.Event) -> int:
    """The 1-based line an event starts on (the C parser always marks it)."""
    return event.start_mark.line + 1 if event.start_mark is not None else 0


@dataclass
class Document:
    """A parsed document with the line (1-based) of every field path it holds."""

    data: Any
    lines: dict[str, int] = field(default_factory=dict)

    def line_of(self, path: str) -> int | None:
        """The line of ``path`` or of its nearest enclosing field."""
        while path:
            if path in self.lines:
                return self.lines[path]
            cut = max(path.rfind("."), path.rfind("["))
            path = path[:cut] if cut > 0 else ""
        return None


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def decode_text(data: bytes, source: str) -> str:
    """Decode ``data`` as UTF-8 text (a UTF-8 byte-order mark is allowed) or refuse it."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise OrderFileError(
            "the file is UTF-16 text; save it as UTF-8 and send it again", source=source
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise OrderFileError(
            "the file is not UTF-8 text (binary data, or another encoding such as Latin-1); "
            "save it as UTF-8 and send it again",
            source=source,
            line=line,
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    # in UTF-8 a control character is its own one byte, and no other character's bytes are below
    # 0x80: a file without those bytes holds none (looked for by bytes, far faster than by text)
    bad = _CONTROL.search(text) if len(data.translate(None, _CONTROL_BYTES)) != len(data) else None
    if bad:
        line = text.count("\n", 0, bad.start()) + 1
        raise OrderFileError(
            f"the file holds a control character (U+{ord(bad.group()):04X}); it is not a text "
            "file",
            source=source,
            line=line,
        )
    return text


def load_document(
    data: bytes | str,
    source: str = "<input>",
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> Document:
    """Parse one restricted YAML document; raise :class:`OrderFileError` on any refusal."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if len(raw) > max_bytes:
        raise OrderFileError(
            f"the file is {len(raw):,} bytes; the limit is {max_bytes:,} bytes", source=source
        )
    text = decode_text(raw, source)
    builder = _Builder(source, max_depth)
    feed = builder.feed
    try:
        # yaml.parse's loop without its generator, on the parser alone (no constructor or
        # resolver is made for it): the events are the same
        parser = _Parser(text)
        try:
            while parser.check_event():
                feed(parser.get_event())
        finally:
            parser.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = exc.problem or exc.context or "not valid YAML"
        raise OrderFileError(f"not valid YAML: {problem}", source=source, line=line) from None
    except yaml.YAMLError as exc:
        raise OrderFileError(f"not valid YAML: {exc}", source=source) from None
    return builder.result()


def load_yaml(
    data: bytes | str,
    source: str = "<input>",
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> Any:
    """Parse one restricted YAML document and return its data."""
    return load_document(data, source, max_bytes=max_bytes, max_depth=max_depth).data


def load_yaml_file(path: Any, *, max_bytes: int = 16 * 1024 * 1024, max_depth: int = 64) -> Any:
    """Load a trusted-but-checked data file (maps, decks, scenarios) with roomier limits."""
    from pathlib import Path

    p = Path(path)
    return load_yaml(p.read_bytes(), str(p), max_bytes=max_bytes, max_depth=max_depth)


class _Builder:
    """Builds plain Python data from parser events, refusing what order files may not hold."""

    def __init__(self, source: str, max_depth: int) -> None:
        self.source = source
        self.max_depth = max_depth
        # each frame: [container, path, pending_key, key_line]
        self.stack: list[list[Any]] = []
        self.documents = 0
        self.root: Any = None
        self.has_root = False
        self.lines: dict[str, int] = {}

    def fail(self, message: str, event: ev.Event, path: str | None = None) -> OrderFileError:
        return OrderFileError(
            message, source=self.source, line=_line(event), field=path or None
        )

    def current_path(self) -> str:
        if not self.stack:
            return ""
        container, path, key, _ = self.stack[-1]
        if isinstance(container, list):
            return _join(path, len(container))
        return _join(path, key) if key is not None else path

    def feed(self, event: Any) -> None:
        # dispatched on the event's class (the parser makes these classes only): intake feeds
        # every event of every file through here
        kind = type(event)
        if kind is ev.ScalarEvent:
            if event.anchor is not None:
                raise self._anchor(event)
            if event.tag is not None:
                self._check_tag(event)
            self._add(self._scalar(event), event)
        elif kind is ev.MappingEndEvent or kind is ev.SequenceEndEvent:
            self.stack.pop()
        elif kind is ev.MappingStartEvent or kind is ev.SequenceStartEvent:
            if event.anchor is not None:
                raise self._anchor(event)
            self._check_tag(event)
            path = self.current_path()
            if len(self.stack) >= self.max_depth:
                raise self.fail(
                    f"the document nests deeper than {self.max_depth} levels", event, path
                )
            container: Any = {} if kind is ev.MappingStartEvent else []
            self._add(container, event, opening=True)
            self.stack.append([container, path, None, 0])
        elif kind is ev.DocumentStartEvent:
            self.documents += 1
            if self.documents > 1:
                raise self.fail(
                    "the file holds more than one YAML document (a second '---'); "
                    "send one document per file",
                    event,
                )
        elif kind is ev.AliasEvent:
            raise self.fail(
                f"aliases (*{event.anchor}) are not allowed in order files; write the value out",
                event,
                self.current_path(),
            )

    def _anchor(self, event: Any) -> OrderFileError:
        return self.fail(
            f"anchors (&{event.anchor}) are not allowed in order files; write the value out",
            event,
            self.current_path(),
        )

    def _check_tag(self, event: Any) -> None:
        tag = event.tag
        if tag is None or tag == "!":
            return
        # a plain scalar carries no tag; any tag seen here was written explicitly
        raise self.fail(
            f"YAML tags ({tag}) are not allowed in order files; remove the tag",
            event,
            self.current_path(),
        )

    def _scalar(self, event: ev.ScalarEvent) -> Any:
        if event.style or not event.implicit[0]:
            return event.value
        if event.value and event.value[0] not in _RESOLVED_FIRST:  # resolve() would say str
            return event.value
        tag = _resolver.resolve(ScalarNode, event.value, (True, False))
        if tag == _STR or tag == _TIMESTAMP:
            return event.value
        build = _SCALAR_BUILDERS.get(tag)
        if build is None:
            return event.value
        path = self.current_path()
        try:
            value = build(ScalarNode(tag, event.value))
        except (ValueError, OverflowError):  # Python refuses ints of more than 4,300 digits
            raise self.fail(f"the number {event.value[:20]}… is far too long", event, path) from None
        # plain data only: the canonical JSON form has no NaN or infinity, and no integer of
        # thousands of digits (a base-60 literal such as 1:2:3:... builds one from a short text)
        if isinstance(value, float) and not math.isfinite(value):
            raise self.fail(f"'{event.value}' is not a finite number; write a plain number", event, path)
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= MAX_INT:
            raise self.fail(f"the number {event.value[:20]} is too large (the limit is 2**63)", event, path)
        return value

    def _add(self, value: Any, event: ev.Event, opening: bool = False) -> None:
        if not self.stack:
            self.root = value
            self.has_root = True
            self.lines[""] = _line(event)
            return
        frame = self.stack[-1]
        container, path, key, _ = frame
        if isinstance(container, list):
            self.lines[f"{path}[{len(container)}]"] = _line(event)
            container.append(value)
            return
        if key is None:
            if opening:
                raise self.fail(
                    "a mapping key must be a plain word or string, not a list or mapping",
                    event,
                    path,
                )
            if not isinstance(value, str):
                raise self.fail(
                    f"the key {echo(repr(value))} is not a string; put it in quotes", event, path
                )
            if value in container:
                raise self.fail(
                    f"the key '{echo(value)}' appears twice; keep only one", event, _join(path, value)
                )
            frame[2] = value
            frame[3] = _line(event)
            return
        self.lines[f"{path}.{key}" if path else key] = frame[3]  # (_join for a string key)
        container[key] = value
        frame[2] = None

    def result(self) -> Document:
        if not self.has_root or self.root is None:
            raise OrderFileError("the file is empty", source=self.source)
        return Document(self.root, self.lines)
