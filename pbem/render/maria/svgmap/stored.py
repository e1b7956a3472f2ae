"""A drawing's names told against the names of the empty board, for storing many phases of one
campaign: the empty board's names are stored once (the same for every drawing of a board in a
language), and each phase draws over them only the names its pieces moved, hiding the old ones.

Most of a phase's 670-odd names stand where the empty board put them; a phase moves a few dozen
and hides a few dozen more under its pieces. The stored drawing shows the empty board's names as
an image with a mask over the ones it moved or hid, and draws those names itself. The legend,
the same for every phase whose board holds the same powers, is stored once too.
"""

from __future__ import annotations

import re

from pbem.games.base import MapNames
from pbem.render.maria.svgmap import _STATIC, Drawing, _Static

_LAYER = '<g id="labels">'
_ID = re.compile(r' id="label-[^"]*"')  # the mask's copies of hidden names keep no id of their own


def _static_of(svg: str) -> _Static | None:
    """The kept parts of the board and language ``svg`` was drawn on (it starts with their
    head), if this process drew it."""
    for per_lang in list(_STATIC.values()):
        for st in per_lang.values():
            if svg.startswith(st.head):
                return st
    return None


# The names a drawing hides are masked out of the image of the empty board's names by drawing
# them again in the mask, black, with a halo a little wider than theirs: the mask covers their
# glyphs exactly, however wide the type came out, and nothing of their neighbours.
_MASK_STYLE = ("<style>#names-moved text { fill: #000 !important; stroke: #000 !important; "
               "stroke-width: 3.6px !important; }</style>")


def map_names(svg: str) -> MapNames | None:
    """``svg``'s names layer against the empty board's; ``None`` when it was not drawn here."""
    if isinstance(svg, Drawing):
        return _drawn_names(svg)
    start = svg.find(_LAYER)
    st = _static_of(svg) if start >= 0 else None
    if st is None:
        return None
    end = svg.index("</g>", start) + len("</g>")
    drawn = svg[start + len(_LAYER):end - len("</g>")].split("</text>")
    if drawn.pop() != "" or not all(text.startswith("<text ") for text in drawn):
        return None  # something in the layer that is not a name
    kept = {text + "</text>" for text in drawn}
    base = [lbl.svg for lbl in st.names.labels.values()]
    defs_end = svg.index("</defs>") + len("</defs>")
    ground = svg[:defs_end] + _LAYER + "".join(base) + "</g></svg>"
    hidden = _ID.sub("", "".join(text for text in base if text not in kept))
    known = set(base)
    own = "".join(text + "</text>" for text in drawn if text + "</text>" not in known)
    return MapNames(ground, start, end, _MASK_STYLE + hidden if hidden else "", own)


def _drawn_names(svg: Drawing) -> MapNames | None:
    """:func:`map_names` of a drawing made here, from the names it placed again: the same text,
    told name by name (a name placed again where the empty board had it is no name of its
    own), and what every drawing of the board and language shares made once."""
    if svg.names is None:
        return None
    st = svg.static
    base = st.names.labels
    if "ground" not in st.stored:
        defs_end = st.head.index("</defs>") + len("</defs>")
        st.stored["ground"] = st.head[:defs_end] + _LAYER + "".join(lbl.svg for lbl in base.values()) + "</g></svg>"
    again = {lbl.city: lbl for lbl in svg.placed.again}
    own = "".join([lbl.svg for lbl in svg.placed.again if (kept := base.get(lbl.city)) is None or kept.svg != lbl.svg])
    hidden = sorted((city for city in svg.placed.moved if city in base
                     and ((lbl := again.get(city)) is None or lbl.svg != base[city].svg)), key=st.names.order.__getitem__)
    mask = _MASK_STYLE + "".join(_bare(st, city) for city in hidden) if hidden else ""
    return MapNames(st.stored["ground"], *svg.names, mask, own)


def _bare(st: _Static, city: str) -> str:
    """The empty board's name of ``city`` without its id (as the mask draws it), kept."""
    key = "bare " + city
    if key not in st.stored:
        st.stored[key] = _ID.sub("", st.names.labels[city].svg)
    return st.stored[key]


def legend_span(svg: str) -> tuple[int, int] | None:
    """Where the legend stands in ``svg``: the last layer, the same in every phase whose board
    holds the same powers."""
    if isinstance(svg, Drawing):
        return svg.legend
    start = svg.find('<g id="legend">')
    stop = svg.rfind("</svg>")
    return (start, stop) if 0 <= start < stop else None
