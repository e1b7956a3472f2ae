"""The Republic of Rome's presentation: its order page's data and words (``orderpage``). Rome
has no map; its names are its own templates' (``templates/ror/``). The game names it
(``pbem.games.ror``: ``presentation``) and the registry finds it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.games.base import Presentation


class RorPresentation(Presentation):
    def order_page_data(self, state: Mapping[str, Any], view: Mapping[str, Any], powers: list[str],
                        legal: Mapping[str, Any], lang: str) -> dict[str, Any] | None:
        from pbem.render.ror.orderpage import message_table, ror_data

        return {**ror_data(state, view, powers, legal, lang), "text": dict(message_table(lang))}


PRESENTATION = RorPresentation()
