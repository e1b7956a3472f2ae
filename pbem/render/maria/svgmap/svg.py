"""Writing SVG text: escaped elements with sorted attributes, and the rough geometry of text."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping


def rnd(v: float) -> float:
    return round(v, 1)


def text_width(text: str, size: float) -> float:
    """A rough width of ``text`` at ``size``: CJK glyphs are square, Latin ones narrower."""
    return sum(size if ord(ch) > 0x2E80 else size * 0.6 for ch in text)


def overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]

# -- writing SVG text ------------------------------------------------------------------------
# The drawing is written as text directly: a map has thousands of elements and building an
# element tree for each render cost more than placing the names. Attributes are written in
# sorted order and numbers with ``str``, so the same input gives the same bytes.

Attrs = Mapping[str, object]
Box = tuple[float, float, float, float]


_SPECIAL = re.compile('[&<>"\n\r\t]')  # what an attribute's value must escape (a text, the first three)


def esc_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def esc_attr(value: str) -> str:
    if _SPECIAL.search(value) is None:  # most values: nothing to escape
        return value
    return (esc_text(value).replace('"', "&quot;").replace("\n", "&#10;")
            .replace("\r", "&#13;").replace("\t", "&#09;"))


def _attr(k: str, v: object) -> str:
    return f' {k}="{v}"' if isinstance(v, (int, float)) else f' {k}="{esc_attr(str(v))}"'


def open_tag(tag: str, attrs: Attrs) -> str:
    """An element's start tag without its closing bracket (None values left out)."""
    # numbers and most words need no escaping: told apart inline, as a map has thousands of tags
    search = _SPECIAL.search
    return f"<{tag}" + "".join([
        f' {k}="{v}"' if (type(v) is float or type(v) is int or (type(v) is str and search(v) is None))
        else _attr(k, v) for k, v in sorted(attrs.items()) if v is not None])


def el(tag: str, attrs: Attrs, body: str = "") -> str:
    """One element: ``attrs`` in sorted order, ``body`` already SVG."""
    return f"{open_tag(tag, attrs)}>{body}</{tag}>" if body else f"{open_tag(tag, attrs)} />"


def svg_text(text: str, attrs: Attrs) -> str:
    return el("text", attrs, esc_text(text))


def points(pts: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{x},{y}" for x, y in pts)


def svg_title(tip: str) -> str:
    return f"<title>{esc_text(tip)}</title>"

