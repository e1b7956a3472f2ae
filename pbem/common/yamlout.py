"""Plain data as block YAML, the text libyaml's emitter writes, without its per-call cost.

Intake echoes every accepted file's orders in its receipt as
``yaml.dump(orders, Dumper=CSafeDumper, sort_keys=True, allow_unicode=True,
default_flow_style=False)``; making that dumper (its representer, serializer and emitter
objects) costs more than writing the few lines of a usual order file. :func:`dump_block` writes
those lines directly for the shapes order files take (non-empty mappings with string keys,
non-empty sequences, short words, whole numbers, booleans, nulls) and hands anything else
(floats, empty containers, quoted, long or unusual strings) to that call, so the text is the
same either way (``tests/test_yamlout.py`` compares them).
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_STR = "tag:yaml.org,2002:str"
_resolver = Resolver()
# a word the emitter writes plain: no indicator first, no ':' or '#' (": " and " #" end a plain
# scalar), no quote, no trailing space, no control or format character; beyond ASCII, letters and
# digits (CJK included) only
_PLAIN = re.compile(r"[\w(/][\w .,()/+=~^$;-]*(?<! )\Z")
_WIDTH = 76  # below the emitter's 80 columns: no line of the fast text is ever folded


class _Unusual(Exception):
    """A value :func:`dump_block` leaves to libyaml."""


def dump_block(data: Any) -> str:
    """``data`` as the block YAML text of the call above."""
    out: list[str] = []
    try:
        if type(data) is not dict:
            raise _Unusual
        _mapping(data, "", out, "")
    except (_Unusual, TypeError):  # (TypeError: keys sorted() cannot order; libyaml says what it says)
        return str(yaml.dump(data, Dumper=_DUMPER, sort_keys=True, allow_unicode=True, default_flow_style=False))
    return "".join(out)


_seen: set[str] = set()
"""Words found plain so far (order files repeat the same words -- powers, places, verbs --, so
each is resolved once; a set's look costs less than a call)."""


def _plain(value: str) -> bool:
    """Whether the emitter writes ``value`` plain and it reads back as a string."""
    if not (_PLAIN.match(value) and _resolver.resolve(ScalarNode, value, (True, False)) == _STR):
        return False
    if len(_seen) >= 4096:
        _seen.clear()
    _seen.add(value)
    return True


def _scalar(value: Any) -> str:
    kind = type(value)
    if kind is str:
        if value in _seen or _plain(value):
            return value
        raise _Unusual
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if kind is int:
        return str(value)
    raise _Unusual


def _mapping(data: dict[Any, Any], pad: str, out: list[str], first: str) -> None:
    """``data`` indented by ``pad``; its first line starts with ``first`` (a sequence's ``- ``).
    Only plain dicts, lists and scalars are written here; anything else (a subclass included)
    is left to libyaml. (The common cases -- a word, a mapping, a sequence -- are written here
    rather than through :func:`_scalar`: a receipt echoes every order.)"""
    if not data:
        raise _Unusual
    seen = _seen
    lead = first or pad
    for key in sorted(data):
        if type(key) is not str or (key not in seen and not _plain(key)):
            raise _Unusual
        value = data[key]
        kind = type(value)
        if kind is str:
            if value not in seen and not _plain(value):
                raise _Unusual
            text = f"{lead}{key}: {value}"
        elif kind is dict or kind is list:
            text = f"{lead}{key}:"
        else:
            text = f"{lead}{key}: {_scalar(value)}"
        if len(text) > _WIDTH:
            raise _Unusual
        out.append(text + "\n")
        if kind is dict:
            _mapping(value, pad + "  ", out, "")
        elif kind is list:
            _sequence(value, pad, out)  # a mapping's sequence is not indented
        lead = pad


def _sequence(data: list[Any], pad: str, out: list[str]) -> None:
    if not data:
        raise _Unusual
    seen = _seen
    for item in data:
        kind = type(item)
        if kind is str:  # (the common case, written here)
            if item not in seen and not _plain(item):
                raise _Unusual
            text = f"{pad}- {item}"
        elif kind is dict:
            _mapping(item, pad + "  ", out, pad + "- ")
            continue
        else:  # (a list in a list, a subclass: libyaml's)
            text = f"{pad}- {_scalar(item)}"
        if len(text) > _WIDTH:
            raise _Unusual
        out.append(text + "\n")
