"""The map page: the report's SVG map in a small offline HTML file, for zooming.

A report mail shows the map as PNG images (:mod:`pbem.render.raster`); the SVG travels once, in
the order page when the seat has orders to send, else in this page. The SVG is gzip-compressed
(about a sixth of its size) and opened by the browser's ``DecompressionStream``, as the order page
does; the page fetches nothing and runs no script but the few lines that open the map.
"""

from __future__ import annotations

from html import escape

from pbem.render import orderpage, pagekit

_OPEN = """(function () {
  var box = document.getElementById("map");
  if (typeof DecompressionStream === "undefined") return;
  var stream = new Blob([PBEM_BYTES(document.getElementById("pbem-map").textContent)]).stream().pipeThrough(new DecompressionStream("gzip"));
  new Response(stream).text().then(function (svg) { box.innerHTML = svg; });
})();"""


def map_page(svg: str, title: str, lang: str) -> str:
    """The page of ``svg`` titled ``title``, its words in ``lang``."""
    lines = orderpage.compress_svg(svg)
    words = orderpage.message_table(lang)
    return (
        f'<!DOCTYPE html>\n<html lang="{escape(lang)}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; "
        "style-src 'unsafe-inline'; img-src data:; connect-src 'none'\">\n"
        f"<title>{_ascii(title)}</title>\n"
        "<style>body { margin: 0; background: #fbf8ef; } #map svg { display: block; width: 100%; "
        "min-width: 60rem; height: auto; }</style>\n</head>\n<body>\n"
        f'<div id="map"><p>{_ascii(words["The map needs a newer browser (DecompressionStream)."])}</p></div>\n'
        f'<script type="text/plain" id="pbem-map">\n{lines}\n</script>\n<script>\n{pagekit.asset("orderpage", "unpack.js")}{_OPEN}\n</script>\n</body>\n</html>\n'
    )


def _ascii(text: str) -> str:
    """``text`` escaped for HTML, non-ASCII as character references: the page stays ASCII, so a
    mail carries it as it is (7bit)."""
    return escape(text).encode("ascii", "xmlcharrefreplace").decode("ascii")
