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
from functools import lru_cache
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
        if not isinstance(data, dict):
            raise _Unusual
        _mapping(data, 0, out, "")
    except _Unusual:
        return str(yaml.dump(data, Dumper=_DUMPER, sort_keys=True, allow_unicode=True, default_flow_style=False))
    return "".join(out)


def _word(value: str) -> str:
    if not _is_plain(value):
        raise _Unusual
    return value


@lru_cache(maxsize=4096)
def _is_plain(value: str) -> bool:
    """Whether the emitter writes ``value`` plain and it reads back as a string (order files
    repeat the same words -- powers, places, verbs --, so each is resolved once)."""
    return bool(_PLAIN.match(value)) and _resolver.resolve(ScalarNode, value, (True, False)) == _STR


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return _word(value)
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if type(value) is int:
        return str(value)
    raise _Unusual


def _line(out: list[str], text: str) -> None:
    if len(text) > _WIDTH:
        raise _Unusual
    out.append(text + "\n")


def _mapping(data: dict[Any, Any], indent: int, out: list[str], first: str) -> None:
    """``data`` at column ``indent``; its first line starts with ``first`` (a sequence's ``- ``).
    (The common cases -- a word, a mapping, a sequence -- are written here rather than through
    :func:`_scalar` and :func:`_line`: a receipt echoes every order.)"""
    if not data or not all(type(k) is str for k in data):
        raise _Unusual
    pad = " " * indent
    lead = first or pad
    for key in sorted(data):
        value = data[key]
        if not _is_plain(key):
            raise _Unusual
        kind = type(value)
        if kind is str:
            if not _is_plain(value):
                raise _Unusual
            text = f"{lead}{key}: {value}"
        elif kind is dict or kind is list or isinstance(value, (dict, list)):
            text = f"{lead}{key}:"
        else:
            text = f"{lead}{key}: {_scalar(value)}"
        if len(text) > _WIDTH:
            raise _Unusual
        out.append(text + "\n")
        if kind is dict or (kind is not list and isinstance(value, dict)):
            _mapping(value, indent + 2, out, "")
        elif kind is list or isinstance(value, list):
            _sequence(value, indent, out)  # a mapping's sequence is not indented
        lead = pad


def _sequence(data: list[Any], indent: int, out: list[str]) -> None:
    if not data:
        raise _Unusual
    pad = " " * indent
    for item in data:
        if type(item) is str:  # (the common case, written here)
            if not _is_plain(item):
                raise _Unusual
            text = f"{pad}- {item}"
            if len(text) > _WIDTH:
                raise _Unusual
            out.append(text + "\n")
        elif isinstance(item, dict):
            _mapping(item, indent + 2, out, pad + "- ")
        elif isinstance(item, list):
            raise _Unusual
        else:
            _line(out, f"{pad}- {_scalar(item)}")
