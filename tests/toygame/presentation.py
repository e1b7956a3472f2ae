"""How the auction is shown: the lots' names in both languages, a small map of the purses and
the lots won, its own templates (``templates/auction/``) and its order page's form
(``auction.js``)."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from pathlib import Path
from typing import Any

from pbem.games.base import Presentation
from toygame.rules import LOTS, SEATS

KIND_NAMES = {"en": {"vase": "vase", "clock": "clock", "map": "map"},
              "zh-TW": {"vase": "花瓶", "clock": "時鐘", "map": "地圖"}}


def lot_name(lot: str, lang: str) -> str:
    """``clock-5`` -> ``clock (5)``; in Chinese ``時鐘（5）``."""
    kind, _, worth = lot.partition("-")
    name = KIND_NAMES.get(lang, KIND_NAMES["en"]).get(kind, kind)
    return f"{name}（{worth}）" if lang == "zh-TW" else f"{name} ({worth})"


class AuctionPresentation(Presentation):
    templates = Path(__file__).parent / "templates"
    order_page_script = Path(__file__).parent / "auction.js"

    def glossary(self, lang: str) -> dict[str, Any]:
        return {"cities": {}, "generals": {}, "titles": {}, "lots": {lot["id"]: lot_name(lot["id"], lang) for lot in LOTS}}

    def map_svg(self, view: Mapping[str, Any], highlights: Mapping[str, Any], lang: str) -> str | None:
        """The two purses as bars (one unit a coin) with each collector's lots beneath."""
        rows = []
        for i, (power, seat) in enumerate(SEATS.items()):
            y = 20 + 60 * i
            coins = int(view["coins"][power])
            won = ", ".join(lot_name(w, lang) for w in view["won"][power]) or "-"
            rows.append(f'<text x="10" y="{y + 14}" font-size="14">{escape(seat)}</text>'
                        f'<rect class="purse" data-power="{power}" x="60" y="{y}" width="{coins * 20}" height="18" fill="#c9a227"/>'
                        f'<text x="60" y="{y + 38}" font-size="12">{escape(won)}</text>')
        return ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 320 140" width="320" height="140">'
                '<rect width="320" height="140" fill="#fbf8ef"/>' + "".join(rows) + "</svg>")


PRESENTATION = AuctionPresentation()
